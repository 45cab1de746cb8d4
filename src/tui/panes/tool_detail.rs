//! An expanded tool call in the tool log, laid out by what the call did rather than as a
//! dump of its fields: a command shows the command, its exit status and its output; an
//! edit or write its path and the diff in colour; a read the path and an excerpt of what it
//! read; any other tool its arguments and result as `key: value` lines. A failure always
//! shows its error, and the result's `ok` flag is never shown beside an exit status that
//! says otherwise.

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::tool_outcome::{exit_status, outcome};
use crate::tui::text::diff::{diff_lines, is_diff};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use ratatui::text::{Line, Span};
use serde_json::Value;

/// Detail lines shown at most for an expanded call.
const DETAIL_CAP: usize = 400;
/// Lines of a read file shown as its excerpt.
const EXCERPT_LINES: usize = 20;
/// The gutter in front of output, file and diff lines.
const GUTTER: &str = "  │ ";

/// The expanded view of a call with `args`, and its result once it has one (a call with a
/// path and a content result, a read, shows an excerpt).
pub fn detail_lines(args: &Value, result: Option<&ToolResult>, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Detail { lines: Vec::new(), width, theme };
    let value = result.map(ToolResult::to_value);
    let text_of = |key: &str| value.as_ref().and_then(|v| v.get(key)).and_then(Value::as_str);
    let command = args.get("command").and_then(Value::as_str);
    let path = args.get("path").and_then(Value::as_str);
    if let Some(command) = command {
        out.field("command", command);
        if let Some(code) = result.and_then(exit_status) {
            out.field("exit status", &code.to_string());
        }
    } else if let Some(path) = path {
        out.field("path", path);
    }
    let shown = ["command", "path"];
    let diffs: Vec<(String, String)> = value
        .as_ref()
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().filter(|t| is_diff(t)).map(|t| (k.clone(), t.to_string())))
        .collect();
    // A command's other arguments (a timeout) and a change's (the text, which the diff
    // shows) are left out.
    if command.is_none() && diffs.is_empty() {
        for (key, value) in args.as_object().into_iter().flatten().filter(|(k, _)| !shown.contains(&k.as_str())) {
            out.value(key, value);
        }
    }
    let Some(result) = result else {
        out.note("(running)");
        return out.capped();
    };
    if let Some(error) = outcome(result).reason.filter(|_| result.error().is_some()) {
        out.error(&error);
        if let Some(full) = result.error().filter(|e| e.lines().count() > 1) {
            out.block(full);
        }
    }
    let content = text_of("content");
    if command.is_some() {
        out.heading("output");
        match content.filter(|c| !c.trim().is_empty()) {
            Some(content) => out.block(content),
            None => out.note("  (no output)"),
        }
    } else if !diffs.is_empty() {
        for (key, diff) in &diffs {
            out.heading(key);
            out.diff(diff);
        }
    } else if path.is_some() {
        if let Some(content) = content {
            out.excerpt(content);
        }
    } else {
        let skip = ["ok", "error"];
        for (key, value) in value.as_ref().and_then(Value::as_object).into_iter().flatten() {
            if !skip.contains(&key.as_str()) {
                out.value(key, value);
            }
        }
    }
    out.capped()
}

struct Detail<'a> {
    lines: Vec<Line<'static>>,
    width: u16,
    theme: &'a Theme,
}

impl Detail<'_> {
    fn field(&mut self, key: &str, value: &str) {
        let text = format!("{key}: {}", sanitize(value));
        self.lines.extend(wrap(&text, self.width, self.theme.text(), "  ", "    ", self.theme.dim()));
    }

    fn value(&mut self, key: &str, value: &Value) {
        match value {
            Value::String(text) if text.contains('\n') => {
                self.heading(key);
                self.block(text);
            }
            Value::String(text) => self.field(key, text),
            other => self.field(key, &other.to_string()),
        }
    }

    fn heading(&mut self, key: &str) {
        self.lines.extend(wrap(&format!("{key}:"), self.width, self.theme.dim(), "  ", "  ", self.theme.dim()));
    }

    fn note(&mut self, text: &str) {
        self.lines.extend(wrap(text, self.width, self.theme.dim(), "  ", "  ", self.theme.dim()));
    }

    fn error(&mut self, text: &str) {
        let text = format!("failed: {}", sanitize(text));
        self.lines.extend(wrap(&text, self.width, self.theme.error(), "  ", "    ", self.theme.error()));
    }

    /// Text lines under the gutter (wrapped under it).
    fn block(&mut self, text: &str) {
        for line in sanitize(text).trim_end_matches('\n').lines() {
            self.lines.extend(wrap(line, self.width, self.theme.dim(), GUTTER, GUTTER, self.theme.dim()));
            if self.lines.len() > DETAIL_CAP {
                return;
            }
        }
    }

    /// The first lines of a read file.
    fn excerpt(&mut self, content: &str) {
        let all = content.trim_end_matches('\n').lines().count();
        let head: Vec<&str> = content.lines().take(EXCERPT_LINES).collect();
        self.block(&head.join("\n"));
        if all > EXCERPT_LINES {
            self.note(&format!("  … {} more lines", all - EXCERPT_LINES));
        }
    }

    fn diff(&mut self, diff: &str) {
        self.lines.extend(diff_lines(&sanitize(diff), self.width, self.theme, GUTTER));
    }

    fn capped(mut self) -> Vec<Line<'static>> {
        if self.lines.len() > DETAIL_CAP {
            let more = self.lines.len() - DETAIL_CAP;
            self.lines.truncate(DETAIL_CAP);
            self.lines.push(Line::from(Span::styled(format!("  … {more} more lines"), self.theme.dim())));
        }
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(args: Value, result: Value) -> String {
        let result = ToolResult::from_value(result);
        let lines = detail_lines(&args, Some(&result), 80, &Theme::new(false));
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_command_shows_command_status_and_output_never_ok_true() {
        let text = shown(json!({"command": "make"}), json!({"exit_status": 1, "content": "FAIL\n"}));
        assert_eq!(text, "  command: make\n  exit status: 1\n  output:\n  │ FAIL");
        assert!(!text.contains("ok"));
    }

    #[test]
    fn a_read_shows_its_path_and_an_excerpt() {
        let content: String = (1..=30).map(|i| format!("{i:>6}\tline {i}\n")).collect();
        let text = shown(json!({"path": "a.rs"}), json!({"content": content, "path": "a.rs"}));
        assert!(text.starts_with("  path: a.rs\n  │"), "{text}");
        assert!(text.contains("line 20") && !text.contains("line 21") && text.ends_with("… 10 more lines"), "{text}");
    }

    #[test]
    fn an_edit_shows_the_diff_and_a_failure_its_error() {
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n";
        let text = shown(json!({"path": "x", "old": "old", "new": "new"}), json!({"diff": diff}));
        assert!(text.contains("  path: x") && text.contains("+new"), "{text}");
        let failed = shown(json!({"path": "y"}), json!({"error": "permission denied"}));
        assert!(failed.contains("failed: permission denied"), "{failed}");
    }
}
