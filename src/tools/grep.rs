//! The `grep` tool: lines matching a regular expression, as `file:line:text`, in the files
//! under a path (optionally filtered by a glob), skipping binary files and what `.gitignore`
//! excludes. Capped, with a count of what was left out.

use super::glob::PathGlob;
use crate::agent::{Tool, ToolContext, ToolboxError};
use regex::RegexBuilder;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Matching lines shown at most.
pub const GREP_CAP: usize = 200;
/// Characters kept of a matching line.
pub const LINE_CAP: usize = 300;
/// Files bigger than this are skipped.
const FILE_CAP: u64 = 16 * 1024 * 1024;

pub fn tool() -> Result<Tool, ToolboxError> {
    Tool::new(
        "grep",
        "Search file contents with a regular expression (Rust regex syntax) under a path, \
         skipping binary files and files ignored by .gitignore. Returns `file:line:text` lines, \
         sorted by file, and the total number of matches.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "regular expression, e.g. `fn \\w+\\(` or `TODO`"},
                "path": {"type": "string", "description": "file or directory to search (default: the working directory)"},
                "glob": {"type": "string", "description": "only files matching this glob, e.g. `*.rs` or `src/**/*.ts`"},
                "ignore_case": {"type": "boolean", "description": "case-insensitive (default false)"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        grep,
    )
    .map(|t| t.with_aliases(&["search", "rg", "search_files"]).read_only().summarized_by("pattern").touches_paths(&["path"]))
}

async fn grep(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    ctx.blocking(move || search(&args)).await
}

fn search(args: &Value) -> Value {
    let pattern = args["pattern"].as_str().unwrap_or_default();
    let root = args["path"].as_str().unwrap_or(".");
    let regex =
        match RegexBuilder::new(pattern).case_insensitive(args["ignore_case"].as_bool().unwrap_or(false)).build() {
            Ok(regex) => regex,
            Err(e) => return json!({"error": format!("invalid regex {pattern:?}: {e}")}),
        };
    let filter = match args["glob"].as_str().map(PathGlob::new).transpose() {
        Ok(filter) => filter,
        Err(message) => return json!({"error": message}),
    };
    if !Path::new(root).exists() {
        return json!({"error": format!("cannot search {root}: no such file or directory")});
    }
    let mut lines = Vec::new();
    let mut matches = 0usize;
    let mut files = BTreeSet::new();
    for entry in super::walker(Path::new(root)).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if filter.as_ref().is_some_and(|f| entry.depth() > 0 && !f.is_match(relative)) {
            continue;
        }
        if entry.metadata().map_or(true, |m| m.len() > FILE_CAP) {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else { continue };
        if bytes.iter().take(8192).any(|&b| b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let shown = super::shown(root, entry.path());
        for (i, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            matches += 1;
            files.insert(shown.clone());
            if lines.len() < GREP_CAP {
                lines.push(format!("{shown}:{}:{}", i + 1, cut(line)));
            }
        }
    }
    let mut result = json!({"content": lines.join("\n"), "matches": matches, "files": files.len()});
    if matches > GREP_CAP {
        result["note"] = json!(format!(
            "showing the first {GREP_CAP} of {matches} matches; {} left out. Narrow the pattern, path or glob.",
            matches - GREP_CAP
        ));
    }
    result
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_CAP) {
        Some((at, _)) => format!("{}… [line cut]", &line[..at]),
        None => line.to_string(),
    }
}
