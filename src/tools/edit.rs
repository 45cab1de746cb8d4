//! The `edit` tool: replaces an exact piece of a file (`old` → `new`), once or everywhere
//! (`replace_all`), and returns the unified diff. A missing `old` fails with the nearest
//! lines of the file (`nearest`, bounded); an ambiguous one fails with where it was found.
//! `preview` plans the same edit without writing, for approval questions. Planning runs off
//! the async threads and stops when the call is cancelled.

use super::regular::{self, TEXT_CAP};
use super::{diff, nearest, write::write_atomic};
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use crate::panics::run_blocking;
use crate::paths;
use anyhow::Context as _;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// Ambiguous matches listed in an error at most.
const MATCHES_SHOWN: usize = 10;

pub fn tool() -> Tool {
    Tool::builtin(
        "edit",
        "Replace `old` (exact, indentation included, found once unless `replace_all`) with \
         `new` in a file; returns the diff. Read the file first.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old": {"type": "string"},
                "new": {"type": "string"},
                "replace_all": {"type": "boolean"}
            },
            "required": ["path", "old", "new"],
            "additionalProperties": false
        }),
        edit,
    )
    .with_aliases(&["str_replace", "replace", "edit_file"])
    .summarized_by("path")
    .touches_paths(&["path"])
    .edits_files()
    .with_preview(|args, ctx| async move {
        preview_in(&args, &ctx).await.map(|text| Preview { kind: PreviewKind::Diff, text })
    })
}

/// An edit worked out but not yet written.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub path: String,
    pub after: String,
    pub replacements: usize,
    /// The text it changes (the file's, or the front end's when it routes file access).
    pub before: String,
    /// The unified diff of the change.
    pub diff: String,
}

async fn edit(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let (_, real) = super::path_arg(&args, &ctx, "path")?;
    let planned = match plan_routed(&args, &real, &ctx).await {
        Ok(planned) => planned,
        Err(message) => return Ok(json!({"error": message})),
    };
    let written = match ctx.write_routed(&real, &planned.after).await {
        Some(routed) => routed.with_context(|| format!("cannot write {}", planned.path)),
        None => write_atomic(Path::new(&planned.path), &real, planned.after.as_bytes()).await,
    };
    if let Err(e) = written {
        return Ok(json!({"error": format!("{e:#}")}));
    }
    ctx.file_change(&real, Some(&planned.before), &planned.after);
    Ok(json!({"path": planned.path, "replacements": planned.replacements, "diff": planned.diff}))
}

/// The edit of the file at `real` planned on the front end's text of it (an editor's
/// buffer) when it routes file access, else on the file's.
async fn plan_routed(args: &Value, real: &Path, ctx: &ToolContext) -> Result<Planned, String> {
    let routed = match ctx.read_routed(real).await {
        Some(Ok(text)) => Some(text),
        Some(Err(error)) => {
            let given = args["path"].as_str().unwrap_or_default();
            return Err(format!("cannot read {given}: {error:#}"));
        }
        None => None,
    };
    plan_at(args, Some(real.to_path_buf()), routed, &ctx.cancel).await
}

/// The diff this call would make, or why it would fail (for the approval question).
pub async fn preview(args: &Value) -> Result<String, String> {
    preview_in(args, &ToolContext::detached()).await
}

/// `preview` of a call about to run in `ctx`: of the text the call would change (the
/// front end's, when it routes file access), reported whole through `ctx` too.
pub async fn preview_in(args: &Value, ctx: &ToolContext) -> Result<String, String> {
    let given = args["path"].as_str().ok_or("missing string argument \"path\"")?;
    let real = match ctx.path("path") {
        Some(real) => real.to_path_buf(),
        None => paths::resolve(given, &paths::working_dir(), paths::home().as_deref()),
    };
    let planned = plan_routed(args, &real, ctx).await?;
    ctx.file_change(&real, Some(&planned.before), &planned.after);
    Ok(planned.diff)
}

