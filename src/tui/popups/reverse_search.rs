//! Ctrl+R: incremental reverse search over the input history (the persisted prompts of
//! earlier sessions and this one's), as in a shell. Typing narrows the search and the
//! prompt shows the newest matching entry; Ctrl+R again goes to the next older match;
//! Enter or Right keeps the match in the prompt to edit or send; Esc (or Ctrl+C) puts back
//! what the prompt held before. Matching ignores case unless the query has a capital.

use crate::tui::intent::Intent;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
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

impl ReverseSearch {
    /// Ctrl+R: a search over the history, the prompt holding `saved` until then.
    pub fn open(saved: String) -> Self {
        ReverseSearch { query: String::new(), saved, found: None }
    }

    /// A key while the search is open, over the prompts `history` (oldest first): what the
    /// prompt shows now (`SetPrompt`), `Close` (with the text to put back), a `Notify`, or
    /// `Handled`.
    pub fn handle_key(&mut self, key: KeyEvent, history: &[String]) -> Intent {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('r') if ctrl => {
                let current = self.found.map(|i| history[i].as_str());
                let before = self.found.unwrap_or(history.len());
                match find(history, &self.query, before, current) {
                    Some(older) => self.found = Some(older),
                    None => return Intent::Notify("no older match".into()),
                }
            }
            KeyCode::Esc => return self.close(false),
            KeyCode::Char('c' | 'g') if ctrl => return self.close(false),
            KeyCode::Enter | KeyCode::Right => return self.close(true),
            KeyCode::Backspace => {
                self.query.pop();
                self.found = find(history, &self.query, history.len(), None);
            }
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                // The match shown stays while it still matches, as in a shell.
                let from = self.found.map_or(history.len(), |i| i + 1);
                self.found = find(history, &self.query, from, None);
            }
            _ => return Intent::Handled,
        }
        // The match in the prompt (or what it held before, when nothing matches).
        Intent::SetPrompt(match self.found {
            Some(i) => history[i].clone(),
            None => self.saved.clone(),
        })
    }

    /// Closing: an accepted match stays in the prompt; otherwise what it held comes back.
    fn close(&self, accept: bool) -> Intent {
        if accept && self.found.is_some() {
            Intent::Close(None)
        } else {
            Intent::Close(Some(self.saved.clone()))
        }
    }

    /// The search line, just above the composer.
    pub fn render(&self, composer: Rect, buf: &mut Buffer, theme: &Theme, history: &[String]) {
        let search = self;
        let area = Rect { x: composer.x, y: composer.y.saturating_sub(3), width: composer.width, height: 3 };
        Clear.render(area, buf);
        let title = truncate("history search · ^R older · Enter/→ accept · Esc cancel", usize::from(area.width - 4));
        let inner = theme.draw_pane(area, buf, &title, true);
        let status = match search.found {
            Some(i) => {
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

    #[test]
    fn keys_return_what_the_prompt_shows_and_escape_puts_it_back() {
        use crossterm::event::KeyEvent;
        let history: Vec<String> = ["cargo test", "ls"].map(String::from).into();
        let mut search = ReverseSearch::open("draft".into());
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(search.handle_key(key(KeyCode::Char('c')), &history), Intent::SetPrompt("cargo test".into()));
        assert_eq!(search.handle_key(key(KeyCode::Char('z')), &history), Intent::SetPrompt("draft".into()));
        assert_eq!(search.handle_key(key(KeyCode::Esc), &history), Intent::Close(Some("draft".into())));
        search.handle_key(key(KeyCode::Backspace), &history);
        assert_eq!(search.handle_key(key(KeyCode::Enter), &history), Intent::Close(None), "the match stays");
    }
}
