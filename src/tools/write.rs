//! The `write` tool: writes a whole file atomically (temp file in the same directory, then
//! rename), creating parent directories, and returns the unified diff when it replaced an
//! existing file. `preview` computes that diff without writing, for approval questions.
//! Both report the whole change through the call's context too (`ToolContext::file_change`)
//! and, when the front end routes file access, diff against its text of the file.
//! Only regular files are replaced. The file written is the path resolved for the call
//! (`~` is home; a symlink that was there when it was checked is followed to its target,
//! which is what the gate checked); after that no symlink is followed (`no_follow`).

use super::diff;
use super::regular::{self, FileError, TEXT_CAP};
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use crate::panics::run_blocking;
use crate::paths::{self, no_follow};
use anyhow::Context as _;
use serde_json::{json, Value};
use std::path::Path;

pub fn tool() -> Tool {
    Tool::builtin(
        "write",
        "Write a whole file (created with its directories, or replaced: then a diff comes \
         back). To change part of a file use `edit`.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"}
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
    .with_preview(|args, ctx| async move {
        Ok(Preview { kind: PreviewKind::Diff, text: preview_in(&args, &ctx).await? })
    })
}

async fn write(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let (path, real) = super::path_arg(&args, &ctx, "path")?;
    let content = super::str_arg(&args, "content")?;
    let change = match change(&path, &real, &ctx).await {
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
    match &change {
        Change::Replaces(old) => {
            result["diff"] = json!(diff::unified(&path, Some(old), content));
            ctx.file_change(&real, Some(old), content);
        }
        Change::TooLarge(size) => {
            result["note"] = json!(format!("the file it replaced ({size} bytes) was too large to diff"))
        }
        Change::Creates => ctx.file_change(&real, None, content),
    }
    Ok(result)
}

/// What is at the path a write would replace.
enum Change {
    /// Nothing readable is there (missing, or a parent that is not a directory: the write
    /// says why).
    Creates,
    /// A regular file is there, with this text (binary content read lossily), or the
    /// front end's text of it (an editor's buffer) when it routes file access.
    Replaces(String),
    /// A regular file too big to diff, with its size.
    TooLarge(u64),
}

/// What writing to `path` would replace, read on the blocking pool; `Err` when the path
/// is not a regular file (a FIFO, a device, a directory), which is refused. When the
/// front end routes file access, the text replaced is its own (the disk may lag behind).
async fn change(path: &str, real: &Path, ctx: &ToolContext) -> Result<Change, String> {
    let (given, at) = (path.to_string(), real.to_path_buf());
    let worked_out = run_blocking(move || match regular::read_capped_real(Path::new(&given), &at, TEXT_CAP) {
        Ok(bytes) => Ok(Change::Replaces(String::from_utf8_lossy(&bytes).into_owned())),
        Err(FileError::TooLarge { size, .. }) => Ok(Change::TooLarge(size)),
        Err(FileError::Io { .. }) => Ok(Change::Creates),
        Err(refused @ FileError::NotRegular { .. }) => Err(refused.to_string()),
    });
    let on_disk = worked_out.await.map_err(|e| format!("{e:#}"))??;
    Ok(match ctx.read_routed(real).await {
        Some(Ok(text)) => Change::Replaces(text),
        // The editor has no such file (or cannot say): it is created.
        Some(Err(_)) => Change::Creates,
        None => on_disk,
    })
}

/// The diff this call would make, without writing (for the approval question); `Err` when
/// the call would be refused.
pub async fn preview(args: &Value) -> Result<String, String> {
    preview_in(args, &ToolContext::detached()).await
}

/// `preview` of a call about to run in `ctx`: from the text the write would replace (the
/// front end's, when it routes file access), the change also reported whole through `ctx`.
pub async fn preview_in(args: &Value, ctx: &ToolContext) -> Result<String, String> {
    let (Some(path), Some(content)) = (args["path"].as_str(), args["content"].as_str()) else {
        return Ok(args.to_string());
    };
    let real = match ctx.path("path") {
        Some(real) => real.to_path_buf(),
        None => paths::resolve(path, &paths::working_dir(), paths::home().as_deref()),
    };
    let change = change(path, &real, ctx).await?;
    let diff = match &change {
        Change::Creates => diff::unified(path, None, content),
        Change::Replaces(old) => diff::unified(path, Some(old), content),
        Change::TooLarge(size) => {
            return Ok(format!(
                "{path}: replaces a file of {size} bytes (too large to diff) with {} bytes",
                content.len()
            ))
        }
    };
    match &change {
        Change::Replaces(old) => ctx.file_change(&real, Some(old), content),
        _ => ctx.file_change(&real, None, content),
    }
    Ok(if diff.is_empty() { format!("{path}: no change ({} bytes)", content.len()) } else { diff })
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
            if kind != no_follow::FileType::RegularFile && kind != no_follow::FileType::Symlink {
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
