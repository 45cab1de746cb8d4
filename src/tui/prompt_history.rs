//! Prompt history on disk: `$XDG_DATA_HOME/elelem/history` (default
//! `~/.local/share/elelem/history`), one JSON string per line, so multi-line prompts
//! survive. Failures to read or write are ignored: history is a convenience.

use std::io::Write;
use std::path::PathBuf;

/// Prompts kept at most.
const KEEP: usize = 1000;

pub fn data_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(base.join("elelem"))
}

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
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(file, "{}", serde_json::Value::String(prompt.to_string()));
    }
}
