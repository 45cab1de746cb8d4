//! `MarkdownDoc`: a Markdown reply that grows delta by delta, laid out lazily for a width:
//! only the blocks something shows.
//! Owns the per-block line caches, the prefix heights and the document's streaming
//! highlighter (`OpenCode`, for the code block still open at its end); code is highlighted by
//! the `Highlighter` it was given (the pane's, shared by its replies); it must not parse or
//! wrap itself (that is `render_block`), and it never stores more than one width's layout per
//! block.
//!
//! State: `source` grows; the `BlockScanner` turns complete lines into finished block ranges.
//! Every finished block has a height at `width`: exact once it is laid out (rendered once per
//! width and cached), else estimated from its source (`estimate.rs`). Blocks that arrive few at
//! a time (at most `EXACT_BATCH` of source between two measurements, as a stream brings them)
//! are laid out at once; a bigger batch (a 1 MB reply at once, or a big document measured again
//! after a width change) is left estimated, and `settle` lays out exactly the rows a window needs, returning where its anchor
//! row went, so the caller keeps what it shows in place. `tops[i]` is the first row of block
//! `i` (its blank separator included), extended lazily from the first height that changed. The
//! open tail is always exact: it is re-rendered only when the source or the width changed since
//! its last render, through `OpenCode` when it is a long code block and `OpenBlock` when it is
//! any other long block (either then costs about what arrived, not the block's length).
//! Heights are measured with code left plain (highlighting does not change the text, so not
//! the height either); a block is highlighted only when `lines` shows it, which keeps syntect,
//! by far the most expensive step, off everything that is never on screen.

mod copy;

use std::ops::Range;

use ratatui::text::Line;

use super::blocks::BlockScanner;
use super::estimate::estimate_rows;
use super::open::block::OpenBlock;
use super::open::code::OpenCode;
use super::open::whole::LayoutArgs;
use super::{render_block, CodeMode, RenderOptions};
use crate::tui::highlight::Highlighter;
use crate::tui::text::settle::{row_after, settle, Items};

/// Finished blocks that arrive (or need measuring again after a width change) with no more
/// source than this between two measurements are laid out at once; more, and they get an
/// estimated height until something shows them. Laying out 32 KB costs ~2 ms.
pub(super) const EXACT_BATCH: usize = 32 * 1024;

/// Lines of one block at one width.
struct Rendered {
    width: u16,
    lines: Vec<Line<'static>>,
    /// The block has code that was laid out plain and still needs highlighting.
    plain: bool,
}

struct Block {
    range: Range<usize>,
    /// Laid out at the document's width, or `None` (never, or at another width: dropped).
    rendered: Option<Rendered>,
    /// Lines at the document's width: exact when `rendered`, else an estimate.
    rows: usize,
}

struct OpenTail {
    start: usize,
    end: usize,
    rendered: Rendered,
    by: LaidOutBy,
}

/// What laid out the open tail's lines, which it may go on from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LaidOutBy {
    /// `OpenCode::layout`: a long top-level code block.
    Code,
    /// `OpenBlock::layout`: any other long block.
    Block,
    /// A whole render (a short tail).
    Whole,
}

/// A streaming Markdown document with cached, width-keyed layout.
pub struct MarkdownDoc {
    source: String,
    options: RenderOptions,
    /// Highlights the code shown (the pane's, handed in at `with_highlighter`).
    highlighter: Highlighter,
    scanner: BlockScanner,
    blocks: Vec<Block>,
    width: u16,
    /// Blocks `..measured` have `rows` for `width`.
    measured: usize,
    /// `tops[i]` = first row of block `i` (its blank separator included), right for `i <= valid`.
    tops: Vec<usize>,
    valid: usize,
    open: Option<OpenTail>,
    /// Streaming highlighting (and layout) of a code block at the end of the open tail.
    code: OpenCode,
    /// Incremental layout of any other long open tail.
    block: OpenBlock,
}

impl Default for MarkdownDoc {
    fn default() -> Self {
        Self::new(RenderOptions::default())
    }
}

impl MarkdownDoc {
    /// An empty document with a highlighter of its own.
    pub fn new(options: RenderOptions) -> Self {
        Self::with_highlighter(options, Highlighter::default())
    }

    /// An empty document whose code `highlighter` highlights (the pane's: its caches serve
    /// every reply of the pane).
    pub fn with_highlighter(options: RenderOptions, highlighter: Highlighter) -> Self {
        MarkdownDoc {
            source: String::new(),
            options,
            highlighter,
            scanner: BlockScanner::new(),
            blocks: Vec::new(),
            width: 0,
            measured: 0,
            tops: vec![0],
            valid: 0,
            open: None,
            code: OpenCode::default(),
            block: OpenBlock::default(),
        }
    }

