//! An open block that is one long paragraph (or one long line): the wrapped lines before the
//! last safe break are kept, with the unfinished line they end in (`carry`), and a frame
//! parses and wraps only the text after that break. Owns when a break is safe; it must not
//! wrap or parse by itself (`wrap_spans`, `parse`).
//!
//! A break is a line start, or the start of a run of spaces inside a long line. The text
//! after it (`rest`) is parsed behind a stand-in "x" ("x\n" for a line start), so it reads as
//! the continuation it is; the "x" is then dropped and the spans follow the carry, one space
//! between them as the soft break or the spaces give. The wrapper is greedy, so lines before
//! the carry never change. The text before a break is kept only when nothing in it can still
//! pair with what follows (`inline::closed`: no unmatched `*`, `_`, `~`, backtick, `[` or
//! `<`), and every frame checks `rest` for what could reach back: a setext underline or table
//! delimiter line, or a link reference definition. Then the block is rendered whole again.

use ratatui::text::{Line, Span};

use super::inline::closed;
use super::whole::{is_clean, may_define_links, parse_open, LayoutArgs, Parsed};
use crate::tui::markdown::nodes::Node;
use crate::tui::markdown::paint::{paint, CodeMode};
use crate::tui::markdown::parse::{parse_marked, FirstBlock, Marks};
use crate::tui::markdown::style::Palette;
use crate::tui::wrap::{truncate_line, wrap_spans};

/// Bytes of text after the break before a later break is looked for: a frame parses up to
/// about this much again (1024 made one long paragraph cost ~1.7x what 256 does).
const STEP: usize = 256;

pub(crate) struct OpenParagraph {
    /// Bytes of the tail before the break.
    cut: usize,
    /// The break is at a line start (else before a run of spaces).
    line_start: bool,
    /// Lines before the carry.
    frozen: usize,
    /// The unfinished line before the break.
    carry: Vec<Span<'static>>,
    /// Length of `rest` from which the next break is looked for.
    next_try: usize,
}

impl OpenParagraph {
    /// The state for a tail whose whole render (`parsed`) is one paragraph.
    pub(crate) fn start(text: &str, parsed: &Parsed, frame: &LayoutArgs<'_>) -> Option<Self> {
        if parsed.nodes.len() != 1 || may_define_links(text) || reaches_back(text) {
            return None;
        }
        let mut paragraph = OpenParagraph { cut: 0, line_start: true, frozen: 0, carry: Vec::new(), next_try: STEP };
        // The whole render's lines already hold what the break freezes.
        paragraph.advance(text, frame, None);
        Some(paragraph)
    }

