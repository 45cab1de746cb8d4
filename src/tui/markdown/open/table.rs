//! An open block that starts with a table (a model writing a long table): the lines of
//! finished rows are kept, and a frame looks only at the header, the delimiter row and the
//! rows after the kept ones. Owns when rows can be kept; column sizing and drawing are
//! `table`'s, which lines are plain rows is `plain_row`'s.
//!
//! A table row is one line and is parsed on its own, so a finished row never changes; only
//! the column widths can, when a later row is wider. Plain rows are split by hand, and a kept
//! plain row holds only where its line is; the rest (a row with markup, a row still arriving,
//! what ends the table) is parsed behind the header, and a kept parsed row holds its cells.
//! Each frame measures the new rows against the kept widest cells: while the column widths
//! stay the same the kept lines are reused, otherwise the header and the kept rows are laid
//! out again (widths only grow, and only up to the width of the screen, so that is rare). A
//! block that may hold a link reference definition is rendered whole.

use std::ops::Range;

use ratatui::text::{Line, Span};

use super::plain_row;
use super::whole::{is_clean, may_define_links, parse_open, LayoutArgs, Parsed};
use crate::tui::markdown::lines::layout;
use crate::tui::markdown::nodes::{Node, Table};
use crate::tui::markdown::style::Palette;
use crate::tui::markdown::table::{header_lines, natural_widths, push_plain_row, push_row, widen, Shape};
use crate::tui::wrap::truncate_line;

pub(crate) struct OpenTable {
    /// Bytes of the header and delimiter lines, newlines included.
    head: usize,
    /// Bytes of the tail before the first row not kept.
    cut: usize,
    /// Lines of the header and the kept rows.
    frozen: usize,
    /// The header (no rows).
    table: Table,
    /// The kept rows.
    kept: Vec<Row>,
    /// Widest cell of each column over the header and the kept rows.
    natural: Vec<usize>,
    /// The column widths the kept lines were laid out with.
    shape: Shape,
    /// Bytes `layout` handed to the parser since `OpenBlock` last took the count, for tests.
    #[cfg(test)]
    pub(super) parsed: usize,
}

/// A body row: where a plain row's line is in the tail (split again when the columns change),
/// or a parsed row's cells.
enum Row {
    Plain(Range<usize>),
    Parsed(Vec<Vec<Span<'static>>>),
}

/// Rows to lay out: plain rows first, their cells in `cells` (`columns` a row; empty when
/// they are to be split from the text again), then parsed rows.
struct Rows<'a> {
    columns: usize,
    cells: Vec<&'a str>,
    rows: Vec<Row>,
}

impl OpenTable {
    /// The state for a tail whose whole render (`parsed`) starts with a table.
    pub(crate) fn start(text: &str, parsed: &Parsed, frame: &LayoutArgs<'_>) -> Option<Self> {
        let Some(Node::Table { prefix, table }) = parsed.nodes.first() else { return None };
        let second = text.find('\n').and_then(|i| text[i + 1..].find('\n').map(|j| i + 1 + j + 1))?;
        if !prefix.first.is_empty() || may_define_links(text) || !is_clean(&text[..second]) {
            return None;
        }
        let head = Table { aligns: table.aligns.clone(), header: table.header.clone(), rows: Vec::new() };
        let natural = natural_widths(&head);
        let (width, palette) = (usize::from(frame.width), Palette::new(frame.options));
        let shape = Shape::new(table, &natural_widths(table), width);
        let frozen = header_lines(&head, &shape, palette).len();
        let mut state = OpenTable {
            head: second,
            cut: second,
            frozen,
            table: head,
            kept: Vec::new(),
            natural,
            shape,
            #[cfg(test)]
            parsed: 0,
        };
        let rows = Rows {
            columns: table.header.len(),
            cells: Vec::new(),
            rows: table.rows.iter().cloned().map(Row::Parsed).collect(),
        };
        let heights = state.lay_out(text, &rows, &mut Vec::new(), width, palette);
        let body = Body::of(&text[second..]);
        let mut natural = state.natural.clone();
        rows.widen(&mut natural, 0..body.ended(&rows.rows));
        state.keep(body, parsed.nodes.len() == 1, rows.rows, &heights, natural);
        Some(state)
    }

