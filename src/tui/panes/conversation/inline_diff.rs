//! A change under its call's row in the conversation: the unified diff an `edit` or a
//! `write` returned (`diff` in its result), or for a file a `write` created, its first lines
//! as added ones (from `AgentEvent::FileChange`). Taken apart once when the call ends, kept
//! as lines (the file headers left out, at most `KEPT` of them), and drawn from those, in
//! the theme's diff colours (`text/diff.rs`, as the approval dialog draws its diff): the
//! first `SHOWN` lines under the row, all of them when the row is expanded (Space), each
//! long line wrapped to at most `ROWS_PER_LINE` rows.

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::tui::text::diff::{is_diff, line_style};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{expand_tabs, truncate, truncate_line, wrap};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Diff lines shown under a collapsed row.
pub const SHOWN: usize = 12;
/// Diff lines kept (and shown when expanded) at most.
const KEPT: usize = 400;
/// Rows one diff line takes at most when it wraps.
const ROWS_PER_LINE: usize = 2;
/// The gutter in front of each diff row.
const GUTTER: &str = "  │ ";

/// The lines of a change, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineDiff {
    lines: Vec<String>,
    /// Lines past `KEPT`, not kept.
    more: usize,
}

impl InlineDiff {
    /// The change a successful call made: the diff in its result, else the text of a file
    /// it created (`created`, from its `FileChange`). `None` when it reports neither.
    pub fn of(result: &ToolResult, created: Option<&str>) -> Option<InlineDiff> {
        if let Some(diff) = result.get("diff").and_then(|d| d.as_str()).filter(|d| is_diff(d)) {
            let diff = sanitize(diff);
            let body: Vec<&str> = diff.lines().filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ ")).collect();
            let lines = body.iter().take(KEPT).map(|l| l.to_string()).collect();
            return Some(InlineDiff { lines, more: body.len().saturating_sub(KEPT) });
        }
        let created = created?;
        let count = created.lines().count();
        let header = format!("@@ -0,0 +1,{count} @@");
        // Only the lines kept are made safe to draw; the rest are counted.
        let added = created.lines().take(KEPT - 1).map(|l| format!("+{}", sanitize(l)));
        let lines = std::iter::once(header).chain(added).collect();
        Some(InlineDiff { lines, more: (count + 1).saturating_sub(KEPT) })
    }

    /// Whether the collapsed rows leave lines out.
    pub fn expandable(&self) -> bool {
        self.lines.len() > SHOWN
    }

    /// The rows under the call's row at `width`: the first `SHOWN` lines and a hint, or
    /// (expanded) every line kept.
    pub fn rows(&self, width: u16, theme: &Theme, expanded: bool) -> Vec<Line<'static>> {
        let shown = if expanded { self.lines.len() } else { self.lines.len().min(SHOWN) };
        let mut rows: Vec<Line<'static>> = self.lines[..shown]
            .iter()
            .flat_map(|line| gutter_rows(line, line_style(line, theme), width, theme))
            .collect();
        let hidden = self.lines.len() - shown + self.more;
        if hidden > 0 {
            let hint = if expanded {
                format!("  … {hidden} more lines (the tool log has the whole result)")
            } else {
                format!("  ⋮ {hidden} more lines (Space shows all)")
            };
            rows.push(Line::from(Span::styled(truncate(&hint, usize::from(width)), theme.dim())));
        }
        rows
    }
}

/// One line under the gutter in `style`, wrapped to at most `ROWS_PER_LINE` rows (the last
/// cut with `…`).
pub fn gutter_rows(line: &str, style: Style, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let text = expand_tabs(line);
    let mut rows = wrap(&text, width, style, GUTTER, GUTTER, theme.dim());
    if rows.len() > ROWS_PER_LINE {
        rows.truncate(ROWS_PER_LINE);
        if let Some(last) = rows.last_mut() {
            last.spans.push(Span::styled("…", style));
            *last = truncate_line(std::mem::take(last), usize::from(width));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(rows: &[Line]) -> Vec<String> {
        rows.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn an_edits_diff_shows_without_its_file_headers_coloured() {
        let result = ToolResult::from_value(
            json!({"path": "a.py", "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a - b\n+a + b\n"}),
        );
        let diff = InlineDiff::of(&result, None).unwrap();
        let theme = Theme::new(false);
        let rows = diff.rows(40, &theme, false);
        assert_eq!(text(&rows), ["  │ @@ -1 +1 @@", "  │ -a - b", "  │ +a + b"]);
        assert_eq!(rows[1].spans[1].style, theme.removed());
        assert_eq!(rows[2].spans[1].style, theme.added());
    }

    #[test]
    fn a_long_diff_shows_its_first_lines_and_how_to_see_all() {
        let body: String = (0..30).map(|i| format!("+line {i}\n")).collect();
        let result = ToolResult::from_value(json!({"diff": format!("--- a/f\n+++ b/f\n@@ -0,0 +1,30 @@\n{body}")}));
        let diff = InlineDiff::of(&result, None).unwrap();
        let theme = Theme::new(false);
        let rows = text(&diff.rows(60, &theme, false));
        assert_eq!(rows.len(), SHOWN + 1);
        assert_eq!(rows[SHOWN], "  ⋮ 19 more lines (Space shows all)");
        assert_eq!(diff.rows(60, &theme, true).len(), 31);
    }

    #[test]
    fn a_created_file_shows_as_added_lines_and_a_result_without_a_change_as_nothing() {
        let result = ToolResult::from_value(json!({"bytes": 6, "path": "n.txt"}));
        let diff = InlineDiff::of(&result, Some("one\ntwo\n")).unwrap();
        assert_eq!(text(&diff.rows(40, &Theme::new(true), false)), ["  │ @@ -0,0 +1,2 @@", "  │ +one", "  │ +two"]);
        assert_eq!(InlineDiff::of(&result, None), None);
    }
}
