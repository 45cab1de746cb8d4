//! The `write` tool: writes a whole file atomically (temp file in the same directory, then
//! rename), creating parent directories, and returns the unified diff when it replaced an
//! existing file. `preview` computes that diff without writing, for approval questions.
//! Only regular files are replaced; writing through a symlink updates the file it points to.

use super::diff;
use super::regular::{self, FileError, TEXT_CAP};
use crate::agent::caught::run_blocking;
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use anyhow::Context as _;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

pub fn tool() -> Tool {
    Tool::builtin(
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
    .with_aliases(&["write_file", "create"])
    .summarized_by("path")
    .touches_paths(&["path"])
    .with_preview(|args| async move { Ok(Preview { kind: PreviewKind::Diff, text: preview(&args).await? }) })
}

async fn write(args: Value, _ctx: ToolContext) -> anyhow::Result<Value> {
    let path = super::str_arg(&args, "path")?.to_string();
    let content = super::str_arg(&args, "content")?;
    let change = match change(&path, content).await {
        Ok(change) => change,
        Err(message) => return Ok(json!({"error": message, "path": path})),
    };
    if let Err(e) = write_atomic(Path::new(&path), content.as_bytes()).await {
        return Ok(json!({"error": format!("{e:#}"), "path": path}));
    }
    let mut result = json!({"bytes": content.len(), "path": path});
    match change {
        Change::Replaces(diff) => result["diff"] = json!(diff),
        Change::TooLarge(size) => {
            result["note"] = json!(format!("the file it replaced ({size} bytes) was too large to diff"))
        }
        Change::Creates(_) => {}
    }
    Ok(result)
}

/// What writing a file would change.
enum Change {
    /// Nothing readable is there (missing, or a parent that is not a directory: the write
    /// says why); the diff from `/dev/null`.
    Creates(String),
    /// A regular file is there; the diff from its text (binary content shown lossily).
    Replaces(String),
    /// A regular file too big to diff, with its size.
    TooLarge(u64),
}

/// What writing `content` to `path` would change, worked out on the blocking pool; `Err`
/// when the path is not a regular file (a FIFO, a device, a directory), which is refused.
async fn change(path: &str, content: &str) -> Result<Change, String> {
    let (path, content) = (path.to_string(), content.to_string());
    let worked_out = run_blocking(move || match regular::read_capped(Path::new(&path), TEXT_CAP) {
        Ok(bytes) => Ok(Change::Replaces(diff::unified(&path, Some(&String::from_utf8_lossy(&bytes)), &content))),
        Err(FileError::TooLarge { size, .. }) => Ok(Change::TooLarge(size)),
        Err(FileError::Io { .. }) => Ok(Change::Creates(diff::unified(&path, None, &content))),
        Err(refused @ FileError::NotRegular { .. }) => Err(refused.to_string()),
    });
    worked_out.await.map_err(|e| format!("{e:#}"))?
}

/// The diff this call would make, without writing (for the approval question); `Err` when
/// the call would be refused.
pub async fn preview(args: &Value) -> Result<String, String> {
    let (Some(path), Some(content)) = (args["path"].as_str(), args["content"].as_str()) else {
        return Ok(args.to_string());
    };
    Ok(match change(path, content).await? {
        Change::Creates(diff) | Change::Replaces(diff) if !diff.is_empty() => diff,
        Change::TooLarge(size) => {
            format!("{path}: replaces a file of {size} bytes (too large to diff) with {} bytes", content.len())
        }
        _ => format!("{path}: no change ({} bytes)", content.len()),
    })
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers never see
/// half a file. A symlink is followed: the file it points to is replaced, next to itself.
/// Anything but a regular file (or nothing) at the target is refused.
pub async fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let link = path.to_path_buf();
    let target = run_blocking(move || regular::target(&link))
        .await?
        .with_context(|| format!("cannot write {}", path.display()))?;
    if let Ok(meta) = tokio::fs::metadata(&target).await {
        regular::check_regular(path, &meta)?;
    }
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    tokio::fs::create_dir_all(dir).await.with_context(|| format!("cannot create {}", dir.display()))?;
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.elelem-{}-{n}.tmp", std::process::id()));
    tokio::fs::write(&temp, bytes).await.with_context(|| format!("cannot write {}", temp.display()))?;
    if let Ok(meta) = tokio::fs::metadata(&target).await {
        let _ = tokio::fs::set_permissions(&temp, meta.permissions()).await;
    }
    if let Err(e) = tokio::fs::rename(&temp, &target).await {
        let _ = tokio::fs::remove_file(&temp).await;
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
