//! Ctrl+R: incremental reverse search over the input history (the persisted prompts of
//! earlier sessions and this one's), as in a shell. Typing narrows the search and the
//! prompt shows the newest matching entry; Ctrl+R again goes to the next older match;
//! Enter or Right keeps the match in the prompt to edit or send; Esc (or Ctrl+C) puts back
//! what the prompt held before. Matching ignores case unless the query has a capital.

use super::app::{App, Focus};
use super::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};

/// An open search.
pub struct ReverseSearch {
    pub query: String,
    /// The prompt's text before the search, put back by Esc.
    saved: String,
    /// The history entry shown (an index into the history), if any matches.
    found: Option<usize>,
}

/// Whether `entry` matches `query` (smart case).
fn matches(entry: &str, query: &str) -> bool {
    if query.chars().any(char::is_uppercase) {
        entry.contains(query)
    } else {
        entry.to_lowercase().contains(&query.to_lowercase())
    }
}

/// The newest entry before `before` (exclusive) that matches `query` and differs from
/// `skip`.
fn find(history: &[String], query: &str, before: usize, skip: Option<&str>) -> Option<usize> {
    history[..before.min(history.len())].iter().rposition(|entry| matches(entry, query) && Some(entry.as_str()) != skip)
}

impl App {
    /// Ctrl+R with no search open: start one.
    pub(super) fn open_search(&mut self) {
        self.focus = Focus::Composer;
        self.search = Some(ReverseSearch { query: String::new(), saved: self.composer.text(), found: None });
    }

    /// A key while the search is open.
    pub(super) fn search_key(&mut self, key: KeyEvent) {
        let Some(search) = self.search.as_mut() else { return };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let history = self.composer.history_entries();
        match key.code {
            KeyCode::Char('r') if ctrl => {
                let current = search.found.map(|i| history[i].as_str());
                let before = search.found.unwrap_or(history.len());
                match find(history, &search.query, before, current) {
                    Some(older) => search.found = Some(older),
                    None => return self.notify("no older match"),
                }
            }
            KeyCode::Esc => return self.close_search(false),
            KeyCode::Char('c' | 'g') if ctrl => return self.close_search(false),
            KeyCode::Enter | KeyCode::Right => return self.close_search(true),
            KeyCode::Backspace => {
                search.query.pop();
                search.found = find(history, &search.query, history.len(), None);
            }
            KeyCode::Char(c) if !ctrl => {
                search.query.push(c);
                // The match shown stays while it still matches, as in a shell.
                let from = search.found.map_or(history.len(), |i| i + 1);
                search.found = find(history, &search.query, from, None);
            }
            _ => return,
        }
        self.show_search_match();
    }

    /// Shows the match in the prompt (or what it held before, when nothing matches).
    fn show_search_match(&mut self) {
        let Some(search) = self.search.as_ref() else { return };
        let text = match search.found {
            Some(i) => self.composer.history_entries()[i].clone(),
            None => search.saved.clone(),
        };
        self.composer.set_text(&text);
    }

    fn close_search(&mut self, accept: bool) {
        let Some(search) = self.search.take() else { return };
        if !accept || search.found.is_none() {
            self.composer.set_text(&search.saved);
        }
    }

    /// The search line, just above the composer.
    pub(super) fn render_search(&self, composer: Rect, buf: &mut Buffer) {
        let Some(search) = self.search.as_ref() else { return };
        let theme = self.theme;
        let area = Rect { x: composer.x, y: composer.y.saturating_sub(3), width: composer.width, height: 3 };
        Clear.render(area, buf);
        let title = truncate("history search · ^R older · Enter/→ accept · Esc cancel", usize::from(area.width - 4));
        let inner = theme.draw_pane(area, buf, &title, true);
        let status = match search.found {
            Some(i) => {
                let history = self.composer.history_entries();
                let newer = history[i..].iter().filter(|e| matches(e, &search.query)).count();
                let all = newer + history[..i].iter().filter(|e| matches(e, &search.query)).count();
                format!("  match {newer} of {all}")
            }
            None if search.query.is_empty() => "  type to search".to_string(),
            None => "  no match".to_string(),
        };
        let query = crate::sanitize::sanitize_visible(&search.query).into_owned();
        let line = Line::from(vec![
            Span::styled("search: ", theme.dim()),
            Span::styled(query, theme.accent()),
            Span::styled("▏", theme.accent()),
            Span::styled(status, if search.found.is_some() { theme.dim() } else { theme.warning() }),
        ]);
        buf.set_line(inner.x, inner.y, &line, inner.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_newest_match_then_older_ones_skipping_repeats() {
        let history: Vec<String> =
            ["cargo test", "git status", "Cargo build", "cargo test", "ls"].map(String::from).into();
        assert_eq!(find(&history, "cargo", history.len(), None), Some(3));
        assert_eq!(find(&history, "cargo", 3, Some("cargo test")), Some(2), "smart case: lower matches Cargo");
        assert_eq!(find(&history, "Cargo", history.len(), None), Some(2), "a capital makes it exact");
        assert_eq!(find(&history, "cargo", 0, None), None);
        assert_eq!(find(&history, "", history.len(), None), Some(4));
    }
}
