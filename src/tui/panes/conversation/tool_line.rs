//! A tool call as the conversation shows it: `+ read README.md` while it runs and once it
//! succeeded, `x execute ./test.sh · exit 1` in red when it failed, and for a command the
//! last lines of its output underneath (all of it, up to a cap, when expanded). While a
//! command runs, the last lines it printed so far (`LiveTail`, bounded) show there instead,
//! replaced by the final tail when it ends. An output line too long for the pane wraps under
//! its gutter (at most two rows, the last cut with `…`: `inline_diff::gutter_rows`).
//! Consecutive successful calls of a step that printed nothing are one line, `+ read ×3 ·
//! #1 a.rs · #2 b.rs …`, or
//! with several tools `+ read ×2, glob · #1 read a.rs · #2 glob *.md · …` (`group`, merged by
//! `tool_group.rs`), which expands to a line per call. A call that changed a file shows its
//! diff underneath (`inline_diff.rs`). A call a hook refused shows the refusal whole, wrapped
//! (`hook_rows.rs` says which calls), and a hook's failure or timeout as a note under it.
//! A command the sandbox's rules refused ends its line with `blocked by the sandbox ·
//! /sandbox` (`SANDBOX_TAG`, in the warning colour) or, when that does not fit, has it on a
//! row of its own under it; the command is cut rather than the tag.

use crate::protocol::ToolResult;
use crate::sanitize::{sanitize, sanitize_visible};
use crate::tool_outcome::live::LiveTail;
use crate::tool_outcome::{command_output, outcome, tail_start, SANDBOX_TAG, TAIL_LINES};
use crate::tui::panes::conversation::inline_diff::{gutter_rows, InlineDiff};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{truncate, wrap, wrap_spans};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Output lines shown at most when expanded.
const EXPANDED_CAP: usize = 400;
/// Rows a reason shown whole (a hook's refusal, a hook's note) takes at most: past that its
/// first row and its last ones show (a refusal's reason comes last).
const WHOLE_ROWS: usize = 24;

/// Status of a tool call marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolMark {
    Running,
    Ok,
    Failed,
}

pub struct ToolLine {
    pub id: String,
    /// The tool's name, which calls of one group share.
    pub tool: String,
    pub label: String,
    pub mark: ToolMark,
    /// Why it failed, in one line.
    pub reason: Option<String>,
    /// The sandbox's rules refused it: its reason ends with `SANDBOX_TAG`.
    pub sandbox: bool,
    /// The command's output (sanitized), for its tail.
    pub output: Option<String>,
    /// Output arrived while it ran: it is a command even without an exit status.
    pub streamed: bool,
    /// What a running command printed so far (its last lines), until it finishes.
    pub live: Option<Box<LiveTail>>,
    pub expanded: bool,
    /// The call changed a file (`AgentEvent::FileChange`): it keeps a line of its own.
    pub changed_files: bool,
    /// The text of the file it created (its `FileChange` without an old text), until it ends.
    pub created: Option<String>,
    /// The change it made, shown under it.
    pub diff: Option<InlineDiff>,
    /// A `PreToolUse` hook ran for it: its failure (the hook's refusal) is shown whole.
    pub hook_ran: bool,
    /// Its failure in full, when shown whole.
    whole_reason: Option<String>,
    /// What its hooks said that did not pass (failures, timeouts), shown whole under it.
    pub hook_notes: Vec<String>,
    /// A language server's diagnostics of the file it edited (`tool_outcome::diagnostics`).
    pub diagnostics: Vec<String>,
    /// The calls after this one shown on its line (a group), in order.
    pub group: Vec<ToolLine>,
}

