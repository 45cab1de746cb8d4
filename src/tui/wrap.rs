//! The TUI's one word-wrapper: measures, breaks and cuts styled text by display width
//! (unicode-width), safe for wide CJK and emoji characters. Owns `TAB_WIDTH`, the width of a
//! tab wherever the TUI lays out text (Markdown, code, prompts, tool details). `wrap_spans` breaks
//! styled spans (Markdown); `wrap` puts plain text under a prefix (prompts, thinking, tool
//! details, the context panel); `truncate` and `truncate_line` cut one line with `…`. It must
//! not know about Markdown. No line it breaks or cuts is wider than the width it was given
//! (width >= 1), prefixes aside.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

mod ascii;

/// What a tab becomes before text is measured.
const TAB: &str = "    ";
/// Columns a tab takes, wherever the TUI lays out text.
pub const TAB_WIDTH: usize = TAB.len();

/// `text` with each tab replaced by `TAB_WIDTH` spaces (borrowed when it has none).
pub fn expand_tabs(text: &str) -> Cow<'_, str> {
    if text.contains('\t') {
        Cow::Owned(text.replace('\t', TAB))
    } else {
        Cow::Borrowed(text)
    }
}

/// Display width of a line as ratatui measures it (sum of its spans).
pub fn line_width(line: &Line<'_>) -> usize {
    spans_width(&line.spans)
}

pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// `text` is printable ASCII only: each byte is one character one column wide.
pub fn printable_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Columns `text` takes: `UnicodeWidthStr::width`, with printable ASCII (a column a byte)
/// counted without looking each character up (most of what a reply holds; wrapping measures
/// every word).
pub fn str_width(text: &str) -> usize {
    if printable_ascii(text) {
        text.len()
    } else {
        text.width()
    }
}

/// Wraps plain `text` in `style` to `width` columns, the first line after `first`, every later
/// one (continuations and lines after a `\n`) after `rest`, both prefixes in `prefix_style`.
pub fn wrap(text: &str, width: u16, style: Style, first: &str, rest: &str, prefix_style: Style) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let room = |prefix: &str| width.saturating_sub(prefix.width()).max(1);
    let body = wrap_widths(&[Span::styled(text, style)], room(first), room(rest));
    body.into_iter()
        .enumerate()
        .map(|(i, spans)| {
            let prefix = if i == 0 { first } else { rest };
            let mut line = Vec::with_capacity(2);
            if !prefix.is_empty() {
                line.push(Span::styled(prefix.to_string(), prefix_style));
            }
            if spans.is_empty() {
                line.push(Span::styled(String::new(), style));
            }
            line.extend(spans);
            Line::from(line)
        })
        .collect()
}

/// Wraps styled text at `width` columns, breaking at spaces; words longer than a line are
/// broken between characters. A `\n` in the text is a hard break. Spaces at a soft break are
/// dropped; leading spaces of the text and after a hard break are kept (code indentation).
/// Always returns at least one (possibly empty) line.
pub fn wrap_spans(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    wrap_widths(spans, width, width)
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

/// A run of one class inside one span: a piece of a token. Tabs in a space piece are
/// already expanded (the only place a tab can be), so every other piece borrows its span.
struct Piece<'a> {
    class: Class,
    style: Style,
    text: Cow<'a, str>,
}

/// The spans cut into pieces, one allocation for the whole text: a token (a word, a run of
/// spaces, a line break) is a run of neighbouring pieces of one class, a break alone.
fn pieces<'a>(spans: &'a [Span<'_>]) -> Vec<Piece<'a>> {
    let mut out: Vec<Piece<'a>> = Vec::new();
    for span in spans {
        let content: &'a str = span.content.as_ref();
        let mut start = 0;
        let mut current: Option<Class> = None;
        for (i, c) in content.char_indices() {
            let cls = class(c);
            if current != Some(cls) || cls == Class::Break {
                if let Some(class) = current.filter(|_| i > start) {
                    out.push(piece(class, span.style, &content[start..i]));
                }
                start = i;
                current = Some(cls);
            }
        }
        if let Some(class) = current.filter(|_| content.len() > start) {
            out.push(piece(class, span.style, &content[start..]));
        }
    }
    out
}

fn piece(class: Class, style: Style, text: &str) -> Piece<'_> {
    let text = if class == Class::Space { expand_tabs(text) } else { Cow::Borrowed(text) };
    Piece { class, style, text }
}

