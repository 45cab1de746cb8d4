//! Prompt history on disk: `$XDG_DATA_HOME/elelem/history` (default
//! `~/.local/share/elelem/history`), one JSON string per line, so multi-line prompts
//! survive. The file is the user's alone (0600). Failures to read or write are ignored:
//! history is a convenience. Only a regular file is read or appended to (`safe_file`: a
//! FIFO there is refused at once, never waited on), and only its last `READ_LIMIT` bytes.

use crate::data_dir::{create_private_dir, data_dir};
use std::io::Write;
use std::path::PathBuf;

/// Prompts kept at most.
const KEEP: usize = 1000;
/// Bytes read from the end of the file at most (a first line cut there is skipped).
const READ_LIMIT: u64 = 16 * 1024 * 1024;

fn path() -> Option<PathBuf> {
    data_dir().map(|d| d.join("history"))
}

pub fn load() -> Vec<String> {
    let tail = path().and_then(|p| crate::safe_file::Reading::capped(READ_LIMIT).tail(&p).ok());
    let Some(bytes) = tail else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let cut = lines.len().saturating_sub(KEEP);
    lines.drain(..cut);
    lines
}

pub fn append(prompt: &str) {
    let Some(path) = path() else { return };
    if let Some(dir) = path.parent() {
        let _ = create_private_dir(dir);
    }
    if let Ok(mut file) = crate::safe_file::open_append(&path, 0o600) {
        let _ = writeln!(file, "{}", serde_json::Value::String(prompt.to_string()));
    }
}