    /// The same text rendered with `options` (a theme change): laid out anew from the source,
    /// as if it had streamed in whole.
    pub fn restyled(&self, options: RenderOptions) -> MarkdownDoc {
        let mut doc = MarkdownDoc::with_highlighter(options, self.highlighter.clone());
        doc.push_str(&self.source);
        doc
    }

    /// The raw Markdown received so far (unsanitized; sanitizing happens at render time).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Appends a delta. Costs the size of the delta; rendering waits for `height`/`lines`.
    pub fn push_str(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.source.push_str(delta);
        let mut done = Vec::new();
        self.scanner.feed(&self.source, &mut done);
        self.blocks.extend(done.into_iter().map(|range| Block { range, rendered: None, rows: 0 }));
    }

    /// The reply was cut off (interrupted): a table row still arriving at its end (an
    /// unfinished last line under a table row, starting with `|`) is dropped, so no bare
    /// `|` is left. Only the open tail changes; it is laid out again.
    pub fn cut_unfinished_row(&mut self) {
        let start = self.scanner.open_start();
        let tail = self.source.get(start..).unwrap_or("");
        let Some(last_break) = tail.rfind('\n') else { return };
        let (before, last) = tail.split_at(last_break + 1);
        let in_table = before.lines().next_back().is_some_and(|l| l.trim_start().starts_with('|'));
        let row = last.trim();
        if in_table && row.starts_with('|') && (row == "|" || !row.ends_with('|')) {
            self.source.truncate(start + before.len());
            self.open = None;
        }
    }

    /// Number of lines at `width`, counting estimated heights for blocks not laid out yet.
    pub fn height(&mut self, width: u16) -> usize {
        self.layout(width);
        let n = self.blocks.len();
        self.top(n) + self.rows_of(n)
    }

    /// Lays out exactly the `before` rows above row `row` and the `after` rows from it, and
    /// returns where `row`'s line is now: blocks laid out above it moved it by the difference
    /// between their estimated and exact heights; a row inside an estimated block keeps its
    /// offset in that block (as far as the block reaches). A row at or past the end stays as
    /// far past the end. This is the only call besides `height` that changes heights.
    pub fn settle(&mut self, width: u16, row: usize, before: usize, after: usize) -> usize {
        let _ = self.height(width);
        settle(&mut Blocks(self), row, before, after)
    }