/// The tokens of `pieces`: each the slice of its pieces.
fn tokens<'p, 'a>(pieces: &'p [Piece<'a>]) -> impl Iterator<Item = &'p [Piece<'a>]> {
    let mut rest = pieces;
    std::iter::from_fn(move || {
        let first = rest.first()?;
        let len =
            if first.class == Class::Break { 1 } else { rest.iter().take_while(|p| p.class == first.class).count() };
        let (token, after) = rest.split_at(len);
        rest = after;
        Some(token)
    })
}

fn pieces_width(pieces: &[Piece<'_>]) -> usize {
    pieces.iter().map(|p| str_width(&p.text)).sum()
}

/// The width of a wrapped text's first line, and of every later one.
#[derive(Clone, Copy)]
struct Widths {
    first: usize,
    rest: usize,
}

impl Widths {
    /// The width of the line after `done` lines.
    fn of(self, done: usize) -> usize {
        if done == 0 {
            self.first
        } else {
            self.rest
        }
    }
}

/// Lines being built, with merging of same-styled neighbours.
struct Builder {
    widths: Widths,
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
        self.used += str_width(text);
        match self.current.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.current.push(Span::styled(text.to_string(), style)),
        }
    }

    fn push_all(&mut self, pieces: &[Piece<'_>]) {
        for piece in pieces {
            self.push(piece.style, &piece.text);
        }
    }

    fn end_line(&mut self, hard: bool) {
        self.lines.push(std::mem::take(&mut self.current));
        self.used = 0;
        self.hard_start = hard;
    }

    /// Width of the line being built.
    fn width(&self) -> usize {
        self.widths.of(self.lines.len())
    }

    fn room(&self) -> usize {
        self.width().saturating_sub(self.used)
    }

    /// Places a word longer than the remaining room, breaking it between characters.
    fn push_broken(&mut self, pieces: &[Piece<'_>]) {
        for piece in pieces {
            let text: &str = &piece.text;
            let (mut start, mut chunk_width) = (0, 0);
            for (i, c) in text.char_indices() {
                let w = c.width().unwrap_or(0);
                if chunk_width + w > self.room() {
                    self.push(piece.style, &text[start..i]);
                    start = i;
                    chunk_width = 0;
                    if self.used > 0 {
                        self.end_line(false);
                    }
                    if w > self.width() {
                        // A wide character in a one-column area: show a narrow stand-in.
                        self.push(piece.style, "\u{fffd}");
                        start = i + c.len_utf8();
                        continue;
                    }
                }
                chunk_width += w;
            }
            self.push(piece.style, &text[start..]);
        }
    }

    /// Leading spaces of a line that started at a hard break: what fits, less one column.
    fn push_indent(&mut self, pieces: &[Piece<'_>]) {
        let width = self.width().saturating_sub(1);
        let mut used = 0;
        for piece in pieces {
            let kept = prefix_within(&piece.text, width - used);
            used += str_width(kept);
            self.push(piece.style, kept);
            if kept.len() < piece.text.len() {
                break;
            }
        }
    }
}

/// `wrap_spans` with a first line `first` columns wide and later lines `rest` columns wide.
fn wrap_widths(spans: &[Span<'_>], first: usize, rest: usize) -> Vec<Vec<Span<'static>>> {
    let (first, rest) = (first.max(1), rest.max(1));
    match fits_whole(spans, first) {
        Some(line) => vec![line],
        None => ascii::wrap(spans, first, rest).unwrap_or_else(|| wrap_pieces(spans, first, rest)),
    }
}

/// `wrap_widths` piece by piece (`first` and `rest` at least 1).
fn wrap_pieces(spans: &[Span<'_>], first: usize, rest: usize) -> Vec<Vec<Span<'static>>> {
    let mut b =
        Builder { widths: Widths { first, rest }, lines: Vec::new(), current: Vec::new(), used: 0, hard_start: true };
    let all = pieces(spans);
    let mut pending_space: Option<&[Piece<'_>]> = None;
    for tok in tokens(&all) {
        match tok[0].class {
            Class::Break => {
                pending_space = None;
                b.end_line(true);
            }
            Class::Space => {
                if b.used == 0 && b.hard_start {
                    b.push_indent(tok);
                } else {
                    pending_space = Some(tok);
                }
            }
            Class::Word => {
                let word_width = pieces_width(tok);
                let space = pending_space.take().filter(|_| b.used > 0).unwrap_or(&[]);
                let space_width = pieces_width(space);
                if space_width + word_width <= b.room() {
                    b.push_all(space);
                    b.push_all(tok);
                } else if word_width <= rest && b.used > 0 {
                    b.end_line(false);
                    b.push_all(tok);
                } else {
                    if space_width < b.room() {
                        b.push_all(space);
                    } else if b.used > 0 {
                        b.end_line(false);
                    }
                    b.push_broken(tok);
                }
            }
        }
    }
    b.lines.push(b.current);
    b.lines
}

/// The one line `wrap_widths` makes of `spans` when they fit in `width` as they are, found
/// without cutting them into pieces (most table cells and list items): printable ASCII (a byte
/// a column, no tab or line break), neither starting nor ending with a space (a leading run
/// is measured as an indent, a trailing one dropped), same-styled neighbours merged as the
/// builder merges them.
fn fits_whole(spans: &[Span<'_>], width: usize) -> Option<Vec<Span<'static>>> {
    let mut line = Vec::new();
    push_fitting(spans, width, &mut line).map(|_| line)
}

/// Appends to `out` the one line `wrap_spans(spans, width)` would make, when `spans` fit as
/// they are (see `fits_whole`), and returns its width; `None` (nothing appended) otherwise,
/// when the caller wraps them. For a caller assembling a line of several parts (a table row).
pub fn push_fitting(spans: &[Span<'_>], width: usize, out: &mut Vec<Span<'static>>) -> Option<usize> {
    // Printable ASCII is a column a byte: measured before the text is looked at.
    let columns: usize = spans.iter().map(|span| span.content.len()).sum();
    if columns > width.max(1) || !spans.iter().all(|span| printable_ascii(&span.content)) {
        return None;
    }
    let mut text = spans.iter().map(|span| span.content.as_bytes()).filter(|bytes| !bytes.is_empty());
    let starts_with_space = text.clone().next().is_some_and(|bytes| bytes[0] == b' ');
    let ends_with_space = text.next_back().is_some_and(|bytes| bytes[bytes.len() - 1] == b' ');
    if starts_with_space || ends_with_space {
        return None;
    }
    let start = out.len();
    for span in spans.iter().filter(|span| !span.content.is_empty()) {
        // Merged only into a span of this line, never into what `out` held before.
        let ours = out.len() > start;
        match out.last_mut() {
            Some(last) if ours && last.style == span.style => last.content.to_mut().push_str(&span.content),
            _ => out.push(Span::styled(span.content.to_string(), span.style)),
        }
    }
    Some(columns)
}

/// Cuts plain `text` (tabs expanded) to `width` columns, ending it with `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    truncate_line(Line::raw(expand_tabs(text).into_owned()), width).to_string()
}

/// Cuts a line to `width` columns, ending it with `…` when something was cut.
pub fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let style = line.style;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    let budget = width.saturating_sub(1);
    let mut last_style = Style::new();
    for span in line.spans {
        last_style = span.style;
        let span_width = str_width(&span.content);
        if used + span_width <= budget {
            used += span_width;
            spans.push(span);
            continue;
        }
        let kept = prefix_within(&span.content, budget - used);
        if !kept.is_empty() {
            spans.push(Span::styled(kept.to_string(), span.style));
        }
        break;
    }
    if width > 0 {
        spans.push(Span::styled("…", last_style));
    }
    Line::from(spans).style(style)
}

/// The longest prefix of `text` (on a character boundary) at most `room` columns wide as the
/// whole string measures it. Character widths find the cut in one pass; the string's own width,
/// which can be wider for emoji sequences, then moves it back where needed.
fn prefix_within(text: &str, room: usize) -> &str {
    let mut end = 0;
    let mut sum = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if sum + w > room {
            break;
        }
        sum += w;
        end = i + c.len_utf8();
    }
    while end > 0 && str_width(&text[..end]) > room {
        end = text[..end].char_indices().next_back().map_or(0, |(i, _)| i);
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Vec<Span<'static>>]) -> Vec<String> {
        lines.iter().map(|l| l.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    fn line_texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn wraps_at_spaces() {
        let lines = wrap_spans(&[Span::raw("the quick brown fox jumps")], 10);
        assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps"]);
    }

    #[test]
    fn breaks_words_longer_than_the_width() {
        let lines = wrap_spans(&[Span::raw("ab abcdefghijkl")], 5);
        assert_eq!(texts(&lines), ["ab ab", "cdefg", "hijkl"]);
    }

    #[test]
    fn wide_characters_never_overflow() {
        let lines = wrap_spans(&[Span::raw("漢字漢字漢字 🎉🎉🎉")], 5);
        assert!(lines.iter().all(|l| spans_width(l) <= 5), "{:?}", texts(&lines));
        assert_eq!(texts(&lines).concat(), "漢字漢字漢字🎉🎉🎉");
        for line in wrap("日本語のテキストです", 7, Style::default(), "", "", Style::default()) {
            assert!(line.width() <= 7);
        }
        for line in wrap("日本語", 1, Style::default(), "", "", Style::default()) {
            assert!(line.width() <= 1);
        }
    }

    #[test]
    fn keeps_indentation_and_hard_breaks() {
        let lines = wrap_spans(&[Span::raw("  a\n    b")], 20);
        assert_eq!(texts(&lines), ["  a", "    b"]);
    }

    #[test]
    fn a_tab_is_tab_width_columns_in_every_wrapper() {
        let tab = " ".repeat(TAB_WIDTH);
        assert_eq!(texts(&wrap_spans(&[Span::raw("\tx")], 20)), [format!("{tab}x")]);
        let plain = wrap("\tx", 20, Style::default(), "", "", Style::default());
        assert_eq!(line_texts(&plain), [format!("{tab}x")]);
        assert_eq!(truncate("\tx", 20), format!("{tab}x"));
        assert_eq!(expand_tabs("a\tb"), format!("a{tab}b"));
    }

    #[test]
    fn styles_survive_wrapping() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let lines = wrap_spans(&[Span::raw("plain "), Span::styled("bold words", bold)], 8);
        assert_eq!(texts(&lines), ["plain", "bold", "words"]);
        assert_eq!(lines[1][0].style, bold);
    }

    #[test]
    fn plain_text_goes_under_its_prefixes() {
        let lines = wrap("the quick brown fox jumps", 11, Style::default(), "> ", "  ", Style::default());
        assert_eq!(line_texts(&lines), ["> the quick", "  brown fox", "  jumps"]);
        let lines = wrap("abcdefghijkl", 5, Style::default(), "> ", "  ", Style::default());
        assert_eq!(line_texts(&lines), ["> abc", "  def", "  ghi", "  jkl"]);
        let lines = wrap("aaa bbb ccc", 7, Style::default(), "  ", "    ", Style::default());
        assert_eq!(line_texts(&lines), ["  aaa", "    bbb", "    ccc"]);
        let lines = wrap("a\n\nb", 7, Style::default(), "› ", "  ", Style::default());
        assert_eq!(line_texts(&lines), ["› a", "  ", "  b"]);
    }

    #[test]
    fn truncation_ends_with_an_ellipsis() {
        assert_eq!(truncate_line(Line::from("hello world"), 6).to_string(), "hello…");
        assert_eq!(truncate_line(Line::from("漢字漢字"), 4).to_string(), "漢…");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hi", 6), "hi");
        assert_eq!(truncate("hello", 0), "");
        let emoji = "❤\u{fe0f}❤\u{fe0f}❤\u{fe0f}";
        assert!(truncate(emoji, 4).width() <= 4, "{}", truncate(emoji, 4));
    }

    proptest::proptest! {
        /// The short cut for text that fits gives what wrapping it piece by piece gives.
        #[test]
        fn text_that_fits_wraps_as_it_would_piece_by_piece(
            parts in proptest::collection::vec(("[ -~]{0,12}|[ a\t]{0,3}|漢字 ", proptest::bool::ANY), 0..6),
            width in 1usize..40,
        ) {
            let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
            let spans: Vec<Span> =
                parts.iter().map(|(text, b)| Span::styled(text.clone(), if *b { bold } else { Style::new() })).collect();
            let pieces = wrap_pieces(&spans, width, width);
            if let Some(line) = fits_whole(&spans, width) {
                proptest::prop_assert_eq!(vec![line], pieces);
            }
        }

        /// The ASCII way gives what wrapping piece by piece gives: any printable ASCII with
        /// line breaks, runs of spaces and long words, in three styles, at any two widths.
        #[test]
        fn ascii_text_wraps_as_it_would_piece_by_piece(
            parts in proptest::collection::vec(("[ -~]{0,12}|[ a\n]{0,4}|[a-z]{8,30}| {2,9}", 0u8..3), 0..10),
            first in 1usize..30,
            rest in 1usize..30,
        ) {
            let styles = [Style::new(), Style::new().add_modifier(ratatui::style::Modifier::BOLD), Style::new().fg(ratatui::style::Color::Red)];
            let spans: Vec<Span> =
                parts.iter().map(|(text, s)| Span::styled(text.clone(), styles[usize::from(*s)])).collect();
            let ascii = super::ascii::wrap(&spans, first, rest);
            proptest::prop_assert!(ascii.is_some());
            proptest::prop_assert_eq!(ascii, Some(wrap_pieces(&spans, first, rest)));
        }

        #[test]
        fn str_width_is_the_unicode_width(text in "[ -~]{0,20}|[ -~漢字🎉é\u{301}\t\u{7}\u{fe0f}]{0,12}") {
            proptest::prop_assert_eq!(str_width(&text), text.width());
        }
    }
}
