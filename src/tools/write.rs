//! The `write` tool: writes a whole file atomically (temp file in the same directory, then
//! rename), creating parent directories, and returns the unified diff when it replaced an
//! existing file. `preview` computes that diff without writing, for approval questions.

use super::diff;
use crate::agent::{Preview, PreviewKind, Tool, ToolContext, ToolboxError};
use anyhow::Context as _;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub fn tool() -> Result<Tool, ToolboxError> {
    Tool::new(
        "write",
        "Write a whole file, replacing it if it exists and creating parent directories. \
         Returns the number of bytes written and, when the file existed, a unified diff of \
         what changed. To change part of a file prefer `edit`.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file to write"},
                "content": {"type": "string", "description": "the complete new content"}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        write,
    )
    .map(|t| {
        t.with_aliases(&["write_file", "create"])
            .summarized_by("path")
            .touches_paths(&["path"])
            .with_preview(|args| async move { Ok(Preview { kind: PreviewKind::Diff, text: preview(&args).await }) })
    })
}

async fn write(args: Value, _ctx: ToolContext) -> anyhow::Result<Value> {
    let path = super::str_arg(&args, "path")?.to_string();
    let content = super::str_arg(&args, "content")?;
    let before = existing(&path).await;
    if let Err(e) = write_atomic(Path::new(&path), content.as_bytes()).await {
        return Ok(json!({"error": format!("{e:#}"), "path": path}));
    }
    let mut result = json!({"bytes": content.len(), "path": path});
    if let Some(before) = before {
        result["diff"] = json!(diff::unified(&path, Some(&before), content));
    }
    Ok(result)
}

/// The file's current text, if it exists (binary content is shown lossily).
async fn existing(path: &str) -> Option<String> {
    let bytes = tokio::fs::read(path).await.ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The diff this call would make, without writing (for the approval question).
pub async fn preview(args: &Value) -> String {
    let (Some(path), Some(content)) = (args["path"].as_str(), args["content"].as_str()) else {
        return args.to_string();
    };
    let before = existing(path).await;
    let diff = diff::unified(path, before.as_deref(), content);
    if diff.is_empty() {
        format!("{path}: no change ({} bytes)", content.len())
    } else {
        diff
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers never see
/// half a file.
pub async fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    tokio::fs::create_dir_all(dir).await.with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.elelem-{}-{n}.tmp", std::process::id()));
    tokio::fs::write(&temp, bytes).await.with_context(|| format!("cannot write {}", temp.display()))?;
    if let Ok(meta) = tokio::fs::metadata(path).await {
        let _ = tokio::fs::set_permissions(&temp, meta.permissions()).await;
    }
    if let Err(e) = tokio::fs::rename(&temp, path).await {
        let _ = tokio::fs::remove_file(&temp).await;
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
