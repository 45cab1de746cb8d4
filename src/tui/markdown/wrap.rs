//! Word wrapping and truncation of styled text by display width (unicode-width), safe for
//! wide CJK and emoji characters. Owns only measuring and breaking spans; it must not know
//! about Markdown. No output line is ever wider than the width it was given (width >= 1).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of a line as ratatui measures it (sum of its spans).
pub fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| s.content.width()).sum()
}

pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| s.content.width()).sum()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Space,
    Break,
}

fn class(c: char) -> Class {
    match c {
        '\n' => Class::Break,
        ' ' | '\t' => Class::Space,
        _ => Class::Word,
    }
}

/// One run of the same class: styled pieces (a word may span several styles).
struct Token {
    class: Class,
    pieces: Vec<(Style, String)>,
}

fn tokens(spans: &[Span<'_>]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    for span in spans {
        for c in span.content.chars() {
            let cls = class(c);
            let c = if c == '\t' { ' ' } else { c };
            match out.last_mut() {
                Some(tok) if tok.class == cls && cls != Class::Break => match tok.pieces.last_mut() {
                    Some((style, text)) if *style == span.style => text.push(c),
                    _ => tok.pieces.push((span.style, c.to_string())),
                },
                _ => out.push(Token { class: cls, pieces: vec![(span.style, c.to_string())] }),
            }
        }
    }
    out
}

fn pieces_width(pieces: &[(Style, String)]) -> usize {
    pieces.iter().map(|(_, t)| t.width()).sum()
}

/// Lines being built, with merging of same-styled neighbours.
struct Builder {
    width: usize,
    lines: Vec<Vec<Span<'static>>>,
    current: Vec<Span<'static>>,
    used: usize,
    /// The current line started at a hard break (or the start), so leading spaces are kept.
    hard_start: bool,
}

impl Builder {
    fn push(&mut self, style: Style, text: &str) {
        if text.is_empty() {
            return;
        }
        self.used += text.width();
        match self.current.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.current.push(Span::styled(text.to_string(), style)),
        }
    }

    fn end_line(&mut self, hard: bool) {
        self.lines.push(std::mem::take(&mut self.current));
        self.used = 0;
        self.hard_start = hard;
    }

    fn room(&self) -> usize {
        self.width.saturating_sub(self.used)
    }

    /// Places a word longer than the remaining room, breaking it between characters.
    fn push_broken(&mut self, pieces: &[(Style, String)]) {
        for (style, text) in pieces {
            let mut chunk = String::new();
            let mut chunk_width = 0;
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                if chunk_width + w > self.room() {
                    self.push(*style, &chunk);
                    chunk.clear();
                    chunk_width = 0;
                    if self.used > 0 {
                        self.end_line(false);
                    }
                    if w > self.width {
                        // A wide character in a one-column area: show a narrow stand-in.
                        self.push(*style, "\u{fffd}");
                        continue;
                    }
                }
                chunk.push(c);
                chunk_width += w;
            }
            self.push(*style, &chunk);
        }
    }
}

/// Wraps styled text at `width` columns, breaking at spaces; words longer than a line are
/// broken between characters. A `\n` in the text is a hard break. Spaces at a soft break are
/// dropped; leading spaces of the text and after a hard break are kept (code indentation).
/// Always returns at least one (possibly empty) line.
pub fn wrap(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    let width = width.max(1);
    let mut b = Builder { width, lines: Vec::new(), current: Vec::new(), used: 0, hard_start: true };
    let mut pending_space: Option<Vec<(Style, String)>> = None;
    for tok in tokens(spans) {
        match tok.class {
            Class::Break => {
                pending_space = None;
                b.end_line(true);
            }
            Class::Space => {
                if b.used == 0 && b.hard_start {
                    // Indentation: keep what fits.
                    let indent = truncate_pieces(&tok.pieces, width.saturating_sub(1));
                    for (style, text) in &indent {
                        b.push(*style, text);
                    }
                } else {
                    pending_space = Some(tok.pieces);
                }
            }
            Class::Word => {
                let word_width = pieces_width(&tok.pieces);
                let space = pending_space.take().filter(|_| b.used > 0);
                let space_width = space.as_deref().map_or(0, pieces_width);
                if space_width + word_width <= b.room() {
                    for (style, text) in space.iter().flatten().chain(tok.pieces.iter()) {
                        b.push(*style, text);
                    }
                } else if word_width <= width {
                    b.end_line(false);
                    for (style, text) in &tok.pieces {
                        b.push(*style, text);
                    }
                } else {
                    if space_width < b.room() {
                        for (style, text) in space.iter().flatten() {
                            b.push(*style, text);
                        }
                    } else if b.used > 0 {
                        b.end_line(false);
                    }
                    b.push_broken(&tok.pieces);
                }
            }
        }
    }
    b.lines.push(b.current);
    b.lines
}

fn truncate_pieces(pieces: &[(Style, String)], width: usize) -> Vec<(Style, String)> {
    let mut out = Vec::new();
    let mut used = 0;
    for (style, text) in pieces {
        let mut kept = String::new();
        for c in text.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width {
                out.push((*style, kept));
                return out;
            }
            used += w;
            kept.push(c);
        }
        out.push((*style, kept));
    }
    out
}

/// Cuts a line to `width` columns, ending it with `…` when something was cut.
pub fn truncate(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let style = line.style;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let budget = width.saturating_sub(1);
    let mut last_style = Style::new();
    'outer: for span in line.spans {
        last_style = span.style;
        let mut kept = String::new();
        for c in span.content.chars() {
            let mut probe = kept.clone();
            probe.push(c);
            if used + probe.width() > budget {
                if !kept.is_empty() {
                    spans.push(Span::styled(kept, span.style));
                }
                break 'outer;
            }
            kept = probe;
        }
        used += kept.width();
        spans.push(Span::styled(kept, span.style));
    }
    if width > 0 {
        spans.push(Span::styled("…", last_style));
    }
    Line::from(spans).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Vec<Span<'static>>]) -> Vec<String> {
        lines.iter().map(|l| l.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn wraps_at_spaces() {
        let lines = wrap(&[Span::raw("the quick brown fox jumps")], 10);
        assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn breaks_words_longer_than_the_width() {
        let lines = wrap(&[Span::raw("ab abcdefghijkl")], 5);
        assert_eq!(texts(&lines), ["ab ab", "cdefg", "hijkl"]);
    }

    #[test]
    fn wide_characters_never_overflow() {
        let lines = wrap(&[Span::raw("漢字漢字漢字 🎉🎉🎉")], 5);
        assert!(lines.iter().all(|l| spans_width(l) <= 5), "{:?}", texts(&lines));
        assert_eq!(texts(&lines).concat(), "漢字漢字漢字🎉🎉🎉");
    }

    #[test]
    fn keeps_indentation_and_hard_breaks() {
        let lines = wrap(&[Span::raw("  a\n    b")], 20);
        assert_eq!(texts(&lines), ["  a", "    b"]);
    }

    #[test]
    fn styles_survive_wrapping() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let lines = wrap(&[Span::raw("plain "), Span::styled("bold words", bold)], 8);
        assert_eq!(texts(&lines), ["plain", "bold", "words"]);
        assert_eq!(lines[1][0].style, bold);
    }

    #[test]
    fn truncation_ends_with_an_ellipsis() {
        let line = truncate(Line::from("hello world"), 6);
        assert_eq!(line.to_string(), "hello…");
        assert_eq!(truncate(Line::from("漢字漢字"), 4).to_string(), "漢…");
    }
}
