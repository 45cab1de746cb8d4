//! The rewind picker (Esc Esc on an empty prompt while idle, or `/rewind`): the earlier
//! prompts of this conversation, newest first. ↑↓ choose, Enter rewinds to just before the
//! chosen one (`Intent::Rewind`: the app sends `/rewind N`, and when the session says it
//! rewound, the prompt comes back into the composer), Esc closes.

use crate::tui::intent::Intent;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

/// Rows of prompts shown at most.
const ROWS: usize = 10;

/// The open picker: the prompts (newest first) and the one chosen.
pub struct RewindPicker {
    prompts: Vec<String>,
    selected: usize,
}

impl RewindPicker {
    /// `prompts` oldest first, as the conversation holds them.
    pub fn new(prompts: &[String]) -> Self {
        let prompts = prompts
            .iter()
            .rev()
            .map(|p| {
                let line = p.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                crate::sanitize::sanitize_visible(line).into_owned()
            })
            .collect();
        RewindPicker { prompts, selected: 0 }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(self.prompts.len().saturating_sub(1)),
            KeyCode::Enter => return Intent::Rewind(Some(self.selected + 1)),
            KeyCode::Esc => return Intent::Rewind(None),
            _ => {}
        }
        Intent::Handled
    }

    /// Drawn just above the prompt (`composer`).
    pub fn render(&self, composer: Rect, buf: &mut Buffer, theme: &Theme) {
        let first = self.selected.saturating_sub(ROWS - 1);
        let shown = self.prompts.len().min(ROWS);
        let height = (shown as u16 + 2).min(composer.y);
        if height < 3 {
            return;
        }
        let area = Rect { y: composer.y - height, height, ..composer };
        Clear.render(area, buf);
        let title = truncate(
            "rewind: back to just before which prompt? ↑↓ choose · Enter rewind · Esc close",
            usize::from(area.width.saturating_sub(4)),
        );
        let inner = theme.draw_pane(area, buf, &title, true);
        for (row, (i, prompt)) in
            self.prompts.iter().enumerate().skip(first).take(usize::from(inner.height)).enumerate()
        {
            let style = if i == self.selected { theme.selected() } else { theme.text() };
            let text = truncate(&format!(" {:>2}. {prompt}", i + 1), usize::from(inner.width));
            buf.set_line(inner.x, inner.y + row as u16, &Line::from(Span::styled(text, style)), inner.width);
        }
    }
}