    /// Lines `start..start + count` at `width` (fewer at the end of the document). Rows of a
    /// block still estimated (which `settle` would have laid out) come back blank, so the
    /// count always matches `height`.
    pub fn lines(&mut self, width: u16, start: usize, count: usize) -> Vec<Line<'static>> {
        let n = self.blocks.len();
        let _ = self.height(width);
        let mut out = Vec::with_capacity(count);
        let first = self.tops[..=n].partition_point(|&top| top <= start).saturating_sub(1);
        let end = start.saturating_add(count);
        for i in first..=n {
            let top = self.tops[i];
            if top >= end {
                break;
            }
            self.highlight(i);
            let (lines, rows) = match self.blocks.get(i) {
                Some(block) => (block.rendered.as_ref().map_or(&[][..], |r| r.lines.as_slice()), block.rows),
                None => match self.open.as_ref() {
                    Some(open) => (open.rendered.lines.as_slice(), open.rendered.lines.len()),
                    None => continue,
                },
            };
            let sep = separator(top, rows);
            for row in start.max(top)..end.min(top + sep + rows) {
                let index = row - top;
                out.push(if index < sep {
                    Line::default()
                } else {
                    lines.get(index - sep).cloned().unwrap_or_default()
                });
            }
        }
        out
    }

    /// Measures blocks for `width` (exactly when few arrived, else estimated) and brings the
    /// open tail up to date.
    fn layout(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.measured = 0;
            self.valid = 0;
            for block in &mut self.blocks {
                block.rendered = None;
            }
        }
        let n = self.blocks.len();
        if self.measured < n {
            if let Some(rendered) = self.take_open(self.measured, width) {
                let block = &mut self.blocks[self.measured];
                block.rows = rendered.lines.len();
                block.rendered = Some(rendered);
            }
            let unmeasured = self.blocks[self.measured..].iter().filter(|b| b.rendered.is_none());
            let bytes: usize = unmeasured.map(|b| b.range.len()).sum();
            for i in self.measured..n {
                if self.blocks[i].rendered.is_some() {
                    continue;
                }
                if bytes <= EXACT_BATCH {
                    self.lay_out(i);
                } else {
                    let text = self.source.get(self.blocks[i].range.clone()).unwrap_or("");
                    self.blocks[i].rows = estimate_rows(text, width);
                }
            }
            self.valid = self.valid.min(self.measured);
            self.measured = n;
        }
        self.tops.resize(n + 1, 0);
        let start = self.scanner.open_start();
        let end = self.source.len();
        let stale = self.open.as_ref().is_none_or(|o| o.rendered.width != width || o.start != start || o.end != end);
        if stale {
            let text = self.source.get(start..end).unwrap_or("");
            let previous = self.open.take().filter(|o| o.start == start).map(|o| (o.by, o.rendered.lines));
            let (code, block) = match previous {
                Some((LaidOutBy::Code, lines)) => (Some(lines), None),
                Some((LaidOutBy::Block, lines)) => (None, Some(lines)),
                _ => (None, None),
            };
            let highlighter = &self.highlighter;
            let (rendered, by) = if let Some(lines) = self.code.layout(code, text, width, self.options, highlighter) {
                (Rendered { width, lines, plain: false }, LaidOutBy::Code)
            } else {
                let mut frame = LayoutArgs { width, options: self.options, highlighter, code: &mut self.code };
                match self.block.layout(block, start, text, &mut frame) {
                    Some(lines) => (Rendered { width, lines, plain: false }, LaidOutBy::Block),
                    None => (render(text, width, self.options, CodeMode::Plain, highlighter, None), LaidOutBy::Whole),
                }
            };
            self.open = Some(OpenTail { start, end, rendered, by });
        }
    }

    /// The lines of finished block `i` when the open tail just became it: the tail's
    /// incremental layout goes on to the block's end (laying out only its last part), instead
    /// of the whole block being laid out again. `None` when the tail was laid out some other
    /// way or for another width, or the block may hold code (whose colours a finished block
    /// gets only when shown).
    fn take_open(&mut self, i: usize, width: u16) -> Option<Rendered> {
        let range = self.blocks.get(i)?.range.clone();
        let open = self.open.as_ref()?;
        if open.start != range.start || open.rendered.width != width || open.by != LaidOutBy::Block {
            return None;
        }
        // With the newline that ends its last line, when it has one: the tail's layout went
        // on from complete lines (a table keeps only rows that ended), and the newline does
        // not change what the block shows.
        let end = range.end + usize::from(self.source.as_bytes().get(range.end) == Some(&b'\n'));
        let text = self.source.get(range.start..end)?;
        if may_hold_code(text) {
            return None;
        }
        let lines = self.open.take()?.rendered.lines;
        let mut frame =
            LayoutArgs { width, options: self.options, highlighter: &self.highlighter, code: &mut self.code };
        let lines = self.block.layout(Some(lines), range.start, text, &mut frame)?;
        Some(Rendered { width, lines, plain: false })
    }

    /// Renders finished block `i` at the document's width (code plain) and records its height.
    fn lay_out(&mut self, i: usize) {
        let block = &mut self.blocks[i];
        let text = self.source.get(block.range.clone()).unwrap_or("");
        let rendered = render(text, self.width, self.options, CodeMode::Plain, &self.highlighter, None);
        block.rows = rendered.lines.len();
        block.rendered = Some(rendered);
        self.valid = self.valid.min(i);
    }

    /// First row of block `i` (`i == blocks.len()`: the open tail), extending `tops` as needed.
    fn top(&mut self, i: usize) -> usize {
        while self.valid < i {
            let top = self.tops[self.valid];
            let rows = self.blocks[self.valid].rows;
            self.tops[self.valid + 1] = top + separator(top, rows) + rows;
            self.valid += 1;
        }
        self.tops[i]
    }

    /// Rows of block `i` (`i == blocks.len()`: the open tail), its separator included.
    fn rows_of(&mut self, i: usize) -> usize {
        let top = self.top(i);
        let rows = match self.blocks.get(i) {
            Some(block) => block.rows,
            None => self.open.as_ref().map_or(0, |o| o.rendered.lines.len()),
        };
        separator(top, rows) + rows
    }

    /// `rows_of(i)` once block `i` is laid out.
    fn exact_rows_of(&mut self, i: usize) -> usize {
        if self.blocks[i].rendered.is_none() {
            self.lay_out(i);
        }
        self.rows_of(i)
    }

    /// Finished blocks laid out at the current width, for tests.
    #[cfg(test)]
    pub(crate) fn laid_out_blocks(&self) -> usize {
        self.blocks.iter().filter(|b| b.rendered.is_some()).count()
    }

    /// How much the open block's incremental layout keeps (0: nothing), for tests.
    #[cfg(test)]
    pub(super) fn kept_open_lines(&self) -> usize {
        self.block.kept()
    }

    /// Bytes an open table handed to the parser, for tests.
    #[cfg(test)]
    pub(super) fn table_bytes_parsed(&self) -> usize {
        self.block.table_bytes_parsed
    }

    /// How many long open tails were rendered whole, for tests.
    #[cfg(test)]
    pub(super) fn whole_renders(&self) -> usize {
        self.block.whole_renders
    }

    /// Gives block `i` (the open tail when `i == blocks.len()`) its code colours, in place.
    fn highlight(&mut self, i: usize) {
        let (range, slot, mode, code) = match self.blocks.get_mut(i) {
            Some(block) => (block.range.clone(), block.rendered.as_mut(), CodeMode::Highlighted, None),
            None => match self.open.as_mut() {
                Some(open) => (open.start..open.end, Some(&mut open.rendered), CodeMode::Open, Some(&mut self.code)),
                None => return,
            },
        };
        let Some(rendered) = slot.filter(|r| r.plain) else { return };
        let text = self.source.get(range).unwrap_or("");
        *rendered = render(text, rendered.width, self.options, mode, &self.highlighter, code);
    }
}

