//! The jobs popup (`/jobs` in the TUI): the session's background jobs as
//! `AgentEvent::Jobs` brought them, then as they are at each frame while it is open (`set_rows`)
//! — number, running or how it ended, output size, command.
//! Up/Down select, `x` or Delete stops the selected job (sends `/jobs stop N`, which the
//! session answers with what it did), Esc closes. Commands come from the model: they are
//! sanitized before they are drawn.

use crate::protocol::events::JobRow;
use crate::sanitize::sanitize_visible;
use crate::tui::intent::Intent;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Rows of jobs shown at most.
const ROWS: usize = 10;

pub struct JobsPopup {
    rows: Vec<JobRow>,
    selected: usize,
}

impl JobsPopup {
    /// The popup over `rows`, the first running job selected (else the first).
    pub fn new(rows: Vec<JobRow>) -> Self {
        let selected = rows.iter().position(|row| row.running).unwrap_or(0);
        JobsPopup { rows, selected }
    }

    /// The jobs as they are now (the popup is live while open): the same job stays selected
    /// while it is listed.
    pub fn set_rows(&mut self, rows: Vec<JobRow>) {
        let selected = self.rows.get(self.selected).map(|row| row.id);
        self.selected = selected
            .and_then(|id| rows.iter().position(|row| row.id == id))
            .unwrap_or(self.selected.min(rows.len().saturating_sub(1)));
        self.rows = rows;
    }

    /// The popup is modal: it takes every key. `x` or Delete on a job: `Send("/jobs stop N")`;
    /// Esc: `Close`.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        let count = self.rows.len();
        match key.code {
            KeyCode::Esc => return Intent::Close(None),
            KeyCode::Up | KeyCode::Down if count > 0 => {
                let step = if key.code == KeyCode::Up { -1 } else { 1 };
                self.selected = (self.selected as isize + step).rem_euclid(count as isize) as usize;
            }
            KeyCode::Char('x') | KeyCode::Delete => {
                if let Some(row) = self.rows.get(self.selected) {
                    return Intent::Send { line: format!("/jobs stop {}", row.id), shown: None };
                }
            }
            _ => {}
        }
        Intent::Handled
    }

    /// The popup, just above the composer.
    pub fn render(&self, composer: Rect, buf: &mut Buffer, theme: &Theme) {
        let rows = self.rows.len().clamp(1, ROWS) as u16;
        let running = self.rows.iter().filter(|row| row.running).count();
        let title = format!("jobs · {running} running of {} · x stop · Esc", self.rows.len());
        let Some(inner) = super::pane_above(composer, rows, &title, buf, theme) else { return };
        let line_width = usize::from(inner.width);
        if inner.height == 0 {
            return;
        }
        if self.rows.is_empty() {
            buf.set_string(inner.x, inner.y, truncate("No jobs.", line_width), theme.dim());
            return;
        }
        let shown = usize::from(inner.height);
        let selected = self.selected.min(self.rows.len() - 1);
        let skip = selected.saturating_sub(shown - 1);
        for (line_index, (i, row)) in self.rows.iter().enumerate().skip(skip).take(shown).enumerate() {
            let marker = if i == selected { "›" } else { " " };
            let tty = if row.terminal { " pty" } else { "" };
            let state = sanitize_visible(&row.state);
            let line = format!(
                "{marker} %{:<3} {state:<10} {:>9}{tty}  {}",
                row.id,
                sanitize_visible(&row.output),
                sanitize_visible(&row.command)
            );
            let style = match (i == selected, row.running) {
                (true, _) => theme.selected(),
                (false, true) => theme.text(),
                (false, false) => theme.dim(),
            };
            let y = inner.y + line_index as u16;
            buf.set_string(inner.x, y, " ".repeat(line_width), style);
            buf.set_string(inner.x, y, truncate(&line, line_width), style);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u32, running: bool) -> JobRow {
        let state = if running { "running" } else { "exited 0" }.to_string();
        JobRow { id, command: format!("job{id}"), running, state, output: "0 B".into(), terminal: false }
    }

    #[test]
    fn delete_or_x_stops_the_selected_job() {
        let mut popup = JobsPopup::new(vec![row(1, false), row(2, true), row(3, true)]);
        let key = |code| KeyEvent::from(code);
        assert_eq!(popup.handle_key(key(KeyCode::Down)), Intent::Handled);
        assert_eq!(
            popup.handle_key(key(KeyCode::Char('x'))),
            Intent::Send { line: "/jobs stop 3".into(), shown: None }
        );
        assert_eq!(popup.handle_key(key(KeyCode::Up)), Intent::Handled);
        assert_eq!(popup.handle_key(key(KeyCode::Delete)), Intent::Send { line: "/jobs stop 2".into(), shown: None });
        assert_eq!(popup.handle_key(key(KeyCode::Esc)), Intent::Close(None));
    }

    #[test]
    fn no_jobs_stops_nothing() {
        let mut popup = JobsPopup::new(vec![]);
        assert_eq!(popup.handle_key(KeyEvent::from(KeyCode::Char('x'))), Intent::Handled);
    }
}
