//! A tool call as the conversation shows it: `+ read README.md` while it runs and once it
//! succeeded, `x execute ./test.sh · exit 1` in red when it failed, and for a command the
//! last lines of its output underneath (all of it, up to a cap, when expanded). While a
//! command runs, the last lines it printed so far (`LiveTail`, bounded) show there instead,
//! replaced by the final tail when it ends. An output line too long for the pane wraps under
//! its gutter (at most `ROWS_PER_LINE` rows, the last cut with `…`). Consecutive successful
//! calls of a step that printed nothing are one line, `+ read ×3 · #1 a.rs · #2 b.rs …`, or
//! with several tools `+ read ×2, glob · #1 read a.rs · #2 glob *.md · …` (`group`, merged by
//! `tool_group.rs`), which expands to a line per call.

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::tool_outcome::live::LiveTail;
use crate::tool_outcome::{command_output, outcome, tail_start, TAIL_LINES};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{truncate, wrap, wrap_spans};
use ratatui::text::{Line, Span};

/// Output lines shown at most when expanded.
const EXPANDED_CAP: usize = 400;
/// Rows one output line takes at most when it wraps.
const ROWS_PER_LINE: usize = 2;
/// The gutter in front of each output row.
const GUTTER: &str = "  │ ";

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
    /// The command's output (sanitized), for its tail.
    pub output: Option<String>,
    /// Output arrived while it ran: it is a command even without an exit status.
    pub streamed: bool,
    /// What a running command printed so far (its last lines), until it finishes.
    pub live: Option<Box<LiveTail>>,
    pub expanded: bool,
    /// The call changed a file (`AgentEvent::FileChange`): it keeps a line of its own.
    pub changed_files: bool,
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
            output: None,
            streamed: false,
            live: None,
            expanded: false,
            changed_files: false,
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
    }

    pub fn finish(&mut self, result: &ToolResult) {
        let outcome = outcome(result);
        self.live = None;
        self.mark = if outcome.failed { ToolMark::Failed } else { ToolMark::Ok };
        self.reason = outcome.reason;
        self.output = command_output(result, self.streamed).map(|text| sanitize(text.trim_end()).into_owned());
    }

    /// A chunk of the running command's output.
    pub fn stream(&mut self, chunk: &str) {
        self.streamed = true;
        self.live.get_or_insert_default().push(chunk, crate::startup::secret_values());
    }

    /// Whether there is more output than the tail shows.
    pub fn expandable(&self) -> bool {
        self.output.as_ref().is_some_and(|o| o.lines().count() > TAIL_LINES)
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
        let mut spans = vec![Span::styled(self.label.clone(), theme.dim())];
        if let Some(reason) = &self.reason {
            spans.push(Span::styled(format!(" · {reason}"), theme.error()));
        }
        let room = usize::from(width).saturating_sub(2).max(1);
        let mut lines: Vec<Line<'static>> = wrap_spans(&spans, room)
            .into_iter()
            .take(2)
            .enumerate()
            .map(|(i, body)| {
                let prefix = if i == 0 { Span::styled(glyph, style) } else { Span::raw("  ") };
                Line::from(std::iter::once(prefix).chain(body).collect::<Vec<_>>())
            })
            .collect();
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

/// One output line under its gutter, wrapped to at most `ROWS_PER_LINE` rows.
fn output_rows(line: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let text = crate::tui::wrap::expand_tabs(line);
    let mut rows = wrap(&text, width, theme.dim(), GUTTER, GUTTER, theme.dim());
    if rows.len() > ROWS_PER_LINE {
        rows.truncate(ROWS_PER_LINE);
        if let Some(last) = rows.last_mut() {
            last.spans.push(Span::styled("…", theme.dim()));
            *last = crate::tui::wrap::truncate_line(std::mem::take(last), usize::from(width));
        }
    }
    rows
}

fn dim_line(text: &str, width: u16, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(truncate(&crate::tui::wrap::expand_tabs(text), usize::from(width)), theme.dim()))
}
