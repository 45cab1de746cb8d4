//! Splits Markdown source into top-level blocks that can be rendered on their own, one complete
//! line at a time, so a streaming document only ever re-renders its last, still-open block.
//! Owns the boundary rules only; it must not parse inline Markdown or render anything.
//!
//! State machine: lines are fed in order. Inside a fenced code block nothing is a boundary.
//! Outside one, a block ends at a blank line, but only once the next non-blank line is known:
//! an indented line (a continuation) or a list item after a list keeps the block going. An
//! unindented ATX heading or fence starts a new block even without a blank line, and the line
//! after a heading or a top-level closing fence does too. Because decisions are taken only on
//! complete lines, feeding a text in any chunks yields the same blocks as feeding it whole.

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Other,
    List,
    Heading,
    /// A block that opened with an unindented fence; ends when the fence closes.
    Fence,
}

#[derive(Clone, Copy, Debug)]
struct Fence {
    marker: u8,
    len: usize,
}

/// Incremental splitter of a growing source into completed block ranges plus an open tail.
#[derive(Debug)]
pub struct BlockScanner {
    /// Bytes of the source consumed so far (always at a line start).
    scanned: usize,
    /// Bytes of the source already searched for a newline (`>= scanned`): an unfinished line
    /// is searched once, not again from its start on every feed (a reply that is one long
    /// line would cost its length per delta).
    searched: usize,
    /// Start of the open block; meaningful only when `has_content`.
    start: usize,
    /// End (exclusive, before the newline) of the open block's last non-blank line.
    content_end: usize,
    has_content: bool,
    pending_blank: bool,
    kind: Kind,
    fence: Option<Fence>,
    /// The fence of a `Kind::Fence` block just closed: the next non-blank line starts a block.
    closed: bool,
}

impl Default for BlockScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockScanner {
    pub fn new() -> Self {
        BlockScanner {
            scanned: 0,
            searched: 0,
            start: 0,
            content_end: 0,
            has_content: false,
            pending_blank: false,
            kind: Kind::Other,
            fence: None,
            closed: false,
        }
    }

    /// Consumes the complete lines of `source` not seen yet (`source` must extend what was fed
    /// before) and appends the ranges of the blocks they complete to `done`.
    pub fn feed(&mut self, source: &str, done: &mut Vec<Range<usize>>) {
        loop {
            let from = self.searched.max(self.scanned);
            let Some(newline) = source.get(from..).and_then(|rest| rest.find('\n')) else {
                self.searched = source.len().max(self.scanned);
                return;
            };
            let line_start = self.scanned;
            let line_end = from + newline;
            self.scanned = line_end + 1;
            self.searched = self.scanned;
            let line = source.get(line_start..line_end).unwrap_or("");
            self.line(line, line_start, line_end, done);
        }
    }

    /// Where the open block starts: everything from here to the end of the source is the open
    /// block (it may be empty or only whitespace).
    pub fn open_start(&self) -> usize {
        if self.has_content {
            self.start
        } else {
            self.scanned
        }
    }

    fn line(&mut self, line: &str, start: usize, end: usize, done: &mut Vec<Range<usize>>) {
        if let Some(fence) = self.fence {
            if closes_fence(line, fence) {
                self.fence = None;
                self.closed = self.kind == Kind::Fence;
            }
            self.content_end = end;
            return;
        }
        if line.trim().is_empty() {
            self.pending_blank = self.has_content;
            return;
        }
        let indented = line.starts_with([' ', '\t']);
        let boundary = if !self.has_content {
            false
        } else if self.closed || self.kind == Kind::Heading {
            true
        } else if self.pending_blank {
            !(indented || (self.kind == Kind::List && is_list_item(line)))
        } else {
            !indented && (is_heading(line) || opens_fence(line).is_some())
        };
        if boundary {
            done.push(self.start..self.content_end);
            self.has_content = false;
        }
        if !self.has_content {
            self.has_content = true;
            self.start = start;
            self.kind = if is_heading(line) && !indented {
                Kind::Heading
            } else if !indented && opens_fence(line).is_some() {
                Kind::Fence
            } else if is_list_item(line) {
                Kind::List
            } else {
                Kind::Other
            };
        }
        self.pending_blank = false;
        self.closed = false;
        self.fence = opens_fence(strip_containers(line));
        self.content_end = end;
    }
}

