//! Confirmations, asked on a line of their own just above the prompt instead of at the end
//! of the status line (where a narrow screen cut them off): `/clear` (Enter again clears,
//! Esc keeps the conversation), Ctrl+C's "again to quit", and quitting with a turn running
//! (Ctrl+D on an empty prompt or `/quit`: Enter quits, Esc lets the turn go on). The same lines carry a status
//! notice too long for the status line (`status_line.rs` moves it here whole). They wrap,
//! so nothing on them is ever cut; `App` places them and decides when a question opens
//! and closes.

use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use std::time::Instant;

/// Rows the lines take at most (a notice longer than that is cut after them).
pub const MAX_ROWS: usize = 4;

/// A question waiting for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// `/clear` was typed once: Enter again (the composer holds it) clears, Esc keeps it.
    Clear,
    /// Ctrl+C was pressed once: again before `until` quits. `interrupted`: that press
    /// stopped the running turn.
    Quit { until: Instant, interrupted: bool },
    /// Ctrl+D on an empty prompt or `/quit` while a turn runs: Enter on the empty prompt (or
    /// the same key or command again) quits, Esc lets the turn go on; the turn's end
    /// quits too (the question held only while it ran).
    QuitRunning,
}

impl Confirm {
    pub fn text(&self) -> &'static str {
        match self {
            Confirm::Clear => "Clear the conversation? Enter: yes · Esc: no (/clear undo brings it back)",
            Confirm::Quit { interrupted: true, .. } => "Turn interrupted. Ctrl+C again to quit elelem",
            Confirm::Quit { interrupted: false, .. } => "Ctrl+C again to quit elelem",
            Confirm::QuitRunning => "A turn is running: quit anyway? Enter: yes · Esc: no",
        }
    }

    /// The question no longer holds at `now` (Ctrl+C's second press came too late).
    pub fn expired(&self, now: Instant) -> bool {
        matches!(self, Confirm::Quit { until, .. } if *until <= now)
    }

    /// When it goes by itself, if it does: the screen must be drawn again then.
    pub fn until(&self) -> Option<Instant> {
        match self {
            Confirm::Quit { until, .. } => Some(*until),
            Confirm::Clear | Confirm::QuitRunning => None,
        }
    }
}

/// The lines above the prompt for `width`: the question, then a notice that did not fit
/// the status line, each wrapped whole.
pub fn lines(confirm: Option<&Confirm>, notice: Option<&str>, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(confirm) = confirm {
        lines.extend(wrap(confirm.text(), width, theme.approval(), "? ", "  ", theme.approval()));
    }
    if let Some(notice) = notice {
        let notice = crate::sanitize::sanitize(notice);
        lines.extend(wrap(&notice, width, theme.text(), "│ ", "│ ", theme.dim()));
    }
    lines.truncate(MAX_ROWS);
    lines
}

/// Draws `lines` into `area`, a row each.
pub fn render(lines: &[Line<'static>], area: Rect, buf: &mut Buffer) {
    for (row, line) in lines.iter().take(usize::from(area.height)).enumerate() {
        buf.set_line(area.x, area.y + row as u16, line, area.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_wraps_whole_at_a_narrow_width() {
        let theme = Theme::new(false);
        let lines = lines(Some(&Confirm::Clear), None, 40, &theme);
        let text: String = lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(" ");
        let words: Vec<&str> = text.split_whitespace().filter(|w| *w != "?").collect();
        let said: Vec<&str> = Confirm::Clear.text().split_whitespace().collect();
        assert_eq!(words, said, "{lines:?}");
        assert!(lines.iter().all(|l| l.width() <= 40));
    }

    #[test]
    fn a_quit_question_expires() {
        let now = Instant::now();
        let quit = Confirm::Quit { until: now + std::time::Duration::from_millis(5), interrupted: false };
        assert!(!quit.expired(now));
        assert!(quit.expired(now + std::time::Duration::from_millis(5)));
        assert!(!Confirm::Clear.expired(now + std::time::Duration::from_secs(3600)));
    }
}
