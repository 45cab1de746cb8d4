//! The conversation's own text selection: a drag with the mouse selects inside this pane only
//! (never its borders, never the tool log beside it), the selection is drawn reversed, and
//! the release gives its plain text to copy: the rows as drawn, less what is layout (a
//! continuation's indent, code's indent, a code block's label row), with the rows the
//! wrapper broke joined back into their lines (`text/row_text.rs`). A click on a code block's
//! label row copies that block whole.
//!
//! The selection is kept in rows of the whole conversation (not of the screen), so the wheel
//! may scroll while it is held; a drag past the top or bottom edge scrolls a row at a time.
//! Drawing it costs the visible rows it covers; its text is worked out only on release.

use super::History;
use crate::tui::panes::conversation::cells::{CellKind, HistoryCell};
use crate::tui::text::row_text::{joins_of, Join, RowText};
use crate::tui::text::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;

/// A place in the conversation: a row of all its rows, a column of the pane's inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Point {
    row: usize,
    col: u16,
}

/// A selection being made or made, at the width it was made at.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Selection {
    /// Where the button went down, and where the mouse is now.
    span: Option<(Point, Point)>,
    /// The button is still down.
    dragging: bool,
    width: u16,
}

/// What a release copies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Copied {
    /// The selected text.
    Text(String),
    /// A code block whose label was clicked: its code.
    Code(String),
}

impl Copied {
    pub fn text(&self) -> &str {
        match self {
            Copied::Text(text) | Copied::Code(text) => text,
        }
    }
}

impl Selection {
    /// The selection's first and last points, in order, if it holds more than a point.
    fn range(&self, width: u16) -> Option<(Point, Point)> {
        let (a, b) = self.span?;
        (a != b && self.width == width).then(|| (a.min(b), a.max(b)))
    }
}

impl History {
    /// The mouse button went down at `at`: a selection starts there if it is inside the
    /// pane's text (any earlier one goes).
    pub fn press(&mut self, at: Position) {
        self.selection = Selection::default();
        // On the pane's border: from the text next to it.
        let inner = self.inner;
        let pane = Rect {
            x: inner.x.saturating_sub(1),
            y: inner.y.saturating_sub(1),
            width: inner.width + 2,
            height: inner.height + 2,
        };
        if inner.is_empty() || !pane.contains(at) {
            return;
        }
        if let Some(point) = self.point(clamp(at, inner)) {
            self.selection = Selection { span: Some((point, point)), dragging: true, width: self.inner.width };
        }
    }

    /// A selection is being dragged (the button went down in this pane and is still down).
    pub fn selecting(&self) -> bool {
        self.selection.dragging
    }

    /// The mouse moved to `at` with the button down: the selection's end follows, clamped to
    /// the pane; past its top or bottom edge the pane scrolls a row.
    pub fn drag(&mut self, at: Position) {
        if !self.selection.dragging || self.inner.height == 0 {
            return;
        }
        let inner = self.inner;
        if at.y < inner.y {
            self.scroll_up(1);
        } else if at.y >= inner.bottom() {
            self.scroll_down(1);
        }
        if let (Some(point), Some((anchor, _))) = (self.point(clamp(at, inner)), self.selection.span) {
            self.selection.span = Some((anchor, point));
        }
    }

    /// The button came up at `at`: the selected text (the selection stays drawn), or, for a
    /// click that selected nothing, the code block whose label is there.
    pub fn release(&mut self, at: Position) -> Option<Copied> {
        if !std::mem::take(&mut self.selection.dragging) {
            return None;
        }
        let width = self.inner.width;
        if let Some((from, to)) = self.selection.range(width) {
            let text = self.text_between(from, to);
            return (!text.trim().is_empty()).then_some(Copied::Text(text));
        }
        self.selection = Selection::default();
        let point = self.point(at)?;
        let (i, offset) = self.index.locate(point.row)?;
        match &mut self.cells.get_mut(i)?.kind {
            CellKind::Reply(doc) => doc.code_at(width, offset).map(Copied::Code),
            _ => None,
        }
    }

    /// The point under `at`, if it is inside the pane's text as last drawn.
    fn point(&self, at: Position) -> Option<Point> {
        if !self.inner.contains(at) {
            return None;
        }
        let row = self.scroll.top + usize::from(at.y - self.inner.y);
        (row < self.index.total()).then_some(Point { row, col: at.x - self.inner.x })
    }

    /// The plain text from `from` to `to` (both included), rows joined as they read.
    fn text_between(&mut self, from: Point, to: Point) -> String {
        let Some((width, theme)) = self.drawn else { return String::new() };
        let _ = self.total_rows(width, &theme);
        let expand = self.expand_thinking;
        let last = to.row.min(self.index.total().saturating_sub(1));
        let mut rows = Vec::new();
        let mut row = from.row;
        while row <= last {
            let Some((i, offset)) = self.index.locate(row) else { break };
            let count = (last - row + 1).min(self.index.start_of(i + 1) - row);
            let cell = &mut self.cells[i];
            let lines = cell.lines(width, &theme, expand, offset, count);
            let texts = row_texts(cell, width, &theme, expand, offset, count);
            rows.extend(lines.into_iter().zip(texts.into_iter().chain(std::iter::repeat(RowText::default()))));
            row += count.max(1);
        }
        compose(&rows, usize::from(from.col), usize::from(to.col))
    }