    /// How much is kept (0: nothing), for tests.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.frozen
    }

    /// Lays out `text` into `lines` (which hold what the last call left); false when the kept
    /// lines cannot be trusted. The break moves on first, so only the text after it is parsed
    /// here: each byte is parsed about once on its way into the kept lines, not once more
    /// each frame it spends after the break.
    pub(crate) fn layout(&mut self, text: &str, lines: &mut Vec<Line<'static>>, frame: &mut LayoutArgs<'_>) -> bool {
        let Some(rest) = text.get(self.cut..) else { return false };
        if self.cut == 0 || may_define_links(rest) || reaches_back(rest) || lines.len() < self.frozen {
            return false;
        }
        lines.truncate(self.frozen);
        self.advance(text, frame, Some(&mut *lines));
        let Some(rest) = text.get(self.cut..) else { return false };
        let (nodes, marks) = parse_open(&self.stand_in(rest), frame);
        let Some(spans) = continuation(&nodes, &marks) else { return false };
        let width = usize::from(frame.width);
        let mut all = self.carry.clone();
        all.extend(spans);
        lines.extend(wrap_spans(&all, width).into_iter().map(|spans| truncate_line(Line::from(spans), width)));
        true
    }

    /// `rest` behind the stand-in that makes it parse as a continuation.
    fn stand_in(&self, rest: &str) -> String {
        let mut text = String::with_capacity(rest.len() + 2);
        text.push_str(if self.line_start { "x\n" } else { "x" });
        text.push_str(rest);
        text
    }

    /// Moves the break to the last safe one in `text`, when enough arrived after the current,
    /// appending the lines it freezes to `lines` when given.
    fn advance(&mut self, text: &str, frame: &LayoutArgs<'_>, lines: Option<&mut Vec<Line<'static>>>) {
        let Some(rest) = text.get(self.cut..) else { return };
        if rest.len() < self.next_try {
            return;
        }
        self.next_try = rest.len() + STEP;
        let Some(Break { end, next, line_start }) = last_break(rest) else { return };
        let piece = &rest[..end];
        if !is_clean(piece) {
            return;
        }
        let source = if self.cut == 0 { piece.to_string() } else { self.stand_in(piece) };
        if !closed(&source) {
            // Something may still pair with what follows: try again when twice as much is here.
            self.next_try = rest.len() * 2;
            return;
        }
        let palette = Palette::new(frame.options);
        let (mut nodes, marks) = parse_marked(&source, palette);
        paint(&mut nodes, CodeMode::Plain, palette.code_colors(), frame.highlighter, None);
        if nodes.len() != 1 || marks.first != Some(FirstBlock::Paragraph) {
            return;
        }
        let Some(spans) = strip_stand_in(&nodes, self.cut > 0) else { return };
        let mut all = std::mem::take(&mut self.carry);
        all.extend(spans);
        let width = usize::from(frame.width);
        let mut wrapped = wrap_spans(&all, width);
        self.carry = wrapped.pop().unwrap_or_default();
        self.frozen += wrapped.len();
        if let Some(lines) = lines {
            lines.extend(wrapped.into_iter().map(|spans| truncate_line(Line::from(spans), width)));
        }
        self.cut += next;
        self.line_start = line_start;
        self.next_try = rest.len() - next + STEP;
    }
}

/// Spans of the paragraph a stand-in parse gives, without the stand-in.
fn continuation(nodes: &[Node], marks: &Marks) -> Option<Vec<Span<'static>>> {
    if nodes.len() != 1 || marks.first != Some(FirstBlock::Paragraph) {
        return None;
    }
    strip_stand_in(nodes, true)
}

/// The spans of a one-paragraph render, with the stand-in "x" dropped when `stand_in`.
fn strip_stand_in(nodes: &[Node], stand_in: bool) -> Option<Vec<Span<'static>>> {
    let Some(Node::Text { prefix, spans }) = nodes.first() else { return None };
    if !prefix.first.is_empty() || !prefix.rest.is_empty() {
        return None;
    }
    let mut spans = spans.clone();
    if stand_in {
        let first = spans.first_mut()?;
        let after = first.content.strip_prefix('x')?.to_string();
        if after.is_empty() {
            spans.remove(0);
        } else {
            first.content = after.into();
        }
    }
    Some(spans)
}

/// A safe break in the text after the current one.
struct Break {
    /// Where the text before the break ends.
    end: usize,
    /// Where the text after it starts (after the newline of a line start).
    next: usize,
    line_start: bool,
}

/// The last break in `rest`: the start of its unfinished last line, or the start of the last
/// run of spaces in that line when it is long. The text before must end in a word (not in
/// spaces or a backslash, which could make a hard break).
fn last_break(rest: &str) -> Option<Break> {
    let line = rest.rfind('\n').map_or(0, |i| i + 1);
    let last = &rest[line..];
    if last.len() >= STEP {
        let end = last.trim_end_matches(|c| c != ' ').trim_end_matches(' ').len();
        if end > 0 && end < last.len() {
            return Some(Break { end: line + end, next: line + end, line_start: false });
        }
    }
    let end = line.checked_sub(1)?;
    let ends_in_word = rest[..end].ends_with(|c: char| !c.is_whitespace() && c != '\\');
    ends_in_word.then_some(Break { end, next: line, line_start: true })
}

/// `text` has a line that could turn the lines before it into a heading (a setext underline)
/// or into a table (a delimiter row).
fn reaches_back(text: &str) -> bool {
    text.split('\n').any(|line| {
        let line = line.trim();
        !line.is_empty()
            && line.contains(['=', '-'])
            && line.chars().all(|c| matches!(c, '=' | '-' | ':' | '|' | ' ' | '\t'))
    })
}
