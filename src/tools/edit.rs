//! The `edit` tool: replaces an exact piece of a file (`old` → `new`), once or everywhere
//! (`replace_all`), and returns the unified diff. A missing `old` fails with the nearest
//! lines of the file; an ambiguous one fails with where it was found. `preview` computes the
//! diff without writing, for approval questions.

use super::{diff, write::write_atomic};
use crate::agent::{Preview, PreviewKind, Tool, ToolContext, ToolboxError};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

/// Ambiguous matches listed in an error at most.
const MATCHES_SHOWN: usize = 10;
/// Lines compared when looking for the nearest lines (bigger files: the first ones).
const NEAREST_SCAN: usize = 20_000;

pub fn tool() -> Result<Tool, ToolboxError> {
    Tool::new(
        "edit",
        "Replace an exact piece of text in a file. `old` must match the file exactly, \
         including indentation and line breaks, and must occur exactly once unless \
         `replace_all` is true; include a few surrounding lines to make it unique. Read the \
         file first. Returns a unified diff of the change.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file to edit"},
                "old": {"type": "string", "description": "the exact text to replace"},
                "new": {"type": "string", "description": "the text to put in its place"},
                "replace_all": {"type": "boolean", "description": "replace every occurrence (default false)"}
            },
            "required": ["path", "old", "new"],
            "additionalProperties": false
        }),
        edit,
    )
    .map(|t| {
        t.with_aliases(&["str_replace", "replace", "edit_file"])
            .summarized_by("path")
            .touches_paths(&["path"])
            .with_preview(
                |args| async move { preview(&args).await.map(|text| Preview { kind: PreviewKind::Diff, text }) },
            )
    })
}

/// An edit worked out but not yet written.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub path: String,
    pub before: String,
    pub after: String,
    pub replacements: usize,
}

impl Planned {
    pub fn diff(&self) -> String {
        diff::unified(&self.path, Some(&self.before), &self.after)
    }
}

async fn edit(args: Value, _ctx: ToolContext) -> anyhow::Result<Value> {
    let planned = match plan(&args).await {
        Ok(planned) => planned,
        Err(message) => return Ok(json!({"error": message})),
    };
    if let Err(e) = write_atomic(Path::new(&planned.path), planned.after.as_bytes()).await {
        return Ok(json!({"error": format!("{e:#}")}));
    }
    Ok(json!({"path": planned.path, "replacements": planned.replacements, "diff": planned.diff()}))
}

/// The diff this call would make, or why it would fail (for the approval question).
pub async fn preview(args: &Value) -> Result<String, String> {
    plan(args).await.map(|p| p.diff())
}

/// Works out the edit without writing; the error is the message the model gets.
pub async fn plan(args: &Value) -> Result<Planned, String> {
    let path = args["path"].as_str().ok_or("missing string argument \"path\"")?.to_string();
    let old = args["old"].as_str().ok_or("missing string argument \"old\"")?;
    let new = args["new"].as_str().ok_or("missing string argument \"new\"")?;
    let replace_all = args["replace_all"].as_bool().unwrap_or(false);
    if old.is_empty() {
        return Err(format!("`old` is empty; to create or overwrite {path} use write"));
    }
    if old == new {
        return Err("`old` and `new` are the same; nothing to change".to_string());
    }
    let bytes = tokio::fs::read(&path).await.map_err(|e| format!("cannot read {path}: {e}"))?;
    let before = String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text; edit cannot change it"))?;
    let found: Vec<usize> = before.match_indices(old).map(|(i, _)| i).collect();
    match found.len() {
        0 => Err(format!("`old` was not found in {path}. {}", nearest_lines(&before, old))),
        n if n > 1 && !replace_all => Err(ambiguous(&path, &before, &found)),
        n => {
            let after = if replace_all { before.replace(old, new) } else { before.replacen(old, new, 1) };
            Ok(Planned { path, before, after, replacements: n })
        }
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

fn ambiguous(path: &str, text: &str, found: &[usize]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut message = format!(
        "`old` was found {} times in {path}; include more surrounding lines to make it unique, \
         or pass replace_all: true. Found at:",
        found.len()
    );
    for &at in found.iter().take(MATCHES_SHOWN) {
        let n = line_of(text, at);
        let _ = write!(message, "\n{n:>6}\t{}", lines.get(n - 1).unwrap_or(&""));
    }
    if found.len() > MATCHES_SHOWN {
        let _ = write!(message, "\n[... {} more]", found.len() - MATCHES_SHOWN);
    }
    message
}

/// The lines of `text` most like the start of `old`, numbered, as a hint.
fn nearest_lines(text: &str, old: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let wanted = old.lines().find(|l| !l.trim().is_empty()).unwrap_or(old).trim();
    let skipped = old.lines().take_while(|l| l.trim().is_empty()).count();
    let best = lines
        .iter()
        .take(NEAREST_SCAN)
        .enumerate()
        .map(|(i, line)| (i, diff::similarity(line.trim(), wanted)))
        .filter(|&(_, score)| score >= 0.5)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let Some((at, _)) = best else {
        return "No similar lines; read the file to see its current text.".to_string();
    };
    let span = old.lines().count().max(1);
    let start = at.saturating_sub(skipped);
    let end = (start + span).min(lines.len());
    let mut hint = String::from("The nearest lines are:");
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        let _ = write!(hint, "\n{:>6}\t{line}", i + 1);
    }
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_lines_points_at_the_closest_line() {
        let text = "fn a() {}\nfn main() {\n    println!(\"hi\");\n}\n";
        let hint = nearest_lines(text, "fn main () {\n    println!(\"hello\");");
        assert_eq!(hint, "The nearest lines are:\n     2\tfn main() {\n     3\t    println!(\"hi\");");
    }

    #[test]
    fn nothing_alike_says_so() {
        assert_eq!(nearest_lines("abc\n", "zzzzzzzzzz"), "No similar lines; read the file to see its current text.");
    }

    #[test]
    fn line_numbers_count_from_one() {
        assert_eq!(line_of("a\nb\nc", 4), 3);
        assert_eq!(line_of("a", 0), 1);
    }
}
