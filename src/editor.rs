//! The user's own editor for text elelem holds (`/context edit N`): `$VISUAL`, then
//! `$EDITOR`, else `vi` (`notepad` on Windows), run through `sh` (`cmd /C` on Windows; so
//! `code -w` works) on a private temp file (0600, removed afterwards). Front ends decide
//! what to do with the screen meanwhile; this only runs the editor and reads the file back.

use anyhow::{bail, Context as _};
use std::io::Write as _;
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::PathBuf;

/// The editor when the user chose none.
#[cfg(unix)]
const DEFAULT: &str = "vi";
#[cfg(windows)]
const DEFAULT: &str = "notepad";

/// The editor command line the user chose.
pub fn command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| DEFAULT.into())
}

/// Removes the temp file however the edit ends.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Opens `text` in the editor (inheriting the terminal) and returns what was saved, without
/// the trailing line breaks editors add. Blocks until the editor exits; a failing editor
/// is an error and nothing is returned.
pub fn edit(text: &str) -> anyhow::Result<String> {
    edit_with(&command(), text)
}

/// `edit` with this editor command line.
pub fn edit_with(editor: &str, text: &str) -> anyhow::Result<String> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let path = std::env::temp_dir().join(format!("elelem-edit-{}-{nanos}.md", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let temp = TempFile(path);
    file.write_all(text.as_bytes()).and_then(|_| file.flush()).context("cannot write the temp file")?;
    drop(file);
    let status = shell(editor, &temp.0).status().with_context(|| format!("cannot run the editor ({editor})"))?;
    if !status.success() {
        bail!("the editor ({editor}) failed ({status}); nothing changed");
    }
    let edited = std::fs::read_to_string(&temp.0).context("cannot read the edited text back")?;
    Ok(edited.trim_end_matches(['\n', '\r']).to_string())
}

/// `editor` run through the shell on `path`.
#[cfg(unix)]
fn shell(editor: &str, path: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(format!("{editor} \"$@\"")).arg("sh").arg(path);
    command
}

/// `editor` run through `cmd` on `path` (quoted).
#[cfg(windows)]
fn shell(editor: &str, path: &std::path::Path) -> std::process::Command {
    use std::os::windows::process::CommandExt as _;
    let mut command = std::process::Command::new("cmd");
    command.arg("/C").raw_arg(format!("{editor} \"{}\"", path.display()));
    command
}

/// Runs blocking `f` from async code without starving the runtime: on a multi-threaded
/// runtime the worker hands its tasks to another thread first.
pub fn block<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_editor_gets_a_private_file_and_its_words_come_back() {
        let dir = std::env::temp_dir();
        let seen = dir.join(format!("elelem-editor-seen-{}", std::process::id()));
        let script = format!(
            "sh -c 'stat -c %a \"$1\" > {seen}; cat \"$1\" >> {seen}; printf \"new words\\n\" > \"$1\"' sh",
            seen = seen.display()
        );
        let edited = edit_with(&script, "old words");
        let failed = edit_with("false", "x");
        assert_eq!(edited.unwrap(), "new words");
        assert_eq!(std::fs::read_to_string(&seen).unwrap(), "600\nold words");
        assert!(failed.unwrap_err().to_string().contains("nothing changed"));
        let _ = std::fs::remove_file(seen);
    }
}