/// The document's blocks as `settle` walks them: the finished blocks, then the open tail
/// (always exact), at the width of the last `height`.
struct Blocks<'a>(&'a mut MarkdownDoc);

impl Items for Blocks<'_> {
    fn count(&mut self) -> usize {
        self.0.blocks.len() + 1
    }

    fn locate(&mut self, row: usize) -> Option<(usize, usize)> {
        let n = self.0.blocks.len();
        if row >= self.0.top(n) + self.0.rows_of(n) {
            return None;
        }
        let k = self.0.tops[..=n].partition_point(|&top| top <= row).saturating_sub(1);
        Some((k, row - self.0.tops[k]))
    }

    fn start(&mut self, i: usize) -> usize {
        self.0.top(i)
    }

    fn height(&mut self, i: usize) -> usize {
        self.0.rows_of(i)
    }

    /// A block is laid out whole; a row inside an estimated one keeps its offset in it as far
    /// as the block reaches.
    fn settle_item(&mut self, i: usize, row: usize, _before: usize, _after: usize) -> usize {
        let Some(block) = self.0.blocks.get(i) else { return row };
        let estimated = block.rendered.is_none();
        let was = self.0.rows_of(i);
        let now = if estimated { self.0.exact_rows_of(i) } else { was };
        row_after(row, was, now, estimated)
    }
}

fn render(
    text: &str,
    width: u16,
    options: RenderOptions,
    mode: CodeMode,
    highlighter: &Highlighter,
    code: Option<&mut OpenCode>,
) -> Rendered {
    let (lines, has_code) = render_block(text, width, options, mode, highlighter, code);
    Rendered { width, lines, plain: has_code && mode == CodeMode::Plain }
}

/// `text` may hold a code block (a fence, or an indented line that could be one).
fn may_hold_code(text: &str) -> bool {
    let bytes = text.as_bytes();
    ["```", "~~~", "\t", "    "].iter().any(|needle| memchr::memmem::find(bytes, needle.as_bytes()).is_some())
}

/// One blank line between blocks, when something came before and this block shows anything
/// (`rows` lines).
fn separator(top: usize, rows: usize) -> usize {
    usize::from(top > 0 && rows > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_blocks_shown_by_lines_get_highlighted() {
        let mut doc = MarkdownDoc::default();
        doc.push_str("```rust\nfn a() {}\n```\n\npara\n\n```rust\nfn b() {}\n```\n\nend\n");
        let height = doc.height(40);
        assert!(doc.blocks.iter().filter_map(|b| b.rendered.as_ref()).filter(|r| r.plain).count() == 2);
        let _ = doc.lines(40, height - 1, 1);
        assert!(doc.blocks[0].rendered.as_ref().is_some_and(|r| r.plain));
        let _ = doc.lines(40, 0, 1);
        assert!(doc.blocks[0].rendered.as_ref().is_some_and(|r| !r.plain));
    }

    #[test]
    fn a_delta_inside_the_open_block_leaves_finished_blocks_alone() {
        let mut doc = MarkdownDoc::default();
        doc.push_str("first para\n\nsecond\n");
        let _ = doc.height(40);
        let before = doc.blocks[0].rendered.as_ref().map(|r| r.lines.as_ptr());
        doc.push_str("words");
        assert_eq!(doc.height(40), 3);
        assert_eq!(doc.blocks[0].rendered.as_ref().map(|r| r.lines.as_ptr()), before);
    }
}
