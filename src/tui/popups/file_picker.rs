//! The `@` file picker: typing `@` in the prompt opens a popup of the project's files
//! ranked for what follows the `@` (`file_index.rs` lists and ranks them). Up/Down choose,
//! Tab or Enter replace the typed `@query` with `@path ` (the session's mention handling
//! then attaches the file to the prompt; Enter on a path typed in full sends), Esc closes
//! the popup and keeps the text; typing opens it again. The file list is walked once, in the background, from when the session
//! is ready (or the first `@`, whichever comes first), never before the first frame.

use crate::tui::intent::Intent;
use crate::tui::popups::file_index::{FileIndex, Ranker};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use std::path::PathBuf;
use unicode_width::UnicodeWidthChar;

/// Rows of paths the popup shows at most.
const ROWS: usize = 8;

/// A mention as the composer reports it: (row, column of the `@`, query).
pub type Mention = (usize, usize, String);

/// The picker's state: the file list (once started), the selection and whether Esc closed
/// the popup for the mention being typed.
#[derive(Default)]
pub struct FilePicker {
    root: Option<PathBuf>,
    ranker: Option<Ranker>,
    selected: usize,
    /// The query the selection belongs to (a new query selects the best match again).
    query: String,
    dismissed: Option<Mention>,
}

impl FilePicker {
    /// A picker over the files under `root` (`None`: no picker).
    pub fn new(root: Option<PathBuf>) -> Self {
        FilePicker { root, ..FilePicker::default() }
    }

    /// A picker over a ready index (tests).
    pub fn with_index(index: FileIndex) -> Self {
        FilePicker { ranker: Some(Ranker::new(index)), ..FilePicker::default() }
    }

    /// Starts listing the files, once, on a background thread.
    pub fn start(&mut self) {
        if self.ranker.is_none() {
            if let Some(root) = self.root.take() {
                self.ranker = Some(Ranker::new(FileIndex::walk(root)));
            }
        }
    }

    /// The best paths for `query`, best first, with their place in the index (empty
    /// before the picker has files).
    fn rank(&mut self, query: &str) -> Vec<(u32, String)> {
        self.start();
        if query != self.query {
            self.query = query.to_string();
            self.selected = 0;
        }
        let Some(ranker) = self.ranker.as_mut() else { return Vec::new() };
        let top = ranker.rank(query).to_vec();
        self.selected = self.selected.min(top.len().saturating_sub(1));
        top.into_iter().map(|i| (i, ranker.path(i).to_string())).collect()
    }

    fn indexing(&self) -> bool {
        self.ranker.as_ref().is_some_and(Ranker::indexing)
    }
}

impl FilePicker {
    /// The mention the popup is open for: the one the prompt holds (`mention`, `None` when
    /// the prompt has not the keys), unless Esc closed the popup for it.
    fn open_for(&self, mention: Option<Mention>) -> Option<Mention> {
        mention.filter(|m| self.dismissed.as_ref() != Some(m))
    }

    /// The popup is open while the file list is still being walked: redraw as it grows.
    pub fn waiting(&self, mention: Option<Mention>) -> bool {
        self.indexing() && self.open_for(mention).is_some()
    }

    /// A key while the prompt holds `mention`: `InsertMention`, `Handled`, or `Ignored`
    /// when the popup is closed or does not use the key.
    pub fn handle_key(&mut self, key: KeyEvent, mention: Option<Mention>) -> Intent {
        let Some(mention) = self.open_for(mention) else { return Intent::Ignored };
        let top = self.rank(&mention.2);
        let plain = !key.modifiers.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT | KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => self.dismissed = Some(mention),
            KeyCode::Up | KeyCode::Down if !top.is_empty() => {
                let step = if key.code == KeyCode::Up { -1 } else { 1 };
                self.selected = (self.selected as isize + step).rem_euclid(top.len() as isize) as usize;
            }
            KeyCode::Tab | KeyCode::Enter if plain && !top.is_empty() => {
                let path = top[self.selected.min(top.len() - 1)].1.clone();
                if key.code == KeyCode::Enter && path == mention.2 {
                    return Intent::Ignored; // typed in full already: Enter sends
                }
                return Intent::InsertMention(path);
            }
            _ => return Intent::Ignored,
        }
        Intent::Handled
    }

    /// The popup, just above the composer, while the prompt holds `mention`.
    pub fn render(&mut self, composer: Rect, buf: &mut Buffer, theme: &Theme, mention: Option<Mention>) {
        let Some((_, _, query)) = self.open_for(mention) else { return };
        let top = self.rank(&query);
        let selected = self.selected;
        let Some(ranker) = self.ranker.as_mut() else { return };
        let (total, matched) = ranker.counts();
        let rows = top.len().clamp(1, ROWS);
        let width = composer.width.min(80);
        let height = rows as u16 + 2;
        let area = Rect { x: composer.x, y: composer.y.saturating_sub(height), width, height };
        Clear.render(area, buf);
        let mut title = format!("files · {matched} of {total}");
        if ranker.indexing() {
            title.push_str(" · indexing…");
        }
        title.push_str(" · Tab/Enter insert · Esc");
        let inner = theme.draw_pane(area, buf, &truncate(&title, usize::from(width.saturating_sub(4))), true);
        if top.is_empty() {
            let text =
                if ranker.indexing() { "listing files…".to_string() } else { format!("no file matches @{query}") };
            let text = truncate(&crate::sanitize::sanitize_visible(&text), usize::from(inner.width));
            buf.set_string(inner.x, inner.y, text, theme.dim());
            return;
        }
        let skip = selected.saturating_sub(rows - 1);
        for (row, (i, (index, path))) in top.iter().enumerate().skip(skip).take(rows).enumerate() {
            let matched = ranker.matched_chars(*index);
            let selected = i == selected;
            let marker = Span::styled(if selected { "› " } else { "  " }, theme.accent());
            let mut line = path_line(path, &matched, usize::from(inner.width.saturating_sub(2)), selected, theme);
            line.spans.insert(0, marker);
            buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
        }
    }
}

/// A path with its matched characters highlighted, cut on the left (`…`) to fit `width` so
/// the file name stays visible.
fn path_line(path: &str, matched: &[u32], width: usize, selected: bool, theme: &Theme) -> Line<'static> {
    let base = if selected { theme.selected() } else { theme.text() };
    let hit = theme.accent().patch(base);
    let clean = crate::sanitize::sanitize_visible(path);
    // Control characters were replaced: the matched positions no longer line up.
    let matched = if clean.as_ref() == path { matched } else { &[] };
    let chars: Vec<char> = clean.chars().collect();
    let mut used: usize = chars.iter().map(|c| c.width().unwrap_or(0)).sum();
    let mut first = 0;
    let mut spans = Vec::new();
    if used > width {
        spans.push(Span::styled("…", base));
        used += 1;
        while used > width && first < chars.len() {
            used -= chars[first].width().unwrap_or(0);
            first += 1;
        }
    }
    for (i, c) in chars.iter().enumerate().skip(first) {
        let style = if matched.binary_search(&(i as u32)).is_ok() { hit } else { base };
        spans.push(Span::styled(c.to_string(), style));
    }
    if selected {
        let pad = width.saturating_sub(used.min(width));
        spans.push(Span::styled(" ".repeat(pad), base));
    }
    Line::from(spans)
}
