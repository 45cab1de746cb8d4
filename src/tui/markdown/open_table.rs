//! An open block that starts with a table (a model writing a long table): the cells and lines
//! of finished rows are kept, and a frame parses only the header, the delimiter row and the
//! rows after the kept ones. Owns when rows can be kept; column sizing and drawing are
//! `table`'s.
//!
//! A table row is one line and is parsed on its own, so a finished row never changes; only
//! the column widths can, when a later row is wider. Each frame measures the new rows against
//! the kept widest cells: while the column widths stay the same the kept lines are reused,
//! otherwise the header and the kept rows are laid out again from their cells (widths only
//! grow, and only up to the width of the screen, so that is rare). A block that may hold a
//! link reference definition is rendered whole.

use ratatui::text::Line;

use super::layout::layout;
use super::open_block::{is_clean, may_define_links, parse_open, Frame, Parsed};
use super::plain_row;
use super::render::{Node, Table};
use super::style::Palette;
use super::table::{header_lines, natural_widths, push_row, widen, Shape};
use crate::tui::wrap::truncate_line;

#[cfg(test)]
thread_local! {
    /// Bytes `layout` handed to the parser on this thread, for tests.
    pub(super) static PARSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(super) struct OpenTable {
    /// Bytes of the header and delimiter lines, newlines included.
    head: usize,
    /// Bytes of the tail before the first row not kept.
    cut: usize,
    /// Lines of the header and the kept rows.
    frozen: usize,
    /// The header and the kept rows.
    table: Table,
    /// Widest cell of each column over `table`.
    natural: Vec<usize>,
    /// The column widths the kept lines were laid out with.
    shape: Shape,
}

impl OpenTable {
    /// The state for a tail whose whole render (`parsed`) starts with a table.
    pub(super) fn start(text: &str, parsed: &Parsed, frame: &Frame<'_>) -> Option<Self> {
        let Some(Node::Table { prefix, table }) = parsed.nodes.first() else { return None };
        let second = text.find('\n').and_then(|i| text[i + 1..].find('\n').map(|j| i + 1 + j + 1))?;
        if !prefix.first.is_empty() || may_define_links(text) || !is_clean(&text[..second]) {
            return None;
        }
        let head = Table { aligns: table.aligns.clone(), header: table.header.clone(), rows: Vec::new() };
        let natural = natural_widths(&head);
        let shape = Shape::new(table, &natural_widths(table), usize::from(frame.width));
        let palette = Palette::new(frame.options);
        let frozen = header_lines(&head, &shape, palette).len();
        let mut state = OpenTable { head: second, cut: second, frozen, table: head, natural, shape };
        let rows = row_lines(table, &state.shape, palette, usize::from(frame.width));
        let rows_now = Table { rows: table.rows.clone(), ..Table::default() };
        state.keep(&text[second..], parsed.nodes.len() == 1, rows_now, &heights(&rows));
        Some(state)
    }

    /// How much is kept (0: nothing), for tests.
    #[cfg(test)]
    pub(super) fn kept(&self) -> usize {
        self.cut - self.head
    }

    /// Lays out `text` into `lines` (which hold what the last call left); false when the kept
    /// lines cannot be trusted. Plain rows (`plain_row`) are taken a line at a time; only
    /// what follows them (a row still arriving, a row with markup, what ends the table) is
    /// parsed, behind the header.
    pub(super) fn layout(&mut self, text: &str, lines: &mut Vec<Line<'static>>, frame: &mut Frame<'_>) -> bool {
        let (Some(head), Some(rest)) = (text.get(..self.head), text.get(self.cut..)) else { return false };
        if may_define_links(rest) {
            return false;
        }
        let columns = self.table.header.len();
        let mut rows = Vec::new();
        let mut at = 0;
        while let Some(end) = memchr::memchr(b'\n', &rest.as_bytes()[at..]) {
            let Some(cells) = plain_row::cells(&rest[at..at + end], columns) else { break };
            rows.push(cells);
            at += end + 1;
        }
        let (table, after) = match rest.get(at..).filter(|remainder| !remainder.is_empty()) {
            None => (Table { rows, ..Table::default() }, Vec::new()),
            Some(remainder) => {
                #[cfg(test)]
                PARSED.with(|parsed| parsed.set(parsed.get() + head.len() + remainder.len()));
                let (nodes, _) = parse_open(&format!("{head}{remainder}"), frame.options, None);
                let mut nodes = nodes.into_iter();
                let Some(Node::Table { prefix, mut table }) = nodes.next() else { return false };
                if !prefix.first.is_empty() || table.header.len() != columns {
                    return false;
                }
                rows.append(&mut table.rows);
                (Table { rows, ..Table::default() }, nodes.collect())
            }
        };
        let (width, palette) = (usize::from(frame.width), Palette::new(frame.options));
        let mut natural = self.natural.clone();
        widen(&mut natural, &table.rows);
        let shape = Shape::new(&self.table, &natural, width);
        if shape != self.shape {
            self.shape = shape;
            lines.clear();
            lines.extend(header_lines(&self.table, &self.shape, palette).into_iter().map(|l| truncate_line(l, width)));
            for row in row_lines(&self.table, &self.shape, palette, width) {
                lines.extend(row);
            }
            self.frozen = lines.len();
        }
        lines.truncate(self.frozen);
        let rows = row_lines(&table, &self.shape, palette, width);
        let heights = heights(&rows);
        lines.extend(rows.into_iter().flatten());
        lines.extend(layout(&after, width, palette));
        self.keep(rest, after.is_empty(), table, &heights);
        true
    }

    /// Keeps the complete rows of `body` (the tail from `cut`), parsed as `table`'s rows and
    /// laid out in `heights` lines each, when the render is the table `alone` and every
    /// complete line is one of its rows. The kept rows' cells are moved, not copied.
    fn keep(&mut self, body: &str, alone: bool, mut table: Table, heights: &[usize]) {
        let complete = body.rfind('\n').map_or(0, |i| i + 1);
        let lines = memchr::memchr_iter(b'\n', &body.as_bytes()[..complete]).count();
        let partial = usize::from(!body[complete..].trim().is_empty());
        if !alone || table.rows.len() != lines + partial || lines == 0 || !is_clean(&body[..complete]) {
            return;
        }
        table.rows.truncate(lines);
        widen(&mut self.natural, &table.rows);
        self.table.rows.append(&mut table.rows);
        self.frozen += heights[..lines].iter().sum::<usize>();
        self.cut += complete;
    }
}

/// How many lines each row has.
fn heights(rows: &[Vec<Line<'static>>]) -> Vec<usize> {
    rows.iter().map(Vec::len).collect()
}

/// The lines of each body row of `table`, truncated to `width` (when its columns do not fit).
fn row_lines(table: &Table, shape: &Shape, palette: Palette, width: usize) -> Vec<Vec<Line<'static>>> {
    let fits = shape.width() <= width;
    table
        .rows
        .iter()
        .map(|row| {
            let mut lines = Vec::new();
            push_row(&mut lines, row, shape, palette);
            if !fits {
                lines = lines.into_iter().map(|l| truncate_line(l, width)).collect();
            }
            lines
        })
        .collect()
}
