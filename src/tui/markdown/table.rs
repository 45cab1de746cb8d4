//! Lays out a Markdown table in aligned columns with box-drawing separators: columns sized to
//! their content, shrunk (widest first) to fit the width, cells wrapped inside their column.
//! Owns column sizing and cell alignment only; it must not parse Markdown.

use pulldown_cmark::Alignment;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::render::Table;
use super::style::Palette;
use crate::tui::wrap::{spans_width, wrap_spans};

const SEPARATOR: &str = " │ ";
const CROSS: &str = "─┼─";

/// Lines of `table` for `width` columns (the caller truncates if even one column per cell
/// cannot fit).
pub(crate) fn layout_table(table: &Table, width: usize, palette: Palette) -> Vec<Line<'static>> {
    let columns = table.rows.iter().map(Vec::len).chain([table.header.len(), table.aligns.len()]).max().unwrap_or(0);
    if columns == 0 {
        return Vec::new();
    }
    let mut natural = vec![1usize; columns];
    for row in std::iter::once(&table.header).chain(&table.rows) {
        for (c, cell) in row.iter().enumerate() {
            natural[c] = natural[c].max(spans_width(cell));
        }
    }
    let overhead = SEPARATOR.width() * (columns - 1);
    let widths = fit(&natural, width.saturating_sub(overhead));
    let aligns: Vec<Alignment> =
        (0..columns).map(|c| table.aligns.get(c).copied().unwrap_or(Alignment::None)).collect();

    let mut lines = Vec::new();
    if !table.header.is_empty() {
        let header: Vec<Vec<Span<'static>>> = table
            .header
            .iter()
            .map(|cell| {
                cell.iter().map(|s| Span::styled(s.content.clone(), s.style.patch(palette.table_header()))).collect()
            })
            .collect();
        push_row(&mut lines, &header, &widths, &aligns, palette);
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        lines.push(Line::from(Span::styled(rule.join(CROSS), palette.dim())));
    }
    for row in &table.rows {
        push_row(&mut lines, row, &widths, &aligns, palette);
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

fn push_row(
    lines: &mut Vec<Line<'static>>,
    row: &[Vec<Span<'static>>],
    widths: &[usize],
    aligns: &[Alignment],
    palette: Palette,
) {
    let empty = Vec::new();
    let cells: Vec<Vec<Vec<Span<'static>>>> =
        widths.iter().enumerate().map(|(c, &w)| wrap_spans(row.get(c).unwrap_or(&empty), w)).collect();
    let height = cells.iter().map(Vec::len).max().unwrap_or(1);
    let last = widths.len().saturating_sub(1);
    for i in 0..height {
        let mut spans = Vec::new();
        for (c, &width) in widths.iter().enumerate() {
            if c > 0 {
                spans.push(Span::styled(SEPARATOR, palette.dim()));
            }
            let content = cells[c].get(i).cloned().unwrap_or_default();
            let pad = width.saturating_sub(spans_width(&content));
            let (left, right) = match aligns[c] {
                Alignment::Right => (pad, 0),
                Alignment::Center => (pad / 2, pad - pad / 2),
                Alignment::Left | Alignment::None => (0, if c == last { 0 } else { pad }),
            };
            if left > 0 {
                spans.push(Span::raw(" ".repeat(left)));
            }
            spans.extend(content);
            if right > 0 {
                spans.push(Span::raw(" ".repeat(right)));
            }
        }
        lines.push(Line::from(spans));
    }
}

#[cfg(test)]
mod tests {
    use super::fit;

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
