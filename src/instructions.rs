//! The project's instruction files, read outside the kernel (`startup` hands `render` to
//! the system prompt, which calls it on each render): every `AGENTS.md` from the project
//! root down to the working directory, root first, a folder's `AGENTS.override.md` taking
//! its `AGENTS.md`'s place; in a project with none at all, the nearest `CLAUDE.md` or
//! `.github/copilot-instructions.md` (the files other agents read). Also which folders
//! between the root and a file further down have a file of their own (a plugin adds those
//! to the conversation when the model opens a file there). Each file is read bounded
//! (`FILE_LIMIT`), all of them together too (`TOTAL_LIMIT`), with a note saying what was cut.
//!
//! A file under a directory the session's `paths.deny` names (the list a plugin hands over
//! with `leave_out_under`: the kernel knows no permissions) is left out, the file itself or
//! what a link leads to, and the system prompt says so without its text.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Directories no instruction file is read from (canonical paths); one list for the
/// process, whose sessions share a working directory and its rules.
static DENIED: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Sets the directories no instruction file is read from (canonical, as `paths.deny`
/// holds them), replacing the last list.
pub fn leave_out_under(dirs: Vec<PathBuf>) {
    if let Ok(mut denied) = DENIED.write() {
        *denied = dirs;
    }
}

fn denied_dirs() -> Vec<PathBuf> {
    DENIED.read().map(|d| d.clone()).unwrap_or_default()
}

/// The denied directory `path` is under (or leads to, links followed), if any.
pub fn denied_dir(path: &Path) -> Option<PathBuf> {
    denied_in(path, &denied_dirs())
}

fn denied_in(path: &Path, denied: &[PathBuf]) -> Option<PathBuf> {
    if denied.is_empty() {
        return None;
    }
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    denied.iter().find(|dir| real.starts_with(dir) || path.starts_with(dir)).cloned()
}

/// What is said in place of a file under a denied directory.
pub fn left_out(path: &Path, dir: &Path) -> String {
    format!(
        "[Project instructions from {} left out: it is under {}, which paths.deny names]",
        path.display(),
        dir.display()
    )
}

/// Bytes of one instruction file that are read; the rest is cut with a note.
pub const FILE_LIMIT: usize = 32 * 1024;
/// Bytes of instruction files in all (the system prompt's, and those a session adds).
pub const TOTAL_LIMIT: usize = 96 * 1024;

/// A folder's own file, in the order looked for: the override wins.
const FOLDER_FILES: &[&str] = &["AGENTS.override.md", "AGENTS.md"];
/// Stand-ins looked for (nearest first) only when no folder has an `AGENTS.md`.
const FALLBACK_FILES: &[&str] = &["CLAUDE.md", ".github/copilot-instructions.md"];

/// The project a directory belongs to: the nearest ancestor (or itself) holding `.git`,
/// else the directory itself; canonical when it exists.
pub fn project_root(dir: &Path) -> PathBuf {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&dir).to_path_buf()
}

/// The file that holds `dir`'s own instructions (`AGENTS.override.md`, else `AGENTS.md`).
pub fn folder_file(dir: &Path) -> Option<PathBuf> {
    FOLDER_FILES.iter().map(|name| dir.join(name)).find(|p| p.is_file())
}

/// The folders from `root` down to `dir` (both included, root first); just `dir` when it
/// is not under `root`.
fn folders_down(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut chain: Vec<PathBuf> = dir.ancestors().take_while(|d| d.starts_with(root)).map(Path::to_path_buf).collect();
    if chain.is_empty() {
        chain.push(dir.to_path_buf());
    }
    chain.reverse();
    chain
}

/// The instruction files for a working directory, root first: one per folder from the
/// project root down that has one, or else the nearest stand-in.
pub fn files_for(cwd: &Path) -> Vec<PathBuf> {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let files: Vec<PathBuf> = folders_down(&project_root(&cwd), &cwd).iter().filter_map(|d| folder_file(d)).collect();
    if !files.is_empty() {
        return files;
    }
    FALLBACK_FILES
        .iter()
        .find_map(|name| cwd.ancestors().map(|d| d.join(name)).find(|p| p.is_file()))
        .into_iter()
        .collect()
}

/// The folders strictly between the working directory's chain and `file`: those from the
/// project root down to `file`'s folder (or `file` itself, a folder) that are not the working directory or one of its
/// ancestors, and that have their own instruction file. Root first.
pub fn files_between(cwd: &Path, file: &Path) -> Vec<PathBuf> {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let root = project_root(&cwd);
    // A walking tool's path is a folder: its own file counts.
    let folder = match file.is_dir() {
        true => file,
        false => match file.parent() {
            Some(parent) => parent,
            None => return Vec::new(),
        },
    };
    if !folder.starts_with(&root) {
        return Vec::new();
    }
    folders_down(&root, folder).iter().filter(|d| !cwd.starts_with(d)).filter_map(|d| folder_file(d)).collect()
}