/// The arguments of one edit.
struct Request {
    path: String,
    /// Where `path` leads (`paths::resolve`).
    real: PathBuf,
    /// The file's text as the front end has it (`None`: read the file).
    text: Option<String>,
    old: String,
    new: String,
    replace_all: bool,
}

/// Works out the edit without writing, on the blocking pool; the error is the message the
/// model gets. Answers `interrupted` as soon as `cancel` fires.
pub async fn plan(args: &Value, cancel: &CancellationToken) -> Result<Planned, String> {
    plan_at(args, None, None, cancel).await
}

/// `plan` of the file at `real` (the path resolved for the call), or, without it, where
/// `path` leads now; of `text` instead of the file's when the front end gave it.
async fn plan_at(
    args: &Value,
    real: Option<PathBuf>,
    text: Option<String>,
    cancel: &CancellationToken,
) -> Result<Planned, String> {
    let arg = |name: &str| args[name].as_str().map(str::to_string).ok_or(format!("missing string argument {name:?}"));
    let path = arg("path")?;
    let real = real.unwrap_or_else(|| paths::resolve(&path, &paths::working_dir(), paths::home().as_deref()));
    let (old, new, replace_all) = (arg("old")?, arg("new")?, args["replace_all"] == true);
    let request = Request { path, real, text, old, new, replace_all };
    if request.old.is_empty() {
        return Err(format!("`old` is empty; to create or overwrite {} use write", request.path));
    }
    if request.old == request.new {
        return Err("`old` and `new` are the same; nothing to change".to_string());
    }
    let watched = cancel.clone();
    let work = run_blocking(move || plan_blocking(request, &watched));
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err("interrupted".to_string()),
        planned = work => planned.map_err(|e| format!("{e:#}"))?,
    }
}

fn plan_blocking(request: Request, cancel: &CancellationToken) -> Result<Planned, String> {
    let Request { path, real, text, old, new, replace_all } = request;
    let before = match text {
        Some(text) => text,
        None => {
            let bytes = regular::read_capped_real(Path::new(&path), &real, TEXT_CAP).map_err(|e| e.to_string())?;
            String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text; edit cannot change it"))?
        }
    };
    let found: Vec<usize> = before.match_indices(&old).map(|(i, _)| i).collect();
    match found.len() {
        0 => {
            let hint = nearest::hint(&before, &old, cancel).ok_or("interrupted")?;
            Err(format!("`old` was not found in {path}. {hint}"))
        }
        n if n > 1 && !replace_all => Err(ambiguous(&path, &before, &found)),
        n => {
            let after = if replace_all { before.replace(&old, &new) } else { before.replacen(&old, &new, 1) };
            let diff = diff::unified(&path, Some(&before), &after);
            Ok(Planned { path, after, replacements: n, before, diff })
        }
    }
}

fn ambiguous(path: &str, text: &str, found: &[usize]) -> String {
    let mut message = format!(
        "`old` was found {} times in {path}; include more surrounding lines to make it unique, \
         or pass replace_all: true. Found at:",
        found.len()
    );
    let (mut line, mut counted) = (1, 0);
    for &at in found.iter().take(MATCHES_SHOWN) {
        line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..at]).count();
        counted = at;
        let _ = write!(message, "\n{line:>6}\t{}", line_around(text, at));
    }
    if found.len() > MATCHES_SHOWN {
        let _ = write!(message, "\n[... {} more]", found.len() - MATCHES_SHOWN);
    }
    message
}

/// The line of `text` that byte `at` is on, without its line break.
fn line_around(text: &str, at: usize) -> &str {
    let bytes = text.as_bytes();
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |i| at + i);
    text[start..end].strip_suffix('\r').unwrap_or(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_matches_are_listed_with_their_line_numbers() {
        let text = "a x\nb\nc x\r\nx";
        let found: Vec<usize> = text.match_indices('x').map(|(i, _)| i).collect();
        assert_eq!(
            ambiguous("f", text, &found),
            "`old` was found 3 times in f; include more surrounding lines to make it unique, or pass \
             replace_all: true. Found at:\n     1\ta x\n     3\tc x\n     4\tx"
        );
    }
}
