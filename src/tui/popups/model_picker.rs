//! The model picker (`/model` without a name, or `/models`): the provider's models as
//! `AgentEvent::Models` brought them, filtered as the user types (every word must appear in
//! the id), with each one's window and price where known and the one in use marked `*`.
//! Up/Down choose, Enter sends `/model ID` (the session switches; the status line follows
//! the `ProviderChanged` event), Esc closes. A failed listing shows its error instead.
//! Ids come from the network or a plugin file: they are sanitized before they are drawn.

use crate::protocol::ModelInfo;
use crate::sanitize::sanitize_visible;
use crate::tui::intent::Intent;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Rows of models shown at most.
const ROWS: usize = 10;

pub struct ModelPicker {
    provider: String,
    current: String,
    listed: Result<Vec<ModelInfo>, String>,
    filter: String,
    /// Index into the filtered list.
    selected: usize,
}

impl ModelPicker {
    /// The picker over what the provider listed, the model in use selected.
    pub fn new(provider: String, current: String, listed: Result<Vec<ModelInfo>, String>) -> Self {
        let mut picker = ModelPicker { provider, current, listed, filter: String::new(), selected: 0 };
        picker.selected = picker.matches().iter().position(|m| m.id == picker.current).unwrap_or(0);
        picker
    }

    /// The models whose id holds every word of the filter (any case).
    fn matches(&self) -> Vec<&ModelInfo> {
        let Ok(models) = &self.listed else { return Vec::new() };
        let filter = self.filter.to_lowercase();
        let words: Vec<&str> = filter.split_whitespace().collect();
        models.iter().filter(|m| words.iter().all(|w| m.id.to_lowercase().contains(w))).collect()
    }

    /// The filter typed so far.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The picker is modal: it takes every key. Enter on a model: `Send("/model ID")`; Esc:
    /// `Close`.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        let count = self.matches().len();
        match key.code {
            KeyCode::Esc => return Intent::Close(None),
            KeyCode::Up | KeyCode::Down if count > 0 => {
                let step = if key.code == KeyCode::Up { -1 } else { 1 };
                self.selected = (self.selected as isize + step).rem_euclid(count as isize) as usize;
            }
            KeyCode::Enter => {
                if let Some(model) = self.matches().get(self.selected.min(count.saturating_sub(1))) {
                    return Intent::Send { line: format!("/model {}", model.id), shown: None };
                }
            }
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                self.filter.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        Intent::Handled
    }

    /// The popup, just above the composer.
    pub fn render(&self, composer: Rect, buf: &mut Buffer, theme: &Theme) {
        let matches = self.matches();
        let rows = matches.len().clamp(1, ROWS) as u16 + 1;
        let total = self.listed.as_ref().map_or(0, Vec::len);
        let provider = sanitize_visible(&self.provider);
        let title = format!("models · {provider} · {} of {total} · Enter switch · Esc", matches.len());
        let Some(inner) = super::pane_above(composer, rows, &title, buf, theme) else { return };
        let line_width = usize::from(inner.width);
        let filter = format!("filter: {}▏", sanitize_visible(&self.filter));
        buf.set_string(inner.x, inner.y, truncate(&filter, line_width), theme.dim());
        let body = Rect { y: inner.y + 1, height: inner.height.saturating_sub(1), ..inner };
        if body.height == 0 {
            return;
        }
        let empty = match &self.listed {
            Err(error) => Some((format!("cannot list the models: {}", sanitize_visible(error)), theme.error())),
            Ok(_) if matches.is_empty() => Some(("no model matches".to_string(), theme.dim())),
            Ok(_) => None,
        };
        if let Some((text, style)) = empty {
            buf.set_string(body.x, body.y, truncate(&text, line_width), style);
            return;
        }
        let shown = usize::from(body.height);
        let selected = self.selected.min(matches.len() - 1);
        let skip = selected.saturating_sub(shown - 1);
        let id_width = matches.iter().map(|m| m.id.chars().count()).max().unwrap_or(0).min(line_width / 2);
        for (row, (i, model)) in matches.iter().enumerate().skip(skip).take(shown).enumerate() {
            let marker = if i == selected { "›" } else { " " };
            let current = if model.id == self.current { "*" } else { " " };
            let id = truncate(&sanitize_visible(&model.id), id_width);
            let line = format!("{marker}{current} {id:<id_width$}  {}", model.details());
            let style = if i == selected { theme.selected() } else { theme.text() };
            let y = body.y + row as u16;
            buf.set_string(body.x, y, " ".repeat(line_width), style);
            buf.set_string(body.x, y, truncate(&line, line_width), style);
        }
    }
}