/// Drops leading whitespace, quote markers and one list marker, to find a fence inside them.
fn strip_containers(line: &str) -> &str {
    let mut rest = line.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix('>') {
            rest = after.trim_start();
        } else if let Some(after) = list_marker_end(rest).and_then(|n| rest.get(n..)) {
            rest = after.trim_start();
        } else {
            return rest;
        }
    }
}

fn opens_fence(line: &str) -> Option<Fence> {
    let trimmed = line.trim_start_matches(' ');
    let marker = *trimmed.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|&b| b == marker).count();
    if len < 3 {
        return None;
    }
    let info = trimmed.get(len..).unwrap_or("");
    if marker == b'`' && info.contains('`') {
        return None;
    }
    Some(Fence { marker, len })
}

fn closes_fence(line: &str, fence: Fence) -> bool {
    let mut rest = line.trim_start();
    while let Some(after) = rest.strip_prefix('>') {
        rest = after.trim_start();
    }
    let len = rest.bytes().take_while(|&b| b == fence.marker).count();
    len >= fence.len && rest.get(len..).is_some_and(|tail| tail.trim().is_empty())
}

fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && line.get(hashes..).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

fn is_list_item(line: &str) -> bool {
    list_marker_end(line.trim_start()).is_some()
}

/// Byte length of a list marker (`-`, `*`, `+`, `1.`, `1)`) at the start of `text`, when it is
/// followed by whitespace or the end of the line.
fn list_marker_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let marker = match bytes.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            match bytes.get(digits) {
                Some(b'.') | Some(b')') if digits <= 9 => digits + 1,
                _ => return None,
            }
        }
        _ => return None,
    };
    match bytes.get(marker) {
        None | Some(b' ') | Some(b'\t') => Some(marker),
        _ => None,
    }
}

/// Completed blocks of a whole source, then the open tail (possibly empty).
pub fn split(source: &str) -> Vec<Range<usize>> {
    let mut scanner = BlockScanner::new();
    let mut blocks = Vec::new();
    scanner.feed(source, &mut blocks);
    blocks.push(scanner.open_start()..source.len());
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(source: &str) -> Vec<&str> {
        split(source).into_iter().map(|r| &source[r]).collect()
    }

    #[test]
    fn blank_lines_separate_paragraphs() {
        assert_eq!(pieces("a\nb\n\nc\n"), ["a\nb", "c\n"]);
    }

    #[test]
    fn blank_lines_inside_a_fence_do_not_split() {
        assert_eq!(pieces("```\na\n\nb\n```\n\nc\n"), ["```\na\n\nb\n```", "c\n"]);
    }

    #[test]
    fn a_loose_list_stays_one_block() {
        assert_eq!(pieces("- a\n\n- b\n\n  more\n\npara\n"), ["- a\n\n- b\n\n  more", "para\n"]);
    }

    #[test]
    fn headings_and_fences_start_blocks() {
        assert_eq!(pieces("# T\ntext\n```\nx\n```\nafter\n"), ["# T", "text", "```\nx\n```", "after\n"]);
    }

    #[test]
    fn a_fence_inside_a_list_item_keeps_the_list_together() {
        let src = "1. step\n\n   ```sh\n   a\n\n   b\n   ```\n\n2. next\n";
        assert_eq!(pieces(src), [src]);
    }

    #[test]
    fn the_open_block_is_undecided_until_the_next_line_is_complete() {
        let mut scanner = BlockScanner::new();
        let mut done = Vec::new();
        scanner.feed("a\n\n- b", &mut done);
        assert!(done.is_empty());
        assert_eq!(scanner.open_start(), 0);
    }

    #[test]
    fn a_source_fed_a_byte_at_a_time_splits_as_when_fed_whole() {
        let source = "A long line without a newline for a while, é ✓,\n\n- item\n- item\n\n```\ncode\n```\nend";
        let mut scanner = BlockScanner::new();
        let mut done = Vec::new();
        for end in (1..=source.len()).filter(|&end| source.is_char_boundary(end)) {
            scanner.feed(&source[..end], &mut done);
        }
        done.push(scanner.open_start()..source.len());
        assert_eq!(done, split(source));
    }

    #[test]
    fn list_markers_are_recognised() {
        assert!(is_list_item("- a") && is_list_item("12. a") && is_list_item("  * a") && is_list_item("-"));
        assert!(!is_list_item("-a") && !is_list_item("1984 was") && !is_list_item("1.5"));
    }
}