impl ToolLine {
    pub fn new(id: &str, tool: &str, label: &str) -> Self {
        ToolLine {
            id: id.to_string(),
            tool: tool.to_string(),
            label: label.to_string(),
            mark: ToolMark::Running,
            reason: None,
            sandbox: false,
            output: None,
            streamed: false,
            live: None,
            expanded: false,
            changed_files: false,
            created: None,
            diff: None,
            hook_ran: false,
            whole_reason: None,
            hook_notes: Vec::new(),
            diagnostics: Vec::new(),
            group: Vec::new(),
        }
    }

    /// Whether this call may share a line with others: it succeeded, printed nothing and
    /// changed no file (a failure, a command's output and a change are always shown).
    pub fn groupable(&self) -> bool {
        self.mark == ToolMark::Ok
            && self.output.is_none()
            && !self.streamed
            && self.live.is_none()
            && !self.changed_files
            && self.diff.is_none()
            && self.hook_notes.is_empty()
            && self.diagnostics.is_empty()
    }

    pub fn finish(&mut self, result: &ToolResult) {
        let outcome = outcome(result);
        self.live = None;
        self.mark = if outcome.failed { ToolMark::Failed } else { ToolMark::Ok };
        self.reason = outcome.reason;
        self.sandbox = outcome.sandbox;
        self.output = command_output(result, self.streamed).map(|text| sanitize(text.trim_end()).into_owned());
        self.diagnostics = crate::tool_outcome::diagnostics(result);
        let created = self.created.take();
        if !outcome.failed {
            self.diff = InlineDiff::of(result, created.as_deref());
        }
        self.whole_reason = match result.error() {
            Some(error) if outcome.failed && self.hook_ran => Some(sanitize_visible(error.trim()).into_owned()),
            _ => None,
        };
        // A note the refusal already says (a hook that could not start) is not said twice.
        if let Some(whole) = &self.whole_reason {
            self.hook_notes
                .retain(|note| !whole.contains(note.split_once(" · ").map_or(note.as_str(), |(_, said)| said)));
        }
    }

    /// A chunk of the running command's output.
    pub fn stream(&mut self, chunk: &str) {
        self.streamed = true;
        self.live.get_or_insert_default().push(chunk, crate::startup::secret_values());
    }

    /// Whether there is more output than the tail shows.
    pub fn expandable(&self) -> bool {
        self.output.as_ref().is_some_and(|o| o.lines().count() > TAIL_LINES)
            || self.diff.as_ref().is_some_and(InlineDiff::expandable)
    }

    pub fn render(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        if self.group.is_empty() {
            self.render_one(width, theme)
        } else {
            self.render_group(width, theme)
        }
    }

