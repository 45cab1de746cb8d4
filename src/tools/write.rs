//! The `write` tool: writes a whole file atomically (temp file in the same directory, then
//! rename), creating parent directories.

use crate::agent::toolbox::{Tool, ToolContext, ToolboxError};
use anyhow::Context as _;
use serde_json::{json, Value};
use std::path::Path;

pub fn tool() -> Result<Tool, ToolboxError> {
    Tool::new(
        "write",
        "Write a whole file, replacing it if it exists and creating parent directories. \
         Returns the number of bytes written.",
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
    .map(|t| t.with_aliases(&["write_file", "create"]))
}

async fn write(args: Value, _ctx: ToolContext) -> anyhow::Result<Value> {
    let path = super::str_arg(&args, "path")?.to_string();
    let content = super::str_arg(&args, "content")?;
    write_atomic(Path::new(&path), content.as_bytes()).await?;
    Ok(json!({"bytes": content.len(), "path": path}))
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers never see
/// half a file.
pub async fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    tokio::fs::create_dir_all(dir).await.with_context(|| format!("cannot create {}", dir.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.elelem-{}.tmp", std::process::id()));
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
