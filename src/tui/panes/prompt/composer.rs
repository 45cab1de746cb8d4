//! The composer: a multi-line prompt editor (ratatui-textarea) with input history recall
//! (Up on the first line, Down on the last) and slash-command completion; it tells the `@`
//! file picker (`file_picker.rs`) which mention is being typed.

use crate::tui::intent::Intent;
use crate::tui::text::pane_cache::{DrawnCells, Part};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};

/// Most rows the editor grows to before it scrolls.
const MAX_ROWS: u16 = 8;

/// Longest `@mention` (characters, the `@` included) offered to the file picker; a longer
/// word is no mention.
const MAX_MENTION: usize = 1024;
pub use crate::tui::text::hints::PASTE_LINES;

pub struct Composer {
    textarea: TextArea<'static>,
    history: Vec<String>,
    /// Position in `history` while recalling; `None` when editing a fresh prompt.
    recall: Option<usize>,
    draft: String,
    commands: Vec<(String, String)>,
    pub popup_selected: usize,
    /// Esc closed the command popup; typing opens it again.
    popup_dismissed: bool,
    /// Long pastes shown as a placeholder in the text: (placeholder, pasted text).
    pastes: Vec<(String, String)>,
    /// Bumped by every key given to the editor (a key may scroll it without moving the cursor)
    /// and every change made to its text: the drawing's key instead of the text itself.
    revision: u64,
    /// The editor as last drawn, reused while nothing it shows changed.
    drawn: DrawnCells<Drawn>,
}

/// Everything the editor's drawing reads.
#[derive(PartialEq)]
struct Drawn {
    title: String,
    focused: bool,
    theme: Theme,
    revision: u64,
    cursor: (usize, usize),
    selection: Option<((usize, usize), (usize, usize))>,
}

impl Composer {
    /// Replaces the commands offered for completion and the recalled history (both arrive
    /// once the session is ready, after the first frame).
    pub fn set_commands_and_history(&mut self, commands: Vec<(String, String)>, history: Vec<String>) {
        self.commands = commands;
        let typed_this_run = std::mem::take(&mut self.history);
        self.history = history;
        self.history.extend(typed_this_run);
        self.recall = None;
    }

    /// `commands`: (`/name`, description) for completion.
    pub fn new(commands: Vec<(String, String)>, history: Vec<String>) -> Self {
        let mut composer = Composer {
            textarea: TextArea::default(),
            history,
            recall: None,
            draft: String::new(),
            commands,
            popup_selected: 0,
            popup_dismissed: false,
            pastes: Vec::new(),
            revision: 0,
            drawn: DrawnCells::default(),
        };
        composer.reset();
        composer
    }

