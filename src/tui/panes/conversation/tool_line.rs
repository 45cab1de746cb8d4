//! A tool call as the conversation shows it: `+ read README.md` while it runs and once it
//! succeeded, `x execute ./test.sh · exit 1` in red when it failed, and for a command the
//! last lines of its output underneath (all of it, up to a cap, when expanded).

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::tool_outcome::{command_output, outcome, tail_start, TAIL_LINES};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{truncate, wrap_spans};
use ratatui::text::{Line, Span};

/// Output lines shown at most when expanded.
const EXPANDED_CAP: usize = 400;

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
            expanded: false,
        }
    }

    pub fn finish(&mut self, result: &ToolResult) {
        let outcome = outcome(result);
        self.mark = if outcome.failed { ToolMark::Failed } else { ToolMark::Ok };
        self.reason = outcome.reason;
        self.output = command_output(result, self.streamed).map(|text| sanitize(text.trim_end()).into_owned());
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
                lines.push(dim_line(&format!("  │ {line}"), width, theme));
            }
            if self.expanded && hidden > 0 {
                lines.push(dim_line(&format!("  … {hidden} more lines"), width, theme));
            }
        }
        lines
    }
}

fn dim_line(text: &str, width: u16, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(truncate(&crate::tui::wrap::expand_tabs(text), usize::from(width)), theme.dim()))
}
