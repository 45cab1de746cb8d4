//! The `list` tool: a directory tree to a given depth, directories marked with `/`, skipping
//! what `.gitignore` excludes.

use crate::agent::{Tool, ToolContext};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

pub const DEFAULT_DEPTH: usize = 2;
/// Entries shown at most.
pub const LIST_CAP: usize = 1000;

pub fn tool() -> Tool {
    Tool::builtin(
        "list",
        "List a directory as a tree (directories end with `/`), .gitignored files skipped; \
         `depth` levels (default 2).",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "depth": {"type": "integer", "minimum": 1}
            },
            "additionalProperties": false
        }),
        list,
    )
    .with_aliases(&["ls", "tree", "list_dir"])
    .read_only()
    .summarized_by("path")
    .touches_paths(&["path"])
}

async fn list(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let root = super::walk_root(&args, &ctx);
    let depth = args["depth"].as_u64().map_or(DEFAULT_DEPTH, |d| d as usize).max(1);
    ctx.blocking(move || tree(&root, depth)).await
}

fn tree(root: &str, depth: usize) -> Value {
    if let Err(message) = super::check_dir(root) {
        return json!({"error": message, "path": root});
    }
    let mut content = String::new();
    let mut entries = 0usize;
    for entry in super::walker(Path::new(root)).max_depth(Some(depth)).build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        entries += 1;
        if entries > LIST_CAP {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let slash = if entry.file_type().is_some_and(|t| t.is_dir()) { "/" } else { "" };
        let _ = writeln!(content, "{}{name}{slash}", "  ".repeat(entry.depth() - 1));
    }
    let mut result = json!({"content": content, "path": root, "entries": entries});
    if entries > LIST_CAP {
        result["note"] = json!(format!(
            "showing the first {LIST_CAP} of {entries} entries; {} left out. List a subdirectory or use a smaller depth.",
            entries - LIST_CAP
        ));
    }
    result
}
