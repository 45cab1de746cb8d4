//! `set_line`: ratatui's `Buffer::set_line`, with text of one-column characters (printable
//! ASCII, and the box-drawing and punctuation symbols our panes and tables draw) written a
//! character a cell instead of through Unicode grapheme segmentation (which was ~7% of the UI
//! thread's CPU while a reply streamed: every visible row is written on every frame, and a
//! table row's separators took ratatui's path). Any other text takes ratatui's path, so the
//! cells are the same either way.

use ratatui::buffer::Buffer;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::tui::wrap::printable_ascii;

/// Writes `line` at (`x`, `y`), at most `max_width` columns, as `Buffer::set_line` does;
/// returns where it stopped.
pub fn set_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, max_width: u16) -> (u16, u16) {
    let mut remaining = max_width;
    let mut x = x;
    for span in line {
        if remaining == 0 {
            break;
        }
        let text = span.content.as_ref();
        let style = line.style.patch(span.style);
        let inside = y < buf.area.bottom() && y >= buf.area.top();
        let room = usize::from(buf.area.right().saturating_sub(x).min(remaining));
        let end = if inside && printable_ascii(text) {
            // Each byte is one grapheme one column wide.
            put(buf, x, y, (0..text.len().min(room)).map(|at| &text[at..at + 1]), style)
        } else if inside && text.chars().all(one_column) {
            // Each character is one grapheme one column wide.
            put(buf, x, y, text.char_indices().take(room).map(|(at, c)| &text[at..at + c.len_utf8()]), style)
        } else {
            buf.set_stringn(x, y, text, usize::from(remaining), style).0
        };
        remaining = remaining.saturating_sub(end.saturating_sub(x));
        x = end;
    }
    (x, y)
}

/// Writes `symbols` (each one cell wide) from (`x`, `y`) on in `style`; returns where it
/// stopped.
fn put<'a>(buf: &mut Buffer, x: u16, y: u16, symbols: impl Iterator<Item = &'a str>, style: Style) -> u16 {
    // The caller keeps the symbols inside the row, so the row's cells are one slice.
    if x >= buf.area.right() {
        return x;
    }
    let start = buf.index_of(x, y);
    let row = buf.content.get_mut(start..).unwrap_or_default();
    let mut end = x;
    for (cell, symbol) in row.iter_mut().zip(symbols) {
        cell.set_symbol(symbol).set_style(style);
        end += 1;
    }
    end
}

/// A character that is a grapheme of its own, one column wide, whatever surrounds it:
/// printable ASCII, and the symbols the panes and tables draw (box drawing, block elements,
/// and a few punctuation marks and arrows). None of them joins a neighbour into a grapheme.
fn one_column(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{2500}'..='\u{259f}' | '…' | '•' | '·' | '←' | '↑' | '→' | '↓' | '⏎' | '✓' | '✗')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::text::Span;

    fn span() -> impl Strategy<Value = Span<'static>> {
        let text = prop_oneof![
            "[ -~]{0,12}",
            "[a-z漢字🎉é\u{301}\t\u{7}]{0,6}",
            "[ a-z│─┼┊█▏…•·←↑→↓⏎✓✗]{0,10}",
            "[a│─…\u{301}\u{200d}\u{fe0f}漢]{0,6}",
            Just(String::new())
        ];
        let style = prop_oneof![
            Just(Style::default()),
            Just(Style::default().fg(Color::Red)),
            Just(Style::default().add_modifier(Modifier::BOLD).bg(Color::Blue)),
        ];
        (text, style).prop_map(|(text, style)| Span::styled(text, style))
    }

    proptest! {
        #[test]
        fn writes_the_cells_ratatui_writes(
            spans in prop::collection::vec(span(), 0..6),
            x in 0u16..14,
            y in 0u16..4,
            max in 0u16..20,
            underlined in any::<bool>(),
        ) {
            let mut line = Line::from(spans);
            if underlined {
                line = line.style(Style::default().add_modifier(Modifier::UNDERLINED));
            }
            let area = Rect::new(1, 0, 14, 3);
            let mut ours = Buffer::empty(area);
            let mut theirs = Buffer::empty(area);
            for buf in [&mut ours, &mut theirs] {
                buf.set_string(1, 1, "underneath text", Style::default().fg(Color::Green));
            }
            let at = (x.max(1), y.min(2));
            let end = set_line(&mut ours, at.0, at.1, &line, max);
            prop_assert_eq!(end, theirs.set_line(at.0, at.1, &line, max));
            prop_assert_eq!(ours, theirs);
        }
    }
}