    /// Draws the selection over the rows drawn in `inner` (the pane's inside; `top` its first
    /// row), reversed.
    pub(super) fn paint_selection(&self, buf: &mut Buffer, inner: Rect, theme: &Theme) {
        let Some((from, to)) = self.selection.range(inner.width) else { return };
        let top = self.scroll.top;
        for y in 0..inner.height {
            let row = top + usize::from(y);
            if row < from.row || row > to.row {
                continue;
            }
            let start = if row == from.row { from.col } else { 0 };
            let end = if row == to.row { to.col } else { inner.width.saturating_sub(1) };
            for x in start..=end.min(inner.width.saturating_sub(1)) {
                if let Some(cell) = buf.cell_mut((inner.x + x, inner.y + y)) {
                    cell.set_style(theme.selected());
                }
            }
        }
    }

    /// The selection is forgotten (the conversation was cleared or rewound under it).
    pub fn drop_selection(&mut self) {
        self.selection = Selection::default();
    }
}

/// `at` moved inside `inner` (not empty).
fn clamp(at: Position, inner: Rect) -> Position {
    Position {
        x: at.x.clamp(inner.x, inner.right().saturating_sub(1)),
        y: at.y.clamp(inner.y, inner.bottom().saturating_sub(1)),
    }
}

/// How rows `start..start + count` of `cell` read back as text: a reply says it itself
/// (`MarkdownDoc::row_texts`); a prompt, an error and a notice are wrapped text whose soft
/// breaks are found along it; any other row is a line of its own.
fn row_texts(
    cell: &mut HistoryCell,
    width: u16,
    theme: &Theme,
    expand: bool,
    start: usize,
    count: usize,
) -> Vec<RowText> {
    let (text, prefix) = match &mut cell.kind {
        CellKind::Reply(doc) => {
            let height = doc.height(width);
            return doc.row_texts(width, start.min(height), count);
        }
        CellKind::User(text) => (text.clone(), 2),
        CellKind::PastedPrompt { shown, full, expanded } => ((if *expanded { full } else { shown }).clone(), 2),
        CellKind::Error(text) | CellKind::Notice(text) => (text.clone(), 0),
        _ => return Vec::new(),
    };
    let lines = cell.lines(width, theme, expand, 0, usize::MAX);
    // The cell's last row is the blank between it and the next.
    let body = &lines[..lines.len().saturating_sub(1)];
    let rows: Vec<String> = body.iter().map(|line| columns(line, prefix, usize::MAX)).collect();
    let joins = joins_of(&text, &rows);
    let texts: Vec<RowText> =
        joins.into_iter().enumerate().map(|(i, join)| RowText::joined(join, if i == 0 { 0 } else { prefix })).collect();
    texts.into_iter().skip(start).take(count).collect()
}

/// The text of `rows` (each a drawn line and how it reads back) from column `from` of the
/// first to column `to` of the last, both included: layout columns and label rows left out,
/// each row's trailing spaces dropped, rows joined as they say.
pub(super) fn compose(rows: &[(Line<'static>, RowText)], from: usize, to: usize) -> String {
    let mut out = String::new();
    let last = rows.len().saturating_sub(1);
    for (i, (line, text)) in rows.iter().enumerate() {
        if text.label.is_some() {
            continue;
        }
        let start = if i == 0 { from } else { 0 }.max(text.skip);
        let end = if i == last { to.saturating_add(1) } else { usize::MAX };
        let row = columns(line, start, end);
        match text.join {
            _ if out.is_empty() => {}
            Join::Line => out.push('\n'),
            Join::Space => out.push(' '),
            Join::Word => {}
        }
        out.push_str(row.trim_end());
    }
    out.trim_matches('\n').to_string()
}

/// The characters of `line` that start in columns `start..end`.
fn columns(line: &Line<'_>, start: usize, end: usize) -> String {
    let mut out = String::new();
    let mut col = 0;
    for span in &line.spans {
        for c in span.content.chars() {
            if col >= end {
                return out;
            }
            if col >= start {
                out.push(c);
            }
            col += c.width().unwrap_or(0);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(text: &str, join: Join, skip: usize) -> (Line<'static>, RowText) {
        (Line::raw(text.to_string()), RowText::joined(join, skip))
    }

    #[test]
    fn rows_join_back_into_lines_and_layout_columns_are_left_out() {
        let rows = [
            row("› a prompt that", Join::Line, 0),
            row("  wraps", Join::Space, 2),
            row("", Join::Line, 0),
            row("a word broken in", Join::Line, 0),
            row("side it", Join::Word, 0),
            (Line::raw("  rust  [copy]"), RowText { label: Some(0), ..RowText::default() }),
            row("  fn main() {}", Join::Line, 2),
        ];
        assert_eq!(compose(&rows, 0, 80), "› a prompt that wraps\n\na word broken inside it\nfn main() {}");
        assert_eq!(compose(&rows[..2], 4, 3), "prompt that wr", "from a column of the first to one of the last");
    }

    #[test]
    fn columns_count_wide_characters_as_two() {
        assert_eq!(columns(&Line::raw("漢字ab"), 2, 5), "字a");
    }
}
