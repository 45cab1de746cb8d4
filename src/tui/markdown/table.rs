//! Lays out a Markdown table in aligned columns with box-drawing separators: columns sized to
//! their content, shrunk (widest first) to fit the width, cells wrapped inside their column.
//! Owns column sizing and cell alignment only; it must not parse Markdown.

use pulldown_cmark::Alignment;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::nodes::Table;
use super::style::{spaces, Palette};
use crate::tui::wrap::{push_fitting, spans_width, wrap_spans};

const SEPARATOR: &str = " │ ";
const CROSS: &str = "─┼─";

/// Lines of `table` for `width` columns (the caller truncates if even one column per cell
/// cannot fit).
pub(crate) fn layout_table(table: &Table, width: usize, palette: Palette) -> Vec<Line<'static>> {
    let natural = natural_widths(table);
    if natural.is_empty() {
        return Vec::new();
    }
    let shape = Shape::new(table, &natural, width);
    let mut lines = header_lines(table, &shape, palette);
    for row in &table.rows {
        push_row(&mut lines, row, &shape, palette);
    }
    lines
}

/// Widest cell of each column (at least 1), over the header and every row.
pub(crate) fn natural_widths(table: &Table) -> Vec<usize> {
    let columns = table.rows.iter().map(Vec::len).chain([table.header.len(), table.aligns.len()]).max().unwrap_or(0);
    let mut natural = vec![1usize; columns];
    widen(&mut natural, std::iter::once(&table.header).chain(&table.rows));
    natural
}

/// Grows `natural` (one entry per column, more when a row has more cells) to fit `rows`.
pub(crate) fn widen<'a>(natural: &mut Vec<usize>, rows: impl IntoIterator<Item = &'a Vec<Vec<Span<'static>>>>) {
    for row in rows {
        if row.len() > natural.len() {
            natural.resize(row.len(), 1);
        }
        for (c, cell) in row.iter().enumerate() {
            natural[c] = natural[c].max(spans_width(cell));
        }
    }
}

/// Column widths and alignments of a table laid out at one width.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shape {
    pub widths: Vec<usize>,
    aligns: Vec<Alignment>,
}

impl Shape {
    /// The shape for columns of `natural` widths (not empty) in `width` columns.
    pub(crate) fn new(table: &Table, natural: &[usize], width: usize) -> Self {
        let overhead = SEPARATOR.width() * (natural.len() - 1);
        let widths = fit(natural, width.saturating_sub(overhead));
        let aligns = (0..natural.len()).map(|c| table.aligns.get(c).copied().unwrap_or(Alignment::None)).collect();
        Shape { widths, aligns }
    }

    /// Columns a line of this shape takes at most: its columns and the separators between.
    /// A row's lines (cells wrapped to their column, padded to it) are never wider.
    pub(crate) fn width(&self) -> usize {
        self.widths.iter().sum::<usize>() + SEPARATOR.width() * self.widths.len().saturating_sub(1)
    }
}

/// The header row and the rule under it (nothing when the table has no header).
pub(crate) fn header_lines(table: &Table, shape: &Shape, palette: Palette) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if !table.header.is_empty() {
        let header: Vec<Vec<Span<'static>>> = table
            .header
            .iter()
            .map(|cell| {
                cell.iter().map(|s| Span::styled(s.content.clone(), s.style.patch(palette.table_header()))).collect()
            })
            .collect();
        push_row(&mut lines, &header, shape, palette);
        let rule: Vec<String> = shape.widths.iter().map(|w| "─".repeat(*w)).collect();
        lines.push(Line::from(Span::styled(rule.join(CROSS), palette.dim())));
    }
    lines
}

/// Column widths: natural widths when they fit, else every column capped at the largest cap
/// that fits, with the columns that were cut sharing what is left over.
fn fit(natural: &[usize], available: usize) -> Vec<usize> {
    let total: usize = natural.iter().sum();
    if total <= available {
        return natural.to_vec();
    }
    let capped = |cap: usize| natural.iter().map(|&n| n.min(cap)).sum::<usize>();
    let (mut low, mut high) = (1usize, natural.iter().copied().max().unwrap_or(1));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if capped(mid) <= available {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let mut widths: Vec<usize> = natural.iter().map(|&n| n.min(low)).collect();
    let mut spare = available.saturating_sub(widths.iter().sum());
    for (w, &n) in widths.iter_mut().zip(natural) {
        if spare > 0 && n > *w {
            *w += 1;
            spare -= 1;
        }
    }
    widths
}

/// Appends the lines of one body row.
pub(crate) fn push_row(lines: &mut Vec<Line<'static>>, row: &[Vec<Span<'static>>], shape: &Shape, palette: Palette) {
    match one_line(row, shape, palette) {
        Some(line) => lines.push(line),
        None => push_wrapped(lines, row, shape, palette),
    }
}

