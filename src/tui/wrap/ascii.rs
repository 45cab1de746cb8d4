//! The word-wrapper's way for printable ASCII (with line breaks, without tabs): most of what a
//! model writes. A byte is a column, so words and runs of spaces are found by scanning bytes
//! and the lines are cut straight from the spans' text, without cutting it into pieces and
//! measuring each. Owns nothing of its own: it makes exactly the lines `wrap_pieces` makes
//! (the property test in `wrap.rs` holds it to that), and says `None` for other text.

use ratatui::text::Span;

use super::Widths;

use std::borrow::Cow;
use std::ops::Range;

/// `wrap_widths` of `spans` (`first` and `rest` at least 1), or `None` when they hold
/// anything but printable ASCII and `\n`.
pub(super) fn wrap(spans: &[Span<'_>], first: usize, rest: usize) -> Option<Vec<Vec<Span<'static>>>> {
    if !spans.iter().all(|span| ascii(span.content.as_bytes())) {
        return None;
    }
    let text: Cow<'_, [u8]> = match spans {
        [span] => Cow::Borrowed(span.content.as_bytes()),
        _ => {
            let mut text = Vec::with_capacity(spans.iter().map(|span| span.content.len()).sum());
            for span in spans {
                text.extend_from_slice(span.content.as_bytes());
            }
            Cow::Owned(text)
        }
    };
    let mut ends = Vec::with_capacity(spans.len());
    let mut end = 0;
    for span in spans {
        end += span.content.len();
        ends.push(end);
    }
    let mut out = Lines {
        spans,
        ends,
        cursor: 0,
        widths: Widths { first, rest },
        lines: Vec::new(),
        current: Vec::new(),
        run: 0..0,
        used: 0,
        hard_start: true,
    };
    let mut pending: Option<Range<usize>> = None;
    let mut i = 0;
    while i < text.len() {
        let byte = text[i];
        if byte == b'\n' {
            pending = None;
            out.end_line(true);
            i += 1;
            continue;
        }
        if byte == b' ' {
            let j = i + text[i..].iter().position(|&b| b != b' ').unwrap_or(text.len() - i);
            if out.used == 0 && out.hard_start {
                // Leading spaces of a line that started at a hard break: what fits, less one column.
                out.push(i, i + (j - i).min(out.width().saturating_sub(1)));
            } else {
                pending = Some(i..j);
            }
            i = j;
            continue;
        }
        let j = memchr::memchr2(b' ', b'\n', &text[i..]).map_or(text.len(), |k| i + k);
        let word = j - i;
        let space = pending.take().filter(|_| out.used > 0).unwrap_or(i..i);
        if space.len() + word <= out.room() {
            out.push(space.start, space.end);
            out.push(i, j);
        } else if word <= rest && out.used > 0 {
            out.end_line(false);
            out.push(i, j);
        } else {
            if space.len() < out.room() {
                out.push(space.start, space.end);
            } else if out.used > 0 {
                out.end_line(false);
            }
            out.push_broken(i, j);
        }
        i = j;
    }
    out.flush();
    out.lines.push(out.current);
    Some(out.lines)
}

/// `bytes` are printable ASCII and line breaks (checked a block at a time, without stopping
/// at each byte, so the check runs on vector registers).
fn ascii(bytes: &[u8]) -> bool {
    bytes.chunks(64).all(|block| block.iter().fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x5f || b == b'\n')))
}

/// Lines being cut from `spans`, positions counted in bytes over all their text. What the
/// current line holds is kept as ranges of that text and cut into spans when it ends.
struct Lines<'s, 'a> {
    spans: &'s [Span<'a>],
    /// Where each span's text ends.
    ends: Vec<usize>,
    /// The span the next range starts in (ranges only move forward).
    cursor: usize,
    widths: Widths,
    lines: Vec<Vec<Span<'static>>>,
    current: Vec<Span<'static>>,
    /// The text pushed since `current` was last extended (one range: pushes are contiguous
    /// but where spaces are dropped).
    run: Range<usize>,
    used: usize,
    /// The current line started at a hard break (or the start), so leading spaces are kept.
    hard_start: bool,
}

impl Lines<'_, '_> {
    fn width(&self) -> usize {
        self.widths.of(self.lines.len())
    }

    fn room(&self) -> usize {
        self.width().saturating_sub(self.used)
    }

    /// Appends text `a..b` to the current line.
    fn push(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        if self.run.end != a {
            self.flush();
            self.run.start = a;
        }
        self.run.end = b;
        self.used += b - a;
    }

    /// Cuts the pending run into the current line's spans, merging into its last span when
    /// the style is the same.
    fn flush(&mut self) {
        let (mut at, b) = (self.run.start, self.run.end);
        self.run = 0..0;
        while at < b {
            while self.ends[self.cursor] <= at {
                self.cursor += 1;
            }
            let span = &self.spans[self.cursor];
            let start = self.ends[self.cursor] - span.content.len();
            let end = self.ends[self.cursor].min(b);
            let text = &span.content[at - start..end - start];
            match self.current.last_mut() {
                Some(last) if last.style == span.style => last.content.to_mut().push_str(text),
                _ => self.current.push(Span::styled(text.to_string(), span.style)),
            }
            at = end;
        }
    }

    fn end_line(&mut self, hard: bool) {
        self.flush();
        self.lines.push(std::mem::take(&mut self.current));
        self.used = 0;
        self.hard_start = hard;
    }

    /// Places a word longer than the room left, filling each line to its width.
    fn push_broken(&mut self, mut a: usize, b: usize) {
        loop {
            let take = (b - a).min(self.room());
            self.push(a, a + take);
            a += take;
            if a == b {
                return;
            }
            if self.used > 0 {
                self.end_line(false);
            }
        }
    }
}