/// One file read as text, at most `limit` bytes (cut at a character boundary, with a note
/// saying so); `None` when it cannot be read or is not a regular file. A repository's file:
/// opened without waiting (`safe_file`: a FIFO is refused at once) and never through a
/// link out of its project (the nearest folder up holding `.git`, else its own folder).
pub fn read_bounded(path: &Path, limit: usize) -> Option<String> {
    read_denying(path, limit, &denied_dirs())
}

/// `read_bounded`, refusing a file under (or leading into) one of `denied`.
fn read_denying(path: &Path, limit: usize, denied: &[PathBuf]) -> Option<String> {
    let root = project_root(path.parent()?);
    let reading = crate::safe_file::Reading::capped(limit as u64).within(&root).denying(denied);
    let file = reading.open(path).ok()?;
    let meta = file.metadata().ok()?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() <= limit {
        return Some(String::from_utf8_lossy(&bytes).trim_end().to_string());
    }
    let mut text = String::from_utf8_lossy(&bytes[..limit]).into_owned();
    if text.ends_with('\u{FFFD}') {
        text.pop();
    }
    Some(format!(
        "{}\n\n[{} is {} KB; only its first {} KB are included here]",
        text.trim_end(),
        path.display(),
        meta.len().div_ceil(1024),
        limit / 1024
    ))
}

/// The project's instructions for the system prompt: each file under a heading naming
/// it, root first, within `TOTAL_LIMIT` (a file past it is left out, and said so).
pub fn render(cwd: &Path) -> String {
    render_denying(cwd, &denied_dirs())
}

/// `render`, leaving out the files under (or leading into) one of `denied`.
fn render_denying(cwd: &Path, denied: &[PathBuf]) -> String {
    let mut out = String::new();
    let mut left = TOTAL_LIMIT;
    for path in files_for(cwd) {
        if let Some(dir) = denied_in(&path, denied) {
            out.push_str(&format!("\n{}\n", left_out(&path, &dir)));
            continue;
        }
        if left == 0 {
            out.push_str(&format!(
                "\n[Project instructions from {} left out: instruction files are limited to {} KB in all]\n",
                path.display(),
                TOTAL_LIMIT / 1024
            ));
            continue;
        }
        let Some(text) = read_denying(&path, FILE_LIMIT.min(left), denied) else { continue };
        left = left.saturating_sub(text.len());
        out.push_str(&format!("\nProject instructions from {}:\n\n{}\n", path.display(), text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_from_the_root_down_with_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        write(&root.join("AGENTS.md"), "root");
        write(&root.join("a/AGENTS.md"), "a");
        write(&root.join("a/AGENTS.override.md"), "a override");
        write(&root.join("a/b/AGENTS.md"), "b");
        write(&root.join("a/b/CLAUDE.md"), "claude");
        write(&root.join("side/AGENTS.md"), "side");
        let files = files_for(&root.join("a/b"));
        assert_eq!(files, [root.join("AGENTS.md"), root.join("a/AGENTS.override.md"), root.join("a/b/AGENTS.md")]);
        let text = render(&root.join("a/b"));
        let (r, a, b) =
            (text.find("\n\nroot\n").unwrap(), text.find("a override").unwrap(), text.find("\n\nb\n").unwrap());
        assert!(r < a && a < b, "{text}");
        assert!(!text.contains("claude"), "{text}");
        assert_eq!(files_between(&root.join("a/b"), &root.join("side/x.rs")), [root.join("side/AGENTS.md")]);
        assert!(files_between(&root.join("a/b"), &root.join("a/b/c/x.rs")).is_empty());
        assert_eq!(files_between(&root.join("a/b"), &root.join("side")), [root.join("side/AGENTS.md")]);
        assert!(files_between(&root.join("a/b"), Path::new("/etc/passwd")).is_empty());
    }

    #[test]
    fn falls_back_only_without_any_agents_md_and_bounds_each_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        write(&root.join("CLAUDE.md"), "claude");
        assert_eq!(files_for(&root), [root.join("CLAUDE.md")]);
        write(&root.join("AGENTS.md"), &"é".repeat(FILE_LIMIT));
        assert_eq!(files_for(&root), [root.join("AGENTS.md")]);
        let text = render(&root);
        assert!(text.contains("only its first 32 KB are included here"), "{}", &text[text.len() - 200..]);
        assert!(text.len() < FILE_LIMIT + 500);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_under_a_denied_directory_or_linked_into_one_is_left_out_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        write(&root.join("secret/RULES.md"), "LINKED-SECRET");
        write(&root.join("secret/work/AGENTS.md"), "INSIDE-SECRET");
        std::os::unix::fs::symlink(root.join("secret/RULES.md"), root.join("AGENTS.md")).unwrap();
        let denied = [root.join("secret")];
        let text = render_denying(&root.join("secret/work"), &denied);
        assert!(!text.contains("SECRET"), "{text}");
        assert!(text.contains(&left_out(&root.join("AGENTS.md"), &root.join("secret"))), "{text}");
        assert!(text.contains(&left_out(&root.join("secret/work/AGENTS.md"), &root.join("secret"))), "{text}");
        assert!(render_denying(&root.join("secret/work"), &[]).contains("INSIDE-SECRET"));
        assert!(read_denying(&root.join("AGENTS.md"), FILE_LIMIT, &denied).is_none());
    }
}
