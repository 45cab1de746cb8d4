//! The `read` tool: a text file with line numbers, a window of lines (`offset`, `limit`),
//! the total line count, binary files refused, and big files cut with a note on how to
//! read further.

use crate::agent::{Tool, ToolContext, ToolboxError};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// Lines returned when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;
/// Bytes of numbered text returned at most per call.
pub const BYTE_CAP: usize = 256 * 1024;
/// Characters kept of one very long line.
pub const LINE_CAP: usize = 2000;

pub fn tool() -> Result<Tool, ToolboxError> {
    Tool::new(
        "read",
        "Read a text file. Returns its lines numbered from 1 (`N<tab>text`), the path and the \
         total number of lines. For long files pass `offset` (first line, 1-based) and `limit` \
         (number of lines).",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file to read, relative to the working directory or absolute"},
                "offset": {"type": "integer", "minimum": 1, "description": "first line to return (default 1)"},
                "limit": {"type": "integer", "minimum": 1, "description": "number of lines to return (default 2000)"}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        read,
    )
    .map(|t| t.with_aliases(&["open", "cat", "read_file", "view"]).read_only().summarized_by("path").touches_paths(&["path"]))
}

async fn read(args: Value, _ctx: ToolContext) -> anyhow::Result<Value> {
    let path = super::str_arg(&args, "path")?.to_string();
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(e) => return Ok(json!({"error": format!("cannot read {path}: {e}"), "path": path})),
    };
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Ok(
            json!({"error": format!("{path} is a binary file ({} bytes); not shown", bytes.len()), "path": path}),
        );
    }
    let text = String::from_utf8_lossy(&bytes);
    let offset = args["offset"].as_u64().map_or(1, |n| n as usize).max(1);
    let limit = args["limit"].as_u64().map_or(DEFAULT_LIMIT, |n| n as usize);
    let total = text.lines().count();
    let (content, last) = numbered(&text, offset, limit);
    let mut content = content;
    if last < total {
        let _ = write!(
            content,
            "\n[showing lines {offset}-{last} of {total}; call read with offset={} to read further]",
            last + 1
        );
    }
    Ok(json!({"content": content, "path": path, "lines": total}))
}

/// Numbers lines `offset..offset+limit` (1-based), stopping at `BYTE_CAP`.
/// Returns the text and the number of the last line included.
fn numbered(text: &str, offset: usize, limit: usize) -> (String, usize) {
    let mut out = String::new();
    let mut last = offset.saturating_sub(1);
    for (i, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
        let line = match line.char_indices().nth(LINE_CAP) {
            Some((cut, _)) => format!("{}… [line cut at {LINE_CAP} characters]", &line[..cut]),
            None => line.to_string(),
        };
        if out.len() + line.len() > BYTE_CAP && last >= offset {
            break;
        }
        let _ = writeln!(out, "{:>6}\t{line}", i + 1);
        last = i + 1;
    }
    (out, last)
}