/// `push_row` for a row of plain cells (`plain_row`: each one unstyled span of printable
/// ASCII without leading or trailing spaces), built straight from their text.
pub(crate) fn push_plain_row(lines: &mut Vec<Line<'static>>, cells: &[&str], shape: &Shape, palette: Palette) {
    let line = one_line_of(shape, palette, |c, width, spans| {
        let cell = cells.get(c).copied().unwrap_or("");
        if cell.len() > width.max(1) {
            return None;
        }
        if !cell.is_empty() {
            spans.push(Span::raw(cell.to_string()));
        }
        Some(cell.len())
    });
    match line {
        Some(line) => lines.push(line),
        None => {
            let row: Vec<Vec<Span<'static>>> = cells.iter().map(|cell| vec![Span::raw(cell.to_string())]).collect();
            push_wrapped(lines, &row, shape, palette);
        }
    }
}

/// `push_row` for a row with a cell that does not fit as it is: each cell wrapped into lines.
fn push_wrapped(lines: &mut Vec<Line<'static>>, row: &[Vec<Span<'static>>], shape: &Shape, palette: Palette) {
    let (widths, aligns) = (&shape.widths, &shape.aligns);
    let empty = Vec::new();
    let mut cells: Vec<Vec<Vec<Span<'static>>>> =
        widths.iter().enumerate().map(|(c, &w)| wrap_spans(row.get(c).unwrap_or(&empty), w)).collect();
    let height = cells.iter().map(Vec::len).max().unwrap_or(1);
    let last = widths.len().saturating_sub(1);
    for i in 0..height {
        // A separator, a cell's span and its padding on each side, per column.
        let mut spans = Vec::with_capacity(4 * widths.len());
        for (c, &width) in widths.iter().enumerate() {
            if c > 0 {
                spans.push(Span::styled(SEPARATOR, palette.dim()));
            }
            let content = cells[c].get_mut(i).map(std::mem::take).unwrap_or_default();
            let (left, right) = pads(aligns[c], width.saturating_sub(spans_width(&content)), c == last);
            if left > 0 {
                spans.push(padding(left));
            }
            spans.extend(content);
            if right > 0 {
                spans.push(padding(right));
            }
        }
        lines.push(Line::from(spans));
    }
}