    /// This call alone: its line and what it printed.
    fn render_one(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let (glyph, style) = match self.mark {
            ToolMark::Running => ("⋯ ", theme.running()),
            ToolMark::Ok => ("+ ", theme.ok()),
            ToolMark::Failed => ("x ", theme.error()),
        };
        let whole = self.whole_reason.as_deref();
        let (reason, rest) = match whole {
            Some(text) => text.split_once('\n').map_or((Some(text), None), |(first, rest)| (Some(first), Some(rest))),
            None => (self.reason.as_deref(), None),
        };
        let room = usize::from(width).saturating_sub(2).max(1);
        let (reason, tag) = match reason {
            Some(reason) if self.sandbox && whole.is_none() => match reason.strip_suffix(SANDBOX_TAG) {
                Some(head) => (Some(head.trim_end_matches([' ', '·'])).filter(|h| !h.is_empty()), Some(SANDBOX_TAG)),
                None => (Some(reason), None),
            },
            other => (other, None),
        };
        let body = |label: String| {
            let mut spans = vec![Span::styled(label, theme.dim())];
            if let Some(reason) = reason {
                spans.push(Span::styled(format!(" · {reason}"), theme.error()));
            }
            wrap_spans(&spans, room)
        };
        let mut rows = body(self.label.clone());
        if let Some(tag) = tag {
            // The sandbox's tag ends the line when it fits there, else it takes the next row
            // whole (never broken, never cut: the command is cut instead).
            let width = |row: &Vec<Span<'static>>| row.iter().map(|s| s.content.width()).sum::<usize>();
            let tagged = tag.width() + 3;
            if rows.len() <= 2 && rows.last().is_some_and(|row| width(row) + tagged <= room) {
                if let Some(last) = rows.last_mut() {
                    last.push(Span::styled(format!(" · {tag}"), theme.warning()));
                }
            } else {
                let said = reason.map_or(0, |r| r.width() + 3);
                if rows.len() > 1 {
                    rows = body(truncate(&self.label, room.saturating_sub(said).max(1)));
                    rows.truncate(1);
                }
                rows.push(vec![Span::styled(tag.to_string(), theme.warning())]);
            }
        }
        let mut head: Vec<Line<'static>> = rows
            .into_iter()
            .take(if whole.is_some() { usize::MAX } else { 2 })
            .enumerate()
            .map(|(i, body)| {
                let prefix = if i == 0 { Span::styled(glyph, style) } else { Span::raw("  ") };
                Line::from(std::iter::once(prefix).chain(body).collect::<Vec<_>>())
            })
            .collect();
        for line in rest.into_iter().flat_map(str::lines) {
            head.extend(wrap(line, width, theme.error(), "  ", "  ", theme.error()));
        }
        let mut lines = bounded(head, width, theme);
        for note in &self.hook_notes {
            let rows = note.lines().flat_map(|line| wrap(line, width, theme.warning(), "  ", "    ", theme.warning()));
            lines.extend(bounded(rows.collect(), width, theme));
        }
        for row in &self.diagnostics {
            lines.extend(wrap(row, width, theme.warning(), "  ", "    ", theme.warning()).into_iter().take(2));
        }
        if let Some(live) = self.live.as_ref().filter(|live| !live.is_empty()) {
            if live.earlier() > 0 {
                lines.push(dim_line(&format!("  ⋮ {} earlier lines", live.earlier()), width, theme));
            }
            for line in live.shown(crate::startup::secret_values()) {
                lines.extend(output_rows(&line, width, theme));
            }
        }
        if let Some(output) = &self.output {
            let all: Vec<&str> = output.lines().collect();
            let shown: Vec<&str> = if self.expanded {
                all.iter().take(EXPANDED_CAP).copied().collect()
            } else {
                // The last few lines that say something; blank ones do not count.
                all[tail_start(&all)..].iter().filter(|l| !l.trim().is_empty()).copied().collect()
            };
            let hidden = if self.expanded { all.len().saturating_sub(EXPANDED_CAP) } else { tail_start(&all) };
            if !self.expanded && hidden > 0 {
                lines.push(dim_line(&format!("  ⋮ {hidden} earlier lines (Space shows all)"), width, theme));
            }
            for line in shown {
                lines.extend(output_rows(line, width, theme));
            }
            if self.expanded && hidden > 0 {
                lines.push(dim_line(&format!("  … {hidden} more lines"), width, theme));
            }
        }
        if let Some(diff) = &self.diff {
            lines.extend(diff.rows(width, theme, self.expanded));
        }
        lines
    }
}