    fn reset(&mut self) {
        self.revision += 1;
        self.textarea = TextArea::default();
        self.textarea.set_wrap_mode(WrapMode::WordOrGlyph);
        self.textarea.set_placeholder_text("Ask elelem…  (/ commands · ? help)");
        self.textarea.set_cursor_line_style(ratatui::style::Style::default());
    }

    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.textarea.is_empty() || self.text().is_empty()
    }

    pub fn set_text(&mut self, text: &str) {
        self.reset();
        self.textarea.insert_str(text);
        self.popup_dismissed = false;
    }

    pub fn clear(&mut self) {
        self.reset();
        self.recall = None;
        self.pastes.clear();
    }

    /// Takes the text to submit, each paste placeholder replaced by what was pasted,
    /// remembering it for recall.
    pub fn take(&mut self) -> String {
        let mut text = self.text();
        for (placeholder, pasted) in &self.pastes {
            text = text.replacen(placeholder.as_str(), pasted, 1);
        }
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.clear();
        text
    }

    /// Whether the text holds a long paste's placeholder.
    pub fn has_pastes(&self) -> bool {
        let text = self.text();
        self.pastes.iter().any(|(placeholder, _)| text.contains(placeholder.as_str()))
    }

    pub fn insert_newline(&mut self) {
        self.revision += 1;
        self.textarea.insert_newline();
    }

    /// Inserts pasted text as-is (newlines kept); a long paste shows as a placeholder
    /// (`[pasted 500 lines]`) and is put back whole when the prompt is sent.
    pub fn paste(&mut self, text: &str) {
        self.revision += 1;
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let lines = text.trim_end_matches('\n').lines().count();
        if lines <= PASTE_LINES {
            self.textarea.insert_str(text);
            return;
        }
        let mut placeholder = crate::tui::text::hints::paste_chip(lines);
        let mut n = 1;
        while self.text().contains(&placeholder) || self.pastes.iter().any(|(p, _)| *p == placeholder) {
            n += 1;
            placeholder = format!("[pasted {lines} lines #{n}]");
        }
        self.textarea.insert_str(&placeholder);
        self.pastes.push((placeholder, text));
    }

    /// A key for the editor. Editing a recalled prompt makes it a new one (no longer a
    /// place in the history) and brings the command popup back.
    pub fn input(&mut self, key: KeyEvent) {
        self.revision += 1;
        if self.textarea.input(key) {
            self.recall = None;
            self.popup_dismissed = false;
            self.popup_selected = 0;
        }
    }

    /// Characters typed in a row, at once: what `input` does with the key of each (the
    /// editor lays its text out again once, not after every character).
    pub fn type_text(&mut self, text: &str) {
        self.revision += 1;
        if self.textarea.insert_str(text) {
            self.recall = None;
            self.popup_dismissed = false;
            self.popup_selected = 0;
        }
    }

    /// Esc on the command popup: close it, keep the text.
    pub fn dismiss_popup(&mut self) {
        self.popup_dismissed = true;
    }

    /// The cursor is after the last character.
    pub fn cursor_at_end(&self) -> bool {
        let cursor = self.textarea.cursor();
        let (row, col) = (cursor.0, cursor.1);
        let lines = self.textarea.lines();
        row + 1 >= lines.len() && lines.last().is_none_or(|l| col >= l.chars().count())
    }

    fn cursor_row(&self) -> usize {
        self.textarea.cursor().0
    }

    /// Recalls the previous prompt when the cursor is on the first line.
    pub fn recall_prev(&mut self) -> bool {
        if self.cursor_row() != 0 || self.history.is_empty() {
            return false;
        }
        let i = match self.recall {
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return true,
            Some(i) => i - 1,
        };
        self.recall = Some(i);
        let text = self.history[i].clone();
        self.show_recalled(&text);
        self.textarea.move_cursor(CursorMove::Top);
        true
    }

    /// A recalled prompt in the editor: a long one as a paste chip again (sent whole), not
    /// hundreds of lines. The draft's pastes are kept for when it comes back.
    fn show_recalled(&mut self, text: &str) {
        if text.lines().count() > PASTE_LINES {
            self.reset();
            self.paste(text);
        } else {
            self.set_text(text);
        }
    }

    /// Moves forward in history when the cursor is on the last line.
    pub fn recall_next(&mut self) -> bool {
        let Some(i) = self.recall else { return false };
        if self.cursor_row() + 1 < self.textarea.lines().len() {
            return false;
        }
        if i + 1 < self.history.len() {
            self.recall = Some(i + 1);
            let text = self.history[i + 1].clone();
            self.show_recalled(&text);
        } else {
            self.recall = None;
            let draft = std::mem::take(&mut self.draft);
            self.set_text(&draft);
        }
        true
    }

    /// The input history, oldest first.
    pub fn history_entries(&self) -> &[String] {
        &self.history
    }

    /// A prompt recalled from history is shown (not being edited).
    pub fn recalling(&self) -> bool {
        self.recall.is_some()
    }

    /// The `@mention` being typed: (row, column of the `@`, what follows it up to the
    /// cursor), when the cursor ends a word that starts with `@` (so `a@b.c` is no mention).
    /// Looks back from the cursor at most `MAX_MENTION` characters (it runs on every key:
    /// a long line must not make each key cost its length).
    pub fn mention(&self) -> Option<(usize, usize, String)> {
        let (row, col) = (self.textarea.cursor().0, self.textarea.cursor().1);
        let line = self.textarea.lines().get(row)?;
        // The cursor's byte: `col` itself on an ASCII line (the usual case, checked fast).
        let at = if line.is_ascii() {
            col.min(line.len())
        } else {
            line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
        };
        if line[at..].chars().next().is_some_and(|c| !c.is_whitespace()) {
            return None;
        }
        let mut word = line[..at].char_indices().rev().take_while(|(_, c)| !c.is_whitespace());
        let (start, chars) = word.by_ref().take(MAX_MENTION).fold((at, 0), |(_, n), (i, _)| (i, n + 1));
        if word.next().is_some() || !line[start..].starts_with('@') {
            return None;
        }
        Some((row, col - chars, line[start + '@'.len_utf8()..at].to_string()))
    }

    /// Replaces the `@mention` being typed with `@path `.
    pub fn replace_mention(&mut self, path: &str) {
        let Some((_, start, _)) = self.mention() else { return };
        self.revision += 1;
        for _ in start..self.textarea.cursor().1 {
            self.textarea.delete_char();
        }
        self.textarea.insert_str(format!("@{path} "));
    }

    /// Every command offered: (`/name`, description).
    pub fn commands(&self) -> &[(String, String)] {
        &self.commands
    }

    /// Commands matching what is typed, when typing a command name (not when a prompt
    /// was recalled, so Up keeps walking the history, nor after Esc).
    pub fn popup(&self) -> Vec<&(String, String)> {
        let text = self.text();
        if self.recall.is_some() || self.popup_dismissed || !text.starts_with('/') || text.contains(char::is_whitespace)
        {
            return Vec::new();
        }
        self.commands.iter().filter(|(name, _)| name.starts_with(&text)).collect()
    }

    pub fn popup_move(&mut self, delta: isize) {
        let n = self.popup().len();
        if n > 0 {
            self.popup_selected = (self.popup_selected as isize + delta).rem_euclid(n as isize) as usize;
        }
    }

    /// Completes the selected command; `true` when something was completed.
    pub fn complete(&mut self) -> bool {
        let choice = self.popup().get(self.popup_selected).map(|(name, _)| name.clone());
        match choice {
            Some(name) if name != self.text() => {
                self.set_text(&format!("{name} "));
                true
            }
            _ => false,
        }
    }

    /// Rows the composer wants, borders included.
    /// A key while the prompt has the keys: Enter sends (`Send`, a command name completed
    /// first), Up/Down move in the `/` popup or recall earlier prompts, `?` on an empty
    /// prompt opens the help (`OpenHelp`); anything else edits the text.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Enter => return self.submit(),
            KeyCode::Up | KeyCode::Down => {
                let step = if key.code == KeyCode::Up { -1 } else { 1 };
                if !self.popup().is_empty() {
                    self.popup_move(step);
                } else if !(if step < 0 { self.recall_prev() } else { self.recall_next() }) {
                    self.input(key);
                }
            }
            KeyCode::Char('?') if self.is_empty() => return Intent::OpenHelp,
            _ => self.input(key),
        }
        Intent::Handled
    }

    /// Enter: completes a command name, then takes the line, with the text shown for it
    /// when it holds long pastes.
    fn submit(&mut self) -> Intent {
        if !self.popup().is_empty() {
            self.complete();
        }
        let shown = self.has_pastes().then(|| self.text().trim_end().to_string());
        let line = self.take().trim_end().to_string();
        Intent::Send { line, shown }
    }

    pub fn height(&self) -> u16 {
        (self.textarea.lines().len() as u16).clamp(1, MAX_ROWS) + 2
    }

    /// Draws the editor into its area (blank before: the cells are reused while nothing the
    /// drawing reads changed).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool, title: &str) {
        let cursor = self.textarea.cursor();
        let key = Drawn {
            title: title.to_string(),
            focused,
            theme: *theme,
            revision: self.revision,
            cursor: (cursor.0, cursor.1),
            selection: self.textarea.selection_range(),
        };
        let textarea = &mut self.textarea;
        self.drawn.draw(key, area, Part::All, buf, |cells| {
            textarea.set_block(theme.pane(title, focused));
            textarea.set_cursor_style(if focused { theme.selected() } else { ratatui::style::Style::default() });
            (&*textarea).render(area, cells);
        });
    }

    /// The completion popup, drawn just above the composer.
    pub fn render_popup(&self, composer: Rect, buf: &mut Buffer, theme: &Theme) {
        let items = self.popup();
        if items.is_empty() {
            return;
        }
        let rows = (items.len() as u16).min(8);
        let width = composer.width.min(60);
        let y = composer.y.saturating_sub(rows + 2);
        let area = Rect { x: composer.x, y, width, height: rows + 2 };
        Clear.render(area, buf);
        let inner = theme.draw_pane(area, buf, "commands", true);
        let skip = self.popup_selected.saturating_sub(usize::from(rows) - 1);
        for (row, (i, (name, description))) in items.iter().enumerate().skip(skip).take(usize::from(rows)).enumerate() {
            let text = truncate(&format!("{name:<12} {description}"), usize::from(inner.width));
            let style = if i == self.popup_selected { theme.selected() } else { theme.text() };
            buf.set_line(inner.x, inner.y + row as u16, &Line::from(Span::styled(text, style)), inner.width);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    /// The editor drawn through its cache, and drawn directly (what the cache must equal).
    fn both(composer: &mut Composer, area: Rect, focused: bool, title: &str) -> (Buffer, Buffer) {
        let theme = Theme::new(true);
        let mut cached = Buffer::empty(Rect::new(0, 0, 40, 8));
        composer.render(area, &mut cached, &theme, focused, title);
        let mut direct = Buffer::empty(Rect::new(0, 0, 40, 8));
        composer.textarea.set_block(theme.pane(title, focused));
        composer.textarea.set_cursor_style(if focused { theme.selected() } else { ratatui::style::Style::default() });
        (&composer.textarea).render(area, &mut direct);
        (cached, direct)
    }

    #[test]
    fn the_editor_drawn_from_reused_cells_shows_every_change() {
        let mut composer = Composer::new(vec![], vec![]);
        let area = Rect::new(0, 4, 40, 4);
        let (first, direct) = both(&mut composer, area, true, "prompt");
        assert_eq!(first, direct);
        let (again, _) = both(&mut composer, area, true, "prompt");
        assert_eq!(again, first, "nothing changed");
        for c in "hello".chars() {
            composer.input(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        let (typed, direct) = both(&mut composer, area, true, "prompt");
        assert_eq!(typed, direct);
        assert_ne!(typed, first);
        let (unfocused, direct) = both(&mut composer, area, false, "prompt · 1 queued");
        assert_eq!(unfocused, direct);
        composer.set_text("one\ntwo\nthree\nfour");
        let (long, direct) = both(&mut composer, area, true, "prompt");
        assert_eq!(long, direct);
        composer.input(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
        composer.input(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
        let (moved, direct) = both(&mut composer, area, true, "prompt");
        assert_eq!(moved, direct);
        assert_ne!(moved, long);
    }

    #[test]
    fn keys_return_intents_enter_sends_and_question_mark_opens_help() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        let mut composer = Composer::new(vec![], vec!["earlier".into()]);
        assert_eq!(composer.handle_key(key(KeyCode::Char('?'))), Intent::OpenHelp);
        for c in "hi  ".chars() {
            assert_eq!(composer.handle_key(key(KeyCode::Char(c))), Intent::Handled);
        }
        assert_eq!(composer.handle_key(key(KeyCode::Enter)), Intent::Send { line: "hi".into(), shown: None });
        assert!(composer.is_empty());
        assert_eq!(composer.handle_key(key(KeyCode::Up)), Intent::Handled);
        assert_eq!(composer.text(), "hi  ", "Up recalls the line just sent");
    }

    /// The cache is keyed by a revision, not the text: every way the text changes must show.
    #[test]
    fn every_change_to_the_text_draws_again() {
        let mut composer = Composer::new(vec![], vec!["an older prompt".into()]);
        let area = Rect::new(0, 2, 40, 6);
        let mut last = both(&mut composer, area, true, "prompt").0;
        let changes: [&dyn Fn(&mut Composer); 8] = [
            &|c| c.paste("pasted"),
            &|c| c.insert_newline(),
            &|c| c.paste(&"many\nlines\n".repeat(12)),
            &|c| c.set_text("see @sr"),
            &|c| c.replace_mention("src/main.rs"),
            &|c| {
                c.take();
            },
            &|c| {
                c.recall_prev();
            },
            &|c| c.clear(),
        ];
        for (i, change) in changes.iter().enumerate() {
            change(&mut composer);
            let (cached, direct) = both(&mut composer, area, true, "prompt");
            assert_eq!(cached, direct, "change {i}");
            assert_ne!(cached, last, "change {i} shows");
            last = cached;
        }
    }
}
