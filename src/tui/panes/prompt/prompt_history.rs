//! Prompt history on disk: `$XDG_DATA_HOME/elelem/history` (default
//! `~/.local/share/elelem/history`), one JSON string per line, so multi-line prompts
//! survive. The file is the user's alone (0600). Failures to read or write are ignored:
//! history is a convenience.

use crate::data_dir::{data_dir, open_private_append};
use std::io::Write;
use std::path::PathBuf;

/// Prompts kept at most.
const KEEP: usize = 1000;

fn path() -> Option<PathBuf> {
    data_dir().map(|d| d.join("history"))
}

pub fn load() -> Vec<String> {
    let Some(text) = path().and_then(|p| std::fs::read_to_string(p).ok()) else { return Vec::new() };
    let mut lines: Vec<String> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let cut = lines.len().saturating_sub(KEEP);
    lines.drain(..cut);
    lines
}

pub fn append(prompt: &str) {
    let Some(path) = path() else { return };
    if let Ok(mut file) = open_private_append(&path) {
        let _ = writeln!(file, "{}", serde_json::Value::String(prompt.to_string()));
    }
}
