//! The resume picker (`/resume` in the app, `elelem --resume` with no id on a terminal):
//! this directory's recorded sessions, newest first — date, turns, first prompt, and a
//! preview of the last exchange under the chosen one. Typing filters (every word must
//! appear, ignoring case); ↑↓ choose, Enter resumes (`Intent::Resume`), Esc closes. All
//! session text is untrusted: it is sanitized before it is drawn.

use crate::startup::SessionRow;
use crate::tui::intent::Intent;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

/// One session, its text made safe to draw once.
struct Row {
    id: String,
    line: String,
    last_prompt: String,
    last_reply: String,
    /// What the filter searches, lower case.
    haystack: String,
}

/// The open picker.
pub struct ResumePicker {
    rows: Vec<Row>,
    query: String,
    /// Indexes of the rows the query keeps.
    shown: Vec<usize>,
    selected: usize,
}

fn clean(text: &str) -> String {
    crate::sanitize::sanitize_visible(text).replace(['\n', '\t'], " ")
}

impl ResumePicker {
    pub fn new(sessions: Vec<SessionRow>) -> Self {
        let rows: Vec<Row> = sessions
            .into_iter()
            .map(|s| {
                let plural = if s.turns == 1 { "turn " } else { "turns" };
                let first = clean(&s.first_prompt);
                let line = format!("{}  {:>3} {plural}  {first}", clean(&s.date), s.turns);
                let (last_prompt, last_reply) = (clean(&s.last_prompt), clean(&s.last_reply));
                let haystack = format!("{line} {last_prompt} {last_reply} {}", s.id).to_lowercase();
                Row { id: s.id, line, last_prompt, last_reply, haystack }
            })
            .collect();
        let shown = (0..rows.len()).collect();
        ResumePicker { rows, query: String::new(), shown, selected: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn refilter(&mut self) {
        let words: Vec<String> = self.query.to_lowercase().split_whitespace().map(str::to_string).collect();
        self.shown =
            (0..self.rows.len()).filter(|&i| words.iter().all(|w| self.rows[i].haystack.contains(w))).collect();
        self.selected = 0;
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        let ctrl = key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => return Intent::Resume(None),
            KeyCode::Char('c') if ctrl => return Intent::Resume(None),
            KeyCode::Enter => {
                return match self.shown.get(self.selected) {
                    Some(&i) => Intent::Resume(Some(self.rows[i].id.clone())),
                    None => Intent::Notify("no session matches".into()),
                }
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(self.shown.len().saturating_sub(1)),
            KeyCode::Backspace => {
                self.query.pop();
                self.refilter();
            }
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                self.refilter();
            }
            _ => {}
        }
        Intent::Handled
    }

    /// Drawn over the panes above the prompt (`area`: the screen, `composer`: the prompt).
    pub fn render(&self, area: Rect, composer: Rect, buf: &mut Buffer, theme: &Theme) {
        // The filter line, up to 16 sessions, a blank row, the last exchange (3) and the borders.
        let wanted = self.rows.len().min(16) as u16 + 7;
        let height = composer.y.saturating_sub(area.y).min(wanted);
        if height < 6 {
            return;
        }
        let rect = Rect { y: composer.y - height, height, ..composer };
        Clear.render(rect, buf);
        let title = truncate(
            "resume a session · type to filter · ↑↓ choose · Enter resume · Esc close",
            usize::from(rect.width.saturating_sub(4)),
        );
        let inner = theme.draw_pane(rect, buf, &title, true);
        let width = usize::from(inner.width);
        let filter = format!("filter: {}▏  {} of {}", clean(&self.query), self.shown.len(), self.rows.len());
        buf.set_line(
            inner.x,
            inner.y,
            &Line::from(Span::styled(truncate(&filter, width), theme.accent())),
            inner.width,
        );
        // The list, then the chosen session's last exchange in the last three rows.
        let list_rows = usize::from(inner.height.saturating_sub(5));
        let first = self.selected.saturating_sub(list_rows.saturating_sub(1));
        for (row, (n, &i)) in self.shown.iter().enumerate().skip(first).take(list_rows).enumerate() {
            let style = if n == self.selected { theme.selected() } else { theme.text() };
            let text = truncate(&format!(" {}", self.rows[i].line), width);
            buf.set_line(inner.x, inner.y + 1 + row as u16, &Line::from(Span::styled(text, style)), inner.width);
        }
        let Some(&chosen) = self.shown.get(self.selected) else { return };
        let row = &self.rows[chosen];
        let bottom = inner.y + inner.height;
        let lines = [
            Line::from(Span::styled(truncate(" last exchange:", width), theme.dim())),
            Line::from(vec![
                Span::styled(" › ", theme.user()),
                Span::raw(truncate(&row.last_prompt, width.saturating_sub(3))),
            ]),
            Line::from(vec![
                Span::styled(" ‹ ", theme.dim()),
                Span::raw(truncate(&row.last_reply, width.saturating_sub(3))),
            ]),
        ];
        for (k, line) in lines.iter().enumerate() {
            buf.set_line(inner.x, bottom - 3 + k as u16, line, inner.width);
        }
    }
}
