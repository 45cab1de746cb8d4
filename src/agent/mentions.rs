//! `@path` mentions in a prompt: each names a file the model should see. A mention of an
//! existing text file (relative to the working directory, up to `CAP` bytes) attaches the
//! file's contents to the prompt, after it, so the prompt the model gets — and the context
//! panel shows — carries the file. Other `@words` stay as typed.

use std::path::Path;

/// Bytes of one attached file at most.
const CAP: usize = 256 * 1024;

/// `prompt` with the files it mentions attached.
pub fn attach(prompt: &str, cwd: &Path) -> String {
    let mut attached: Vec<String> = Vec::new();
    let mut out = prompt.to_string();
    for word in prompt.split_whitespace() {
        let Some(mention) = word.strip_prefix('@') else { continue };
        let mention = mention.trim_end_matches([',', '.', ';', ':', ')', '?', '!']);
        if mention.is_empty() || attached.iter().any(|a| a == mention) {
            continue;
        }
        let path = cwd.join(mention);
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if !meta.is_file() || meta.len() as usize > CAP {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if bytes.iter().take(8192).any(|&b| b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        out.push_str(&format!("\n\n<file path=\"{mention}\">\n{}\n</file>", text.trim_end_matches('\n')));
        attached.push(mention.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attaches_mentioned_text_files_once_and_leaves_other_words() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn x() {}\n").unwrap();
        std::fs::write(dir.path().join("blob.bin"), [0u8, 1, 2]).unwrap();
        let prompt = "explain @src/lib.rs, and again @src/lib.rs; ask @someone about @blob.bin";
        assert_eq!(
            attach(prompt, dir.path()),
            format!("{prompt}\n\n<file path=\"src/lib.rs\">\npub fn x() {{}}\n</file>")
        );
        assert_eq!(attach("no mentions", dir.path()), "no mentions");
    }
}