    /// How much is kept (0: nothing), for tests.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.cut - self.head
    }

    /// Lays out `text` into `lines` (which hold what the last call left); false when the kept
    /// lines cannot be trusted.
    pub(crate) fn layout(&mut self, text: &str, lines: &mut Vec<Line<'static>>, frame: &mut LayoutArgs<'_>) -> bool {
        let (Some(head), Some(rest)) = (text.get(..self.head), text.get(self.cut..)) else { return false };
        if may_define_links(rest) {
            return false;
        }
        let columns = self.table.header.len();
        let mut rows = Rows { columns, cells: Vec::new(), rows: Vec::new() };
        let mut at = 0;
        while let Some(end) = memchr::memchr(b'\n', &rest.as_bytes()[at..]) {
            if !plain_row::split(&rest[at..at + end], columns, &mut rows.cells) {
                break;
            }
            rows.rows.push(Row::Plain(self.cut + at..self.cut + at + end));
            at += end + 1;
        }
        let mut after = Vec::new();
        if let Some(remainder) = rest.get(at..).filter(|remainder| !remainder.is_empty()) {
            #[cfg(test)]
            {
                self.parsed += head.len() + remainder.len();
            }
            let (nodes, _) = parse_open(&format!("{head}{remainder}"), frame);
            let mut nodes = nodes.into_iter();
            let Some(Node::Table { prefix, table }) = nodes.next() else { return false };
            if !prefix.first.is_empty() || table.header.len() != columns {
                return false;
            }
            after = nodes.collect();
            rows.rows.extend(table.rows.into_iter().map(Row::Parsed));
        }
        // The widths over the rows that ended (kept with them), then over every row (this frame's).
        let body = Body::of(rest);
        let ended = body.ended(&rows.rows);
        let mut natural = self.natural.clone();
        rows.widen(&mut natural, 0..ended);
        let ended_natural = natural.clone();
        rows.widen(&mut natural, ended..rows.rows.len());
        let (width, palette) = (usize::from(frame.width), Palette::new(frame.options));
        let shape = Shape::new(&self.table, &natural, width);
        if shape != self.shape {
            self.shape = shape;
            lines.clear();
            lines.extend(header_lines(&self.table, &self.shape, palette).into_iter().map(|l| truncate_line(l, width)));
            let kept = Rows { columns, cells: Vec::new(), rows: std::mem::take(&mut self.kept) };
            self.lay_out(text, &kept, lines, width, palette);
            self.kept = kept.rows;
            self.frozen = lines.len();
        }
        lines.truncate(self.frozen);
        let heights = self.lay_out(text, &rows, lines, width, palette);
        lines.extend(layout(&after, width, palette));
        self.keep(body, after.is_empty(), rows.rows, &heights, ended_natural);
        true
    }

    /// Appends the lines of `rows` at the current shape, cut to `width` when the columns do
    /// not fit it; returns how many lines each row took.
    fn lay_out(
        &self,
        text: &str,
        rows: &Rows<'_>,
        lines: &mut Vec<Line<'static>>,
        width: usize,
        palette: Palette,
    ) -> Vec<usize> {
        let columns = rows.columns;
        let fits = self.shape.width() <= width;
        let mut cells = rows.cells.chunks_exact(columns.max(1));
        let mut split = Vec::with_capacity(columns);
        let mut heights = Vec::with_capacity(rows.rows.len());
        for row in &rows.rows {
            let before = lines.len();
            match row {
                Row::Plain(range) => {
                    let row = match cells.next() {
                        Some(row) => row,
                        None => {
                            split.clear();
                            plain_row::split(text.get(range.clone()).unwrap_or(""), columns, &mut split);
                            &split[..]
                        }
                    };
                    push_plain_row(lines, row, &self.shape, palette);
                }
                Row::Parsed(cells) => push_row(lines, cells, &self.shape, palette),
            }
            if !fits {
                for line in &mut lines[before..] {
                    *line = truncate_line(std::mem::take(line), width);
                }
            }
            heights.push(lines.len() - before);
        }
        heights
    }

    /// Keeps the complete rows of `body` (the tail from `cut`), laid out in `heights` lines
    /// each, when the render is the table `alone` and every complete line is one of its rows;
    /// `natural` is the widths over the header, the kept rows and those.
    fn keep(&mut self, body: Body<'_>, alone: bool, mut rows: Vec<Row>, heights: &[usize], natural: Vec<usize>) {
        let complete = &body.text[..body.complete];
        let lines = memchr::memchr_iter(b'\n', complete.as_bytes()).count();
        if !alone || rows.len() != lines + usize::from(body.partial) || lines == 0 || !is_clean(complete) {
            return;
        }
        rows.truncate(lines);
        self.kept.append(&mut rows);
        self.natural = natural;
        self.frozen += heights[..lines].iter().sum::<usize>();
        self.cut += body.complete;
    }
}

/// The tail from the first row not kept: its complete lines, and whether a line is still
/// arriving after them.
#[derive(Clone, Copy)]
struct Body<'a> {
    text: &'a str,
    /// Bytes of its complete lines.
    complete: usize,
    /// Something other than white space follows the last newline.
    partial: bool,
}

impl<'a> Body<'a> {
    fn of(text: &'a str) -> Self {
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        Body { text, complete, partial: !text[complete..].trim().is_empty() }
    }

    /// How many of `rows` (parsed from it) ended: all but the last when a line is arriving.
    fn ended(&self, rows: &[Row]) -> usize {
        rows.len() - usize::from(self.partial && !rows.is_empty())
    }
}

impl Rows<'_> {
    /// Grows `natural` to fit the rows at `which`.
    fn widen(&self, natural: &mut Vec<usize>, which: Range<usize>) {
        let columns = self.columns;
        for i in which {
            match &self.rows[i] {
                Row::Plain(_) => {
                    if natural.len() < columns {
                        natural.resize(columns, 1);
                    }
                    let cells = self.cells.get(i * columns..(i + 1) * columns).unwrap_or(&[]);
                    for (n, cell) in natural.iter_mut().zip(cells) {
                        *n = (*n).max(cell.len());
                    }
                }
                Row::Parsed(cells) => widen(natural, [cells]),
            }
        }
    }
}