impl ToolLine {
    /// A group's line, `+ read ×3 · #1 a.rs · #2 b.rs` (several tools: `+ read ×2, glob ·
    /// #1 read a.rs · …`, each call with its tool), cut to the width; expanded, a line per
    /// call under it.
    fn render_group(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let calls = std::iter::once(self).chain(&self.group);
        let mut tools: Vec<(&str, usize)> = Vec::new();
        for call in calls.clone() {
            match tools.iter_mut().find(|(tool, _)| *tool == call.tool) {
                Some((_, n)) => *n += 1,
                None => tools.push((&call.tool, 1)),
            }
        }
        let (head, summaries): (String, Vec<String>) = match tools.as_slice() {
            [(tool, n)] => {
                let named = format!("{tool} ");
                (format!("{tool} ×{n}"), calls.clone().map(|c| c.label.replacen(&named, "", 1)).collect())
            }
            _ => {
                let counts: Vec<String> = tools
                    .iter()
                    .map(|(tool, n)| if *n > 1 { format!("{tool} ×{n}") } else { tool.to_string() })
                    .collect();
                (counts.join(", "), calls.clone().map(|c| c.label.clone()).collect())
            }
        };
        let line = Line::from(vec![
            Span::styled("+ ", theme.ok()),
            Span::styled(head, theme.dim()),
            Span::styled(format!(" · {}", summaries.join(" · ")), theme.dim()),
        ]);
        let mut lines = vec![crate::tui::wrap::truncate_line(line, usize::from(width))];
        if self.expanded {
            for call in calls {
                for row in call.render_one(width.saturating_sub(2).max(1), theme) {
                    let mut spans = vec![Span::raw("  ")];
                    spans.extend(row.spans);
                    lines.push(Line::from(spans));
                }
            }
        }
        lines
    }
}

/// One output line under its gutter, wrapped to at most two rows.
fn output_rows(line: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    gutter_rows(line, theme.dim(), width, theme)
}

/// Rows of a text shown whole, at most `WHOLE_ROWS`: past that the first row, a `⋮` and the
/// last rows.
fn bounded(mut rows: Vec<Line<'static>>, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    if rows.len() <= WHOLE_ROWS {
        return rows;
    }
    let tail = rows.split_off(rows.len() - (WHOLE_ROWS - 2));
    rows.truncate(1);
    rows.push(dim_line("  ⋮", width, theme));
    rows.extend(tail);
    rows
}

fn dim_line(text: &str, width: u16, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(truncate(&crate::tui::wrap::expand_tabs(text), usize::from(width)), theme.dim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(line: &ToolLine, width: u16) -> Vec<String> {
        line.render(width, &Theme::new(true))
            .iter()
            .map(|row| row.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .collect()
    }

    /// The sandbox's tag ends the line, or takes the next row whole; a long command is cut
    /// for it, never the tag.
    #[test]
    fn the_sandbox_tag_is_never_broken_nor_cut() {
        let refused = ToolResult::from_value(
            json!({"exit_status": 1, "content": "denied\n", "sandbox_refused": "write", "ok": true}),
        );
        let mut short = ToolLine::new("t1", "execute", "execute touch ~/x");
        short.finish(&refused);
        assert_eq!(rows(&short, 80)[0], "x execute touch ~/x · exit 1 · blocked by the sandbox · /sandbox");
        let long = format!("execute {}", "word ".repeat(60));
        let mut long_line = ToolLine::new("t2", "execute", long.trim_end());
        long_line.finish(&refused);
        let shown = rows(&long_line, 60);
        assert!(shown[0].starts_with("x execute word") && shown[0].ends_with("… · exit 1"), "{shown:?}");
        assert_eq!(shown[1].trim(), SANDBOX_TAG, "{shown:?}");
        // Without the field, no tag.
        let mut plain = ToolLine::new("t3", "execute", "execute false");
        plain.finish(&ToolResult::from_value(json!({"exit_status": 1, "content": "", "ok": true})));
        assert_eq!(rows(&plain, 80)[0], "x execute false · exit 1");
    }

    /// A language server's diagnostics of an edited file show under its row.
    #[test]
    fn an_edits_diagnostics_show_under_its_row() {
        let mut edit = ToolLine::new("e1", "edit", "edit calc.py");
        edit.finish(&ToolResult::from_value(json!({"path": "calc.py", "ok": true,
            "diagnostics": [{"line": 2, "severity": "error", "message": "Type \"str\" is not assignable"}]})));
        assert_eq!(rows(&edit, 80), ["+ edit calc.py", "  line 2 error: Type \"str\" is not assignable"]);
        assert!(!edit.groupable());
    }
}
