//! A tool call as the conversation shows it: `+ read README.md` while it runs and once it
//! succeeded, `x execute ./test.sh · exit 1` in red when it failed, and for a command the
//! last lines of its output underneath (all of it, up to a cap, when expanded). While a
//! command runs, the last lines it printed so far (`LiveTail`, bounded) show there instead,
//! replaced by the final tail when it ends. An output line too long for the pane wraps under
//! its gutter (at most `ROWS_PER_LINE` rows, the last cut with `…`).

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
}

impl ToolLine {
    pub fn new(id: &str, label: &str) -> Self {
        ToolLine {
            id: id.to_string(),
            label: label.to_string(),
            mark: ToolMark::Running,
            reason: None,
            output: None,
            streamed: false,
            live: None,
            expanded: false,
        }
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
