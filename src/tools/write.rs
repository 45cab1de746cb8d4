//! The `write` tool: writes a whole file atomically (temp file in the same directory, then
//! rename), creating parent directories, and returns the unified diff when it replaced an
//! existing file. `preview` computes that diff without writing, for approval questions.
//! Only regular files are replaced. The file written is the path resolved for the call
//! (`~` is home; a symlink that was there when it was checked is followed to its target,
//! which is what the gate checked); after that no symlink is followed (`no_follow`).

use super::diff;
use super::regular::{self, FileError, TEXT_CAP};
use crate::agent::caught::run_blocking;
use crate::agent::{no_follow, paths};
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use anyhow::Context as _;
use serde_json::{json, Value};
use std::path::Path;

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
    .edits_files()
    .with_preview(|args| async move { Ok(Preview { kind: PreviewKind::Diff, text: preview(&args).await? }) })
}

async fn write(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let (path, real) = super::path_arg(&args, &ctx, "path")?;
    let content = super::str_arg(&args, "content")?;
    let change = match change(&path, &real, content).await {
        Ok(change) => change,
        Err(message) => return Ok(json!({"error": message, "path": path})),
    };
    let written = match ctx.write_routed(&real, content).await {
        Some(routed) => routed.with_context(|| format!("cannot write {path}")),
        None => write_atomic(Path::new(&path), &real, content.as_bytes()).await,
    };
    if let Err(e) = written {
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
async fn change(path: &str, real: &Path, content: &str) -> Result<Change, String> {
    let (path, real, content) = (path.to_string(), real.to_path_buf(), content.to_string());
    let worked_out = run_blocking(move || match regular::read_capped_real(Path::new(&path), &real, TEXT_CAP) {
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
    let real = paths::resolve(path, &paths::working_dir(), paths::home().as_deref());
    Ok(match change(path, &real, content).await? {
        Change::Creates(diff) | Change::Replaces(diff) if !diff.is_empty() => diff,
        Change::TooLarge(size) => {
            format!("{path}: replaces a file of {size} bytes (too large to diff) with {} bytes", content.len())
        }
        _ => format!("{path}: no change ({} bytes)", content.len()),
    })
}

/// Writes `bytes` to the file at `real` (the path resolved for the call; `path` as the
/// model gave it, for messages) through a temporary file and a rename, so readers never see
/// half a file. No symlink is followed: one that appeared at `real` since the call was
/// checked is replaced, one on the way fails the write. Anything but a regular file (or
/// nothing) at `real` is refused.
pub async fn write_atomic(path: &Path, real: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let (shown, real, bytes) = (path.to_path_buf(), real.to_path_buf(), bytes.to_vec());
    run_blocking(move || {
        if let Ok(Some(kind)) = no_follow::kind(&real) {
            if kind != rustix::fs::FileType::RegularFile && kind != rustix::fs::FileType::Symlink {
                let meta =
                    std::fs::symlink_metadata(&real).with_context(|| format!("cannot write {}", shown.display()))?;
                regular::check_regular(&shown, &meta)?;
            }
        }
        let (dir, name) = no_follow::split(&real).with_context(|| format!("cannot write {}", shown.display()))?;
        let shown_dir = shown.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(dir);
        let dir = no_follow::open_dir(dir, true).with_context(|| format!("cannot create {}", shown_dir.display()))?;
        no_follow::replace_in(&dir, name, &real, &bytes).with_context(|| format!("cannot write {}", shown.display()))
    })
    .await?
}
