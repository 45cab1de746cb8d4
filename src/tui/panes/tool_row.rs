//! One row of the tool log (`tool_log.rs`): a call's head line (glyph, number, tool,
//! summary, `sandbox` when the sandbox refused it, exit status, run time less approval waits, a sub-agent's tokens), the last lines
//! of its output while it runs, a sub-agent's calls nested under it (`sub_calls.rs`) and,
//! expanded, the call laid out by kind (`tool_detail.rs`).

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::startup::secret_values;
use crate::tool_outcome::live::mask_secrets;
use crate::tool_outcome::{exit_status, outcome};
use crate::tui::panes::sub_calls::SubCalls;
use crate::tui::panes::tool_detail::detail_lines;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

/// Bytes of live output kept per running call (only the tail is shown).
pub(super) const OUTPUT_TAIL: usize = 4096;
/// Live output lines shown under a running call.
const LIVE_LINES: usize = 3;
const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

pub struct ToolRow {
    pub id: String,
    /// The call's number in the session (`#3`), shown in both panes.
    pub number: usize,
    pub name: String,
    pub summary: String,
    pub args: Value,
    pub(super) started: Instant,
    /// How long it ran, once finished (approval waits excluded).
    pub elapsed: Option<Duration>,
    /// Since when the user has been asked about it (the approval dialog is open).
    pub(super) waiting_since: Option<Instant>,
    /// Time spent waiting for approval so far, which is not run time.
    pub(super) waited: Duration,
    pub result: Option<ToolResult>,
    pub(super) output: String,
    pub expanded: bool,
    pub(super) detail: Option<(u16, Vec<Line<'static>>)>,
    /// What a sub-agent run by this call showed, if any.
    pub(super) sub: Option<SubCalls>,
}

impl ToolRow {
    /// `None` while running, then whether it succeeded (a command that exited non-zero
    /// did not).
    pub fn ok(&self) -> Option<bool> {
        self.result.as_ref().map(|r| !outcome(r).failed)
    }

    /// Time it has run until `now`: since it started, less any wait for approval.
    pub(super) fn run_time(&self, now: Instant) -> Duration {
        let waiting = self.waiting_since.map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        now.saturating_duration_since(self.started).saturating_sub(self.waited + waiting)
    }

    fn live_lines(&self) -> Vec<&str> {
        if self.result.is_some() || self.output.is_empty() {
            return Vec::new();
        }
        let lines: Vec<&str> = self.output.trim_end().lines().collect();
        lines[lines.len().saturating_sub(LIVE_LINES)..].to_vec()
    }

    pub(super) fn height(&mut self, width: u16, theme: &Theme) -> usize {
        let nested = self.nested(width, theme).len();
        1 + self.live_lines().len() + nested + if self.expanded { self.detail(width, theme).len() } else { 0 }
    }

    /// A sub-agent's calls under the row: all of them when expanded, the last few while
    /// running, none otherwise.
    fn nested(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        match &self.sub {
            Some(sub) if self.expanded => sub.lines(width, theme, None),
            Some(sub) if self.result.is_none() => sub.lines(width, theme, Some(LIVE_LINES)),
            _ => Vec::new(),
        }
    }

    fn detail(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        if self.detail.as_ref().map(|(w, _)| *w) != Some(width) {
            let lines = detail_lines(&self.args, self.result.as_ref(), width, theme);
            self.detail = Some((width, lines));
        }
        self.detail.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[])
    }

    fn head_line(&self, width: u16, theme: &Theme, selected: bool, now: Instant) -> Line<'static> {
        let elapsed = self.elapsed.unwrap_or_else(|| self.run_time(now));
        let (glyph, style) = match self.ok() {
            None if self.waiting_since.is_some() => ("?", theme.approval()),
            None => (SPINNER[(elapsed.as_millis() / 100) as usize % SPINNER.len()], theme.running()),
            Some(true) => ("+", theme.ok()),
            Some(false) => ("x", theme.error()),
        };
        let mut right = match self.waiting_since {
            Some(_) => " waiting for approval".to_string(),
            None => format!(" {:.1}s", elapsed.as_secs_f64()),
        };
        if let Some(tokens) = self.sub.as_ref().and_then(SubCalls::tokens) {
            right = format!(" {tokens} ·{right}");
        }
        if let Some(code) = self.result.as_ref().and_then(exit_status).filter(|c| *c != 0) {
            right = format!(" exit {code}{right}");
        }
        if self.result.as_ref().is_some_and(|r| outcome(r).sandbox) {
            right = format!(" sandbox ·{right}");
        }
        let left_width = usize::from(width).saturating_sub(right.width() + 2);
        let left = truncate(&format!("#{} {} {}", self.number, self.name, self.summary), left_width);
        let pad = usize::from(width).saturating_sub(2 + left.width() + right.width());
        let mut line = Line::from(vec![
            Span::styled(format!("{glyph} "), style),
            Span::raw(left),
            Span::raw(" ".repeat(pad)),
            Span::styled(right, if self.waiting_since.is_some() { theme.approval() } else { theme.dim() }),
        ]);
        if selected {
            line = line.patch_style(theme.selected());
        }
        line
    }

    pub(super) fn lines(&mut self, width: u16, theme: &Theme, selected: bool, now: Instant) -> Vec<Line<'static>> {
        let mut out = vec![self.head_line(width, theme, selected, now)];
        for live in self.live_lines() {
            out.push(Line::from(Span::styled(
                truncate(
                    &format!("  │ {}", mask_secrets(sanitize(live).into_owned(), secret_values())),
                    usize::from(width),
                ),
                theme.dim(),
            )));
        }
        out.extend(self.nested(width, theme));
        if self.expanded {
            out.extend(self.detail(width, theme).iter().cloned());
        }
        out
    }
}

/// A call's summary as one safe line.
pub(super) fn one_line(summary: &str) -> String {
    crate::sanitize::sanitize_visible(summary).replace('\n', " ⏎ ")
}