/// The row as `push_row` lays it out when every cell fits its column as it is (most rows: one
/// line), its cells copied straight into the line instead of wrapped into lines first.
fn one_line(row: &[Vec<Span<'static>>], shape: &Shape, palette: Palette) -> Option<Line<'static>> {
    one_line_of(shape, palette, |c, width, spans| push_fitting(row.get(c).map_or(&[][..], Vec::as_slice), width, spans))
}

/// A row as one line: per column a separator (after the first), then what `cell(column,
/// width, spans)` appends, padded to the column by its alignment; `cell` returns the columns
/// it took, or `None` when the cell does not fit (then there is no one line).
fn one_line_of(
    shape: &Shape,
    palette: Palette,
    mut cell: impl FnMut(usize, usize, &mut Vec<Span<'static>>) -> Option<usize>,
) -> Option<Line<'static>> {
    let (widths, aligns) = (&shape.widths, &shape.aligns);
    let last = widths.len().saturating_sub(1);
    let mut spans = Vec::with_capacity(4 * widths.len());
    for (c, &width) in widths.iter().enumerate() {
        if c > 0 {
            spans.push(Span::styled(SEPARATOR, palette.dim()));
        }
        let at = spans.len();
        let used = cell(c, width, &mut spans)?;
        let (left, right) = pads(aligns[c], width.saturating_sub(used), c == last);
        if left > 0 {
            spans.insert(at, padding(left));
        }
        if right > 0 {
            spans.push(padding(right));
        }
    }
    Some(Line::from(spans))
}

/// The spaces before and after a cell `pad` columns narrower than its column (none after the
/// last column's left-aligned text).
fn pads(align: Alignment, pad: usize, last: bool) -> (usize, usize) {
    match align {
        Alignment::Right => (pad, 0),
        Alignment::Center => (pad / 2, pad - pad / 2),
        Alignment::Left | Alignment::None => (0, if last { 0 } else { pad }),
    }
}

/// `n` spaces of padding.
fn padding(n: usize) -> Span<'static> {
    Span::raw(spaces(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::markdown::style::RenderOptions;
    use ratatui::style::{Modifier, Style};

    #[test]
    fn a_row_laid_out_as_one_line_is_the_row_wrapped() {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let cell = |parts: &[(&str, Style)]| -> Vec<Span<'static>> {
            parts.iter().map(|(text, style)| Span::styled(text.to_string(), *style)).collect()
        };
        let plain = Style::new();
        let cells = [
            cell(&[]),
            cell(&[("", plain)]),
            cell(&[("7", plain)]),
            cell(&[("a cell", plain)]),
            cell(&[("a ", plain), ("bold", bold), (" word", plain)]),
            cell(&[("same ", bold), ("style", bold)]),
            cell(&[(" leading", plain)]),
            cell(&[("trailing ", plain)]),
            cell(&[("a\ttab", plain)]),
            cell(&[("é✓🦀", plain)]),
            cell(&[("a cell much wider than any column here", plain)]),
        ];
        let aligns = [Alignment::None, Alignment::Left, Alignment::Right, Alignment::Center];
        let palette = Palette::new(RenderOptions::default());
        let mut one_lines = 0;
        for widths in [vec![0, 1, 3], vec![6, 12, 9], vec![40, 2], vec![]] {
            for (a, b) in (0..cells.len()).flat_map(|a| (0..cells.len()).map(move |b| (a, b))) {
                let row = vec![cells[a].clone(), cells[b].clone()];
                let shape =
                    Shape { widths: widths.clone(), aligns: (0..widths.len()).map(|c| aligns[(a + c) % 4]).collect() };
                let mut wrapped = Vec::new();
                push_wrapped(&mut wrapped, &row, &shape, palette);
                if let Some(line) = one_line(&row, &shape, palette) {
                    one_lines += 1;
                    assert_eq!(vec![line], wrapped, "row {a}, {b} at widths {widths:?}");
                }
            }
        }
        assert!(one_lines > 100, "only {one_lines} rows took the one-line way");
    }

    #[test]
    fn a_plain_row_is_laid_out_as_its_cells_are() {
        let cells = ["7", "a cell", "a b c d e f", "a cell much wider than any column here"];
        let aligns = [Alignment::None, Alignment::Left, Alignment::Right, Alignment::Center];
        let palette = Palette::new(RenderOptions::default());
        for widths in [vec![0, 1, 3], vec![6, 12, 9], vec![40, 2], vec![5, 5, 5, 50]] {
            for a in 0..cells.len() {
                let row: Vec<&str> = (0..widths.len().min(3)).map(|c| cells[(a + c) % cells.len()]).collect();
                let shape =
                    Shape { widths: widths.clone(), aligns: (0..widths.len()).map(|c| aligns[(a + c) % 4]).collect() };
                let spans: Vec<Vec<Span<'static>>> = row.iter().map(|c| vec![Span::raw(c.to_string())]).collect();
                let (mut plain, mut parsed) = (Vec::new(), Vec::new());
                push_plain_row(&mut plain, &row, &shape, palette);
                push_row(&mut parsed, &spans, &shape, palette);
                assert_eq!(plain, parsed, "{row:?} at widths {widths:?}");
            }
        }
    }

    #[test]
    fn natural_widths_are_kept_when_they_fit() {
        assert_eq!(fit(&[3, 5, 2], 20), [3, 5, 2]);
    }

    #[test]
    fn the_widest_columns_shrink_first() {
        assert_eq!(fit(&[3, 40, 30], 23), [3, 10, 10]);
        assert_eq!(fit(&[3, 40, 30], 24), [3, 11, 10]);
    }
}
