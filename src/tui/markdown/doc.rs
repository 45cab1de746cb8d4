//! `MarkdownDoc`: a Markdown reply that grows delta by delta, laid out lazily for a width.
//! Owns the per-block line caches and the prefix heights; it must not parse or wrap itself
//! (that is `render_block`), and it never stores more than one width's layout per block.
//!
//! State: `source` grows; the `BlockScanner` turns complete lines into finished block ranges.
//! A finished block is rendered once per width and cached; `tops[i]` is the first line of
//! block `i` (its blank separator included) for the blocks laid out at `width`. The open tail
//! is re-rendered only when the source or the width changed since its last render. A width
//! change discards `tops` and lays blocks out again on the next `height` or `lines` call.

use std::ops::Range;

use ratatui::text::Line;

use super::blocks::BlockScanner;
use super::{render_block, RenderOptions};

struct Block {
    range: Range<usize>,
    /// Rendered lines and the width they were laid out for.
    lines: Option<(u16, Vec<Line<'static>>)>,
}

struct OpenTail {
    width: u16,
    start: usize,
    end: usize,
    lines: Vec<Line<'static>>,
}

/// A streaming Markdown document with cached, width-keyed layout.
pub struct MarkdownDoc {
    source: String,
    options: RenderOptions,
    scanner: BlockScanner,
    blocks: Vec<Block>,
    width: u16,
    /// `tops[i]` = first line of block `i`; `tops.len() - 1` blocks are laid out at `width`.
    tops: Vec<usize>,
    open: Option<OpenTail>,
}

impl Default for MarkdownDoc {
    fn default() -> Self {
        Self::new(RenderOptions::default())
    }
}

impl MarkdownDoc {
    pub fn new(options: RenderOptions) -> Self {
        MarkdownDoc {
            source: String::new(),
            options,
            scanner: BlockScanner::new(),
            blocks: Vec::new(),
            width: 0,
            tops: vec![0],
            open: None,
        }
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
        self.blocks.extend(done.into_iter().map(|range| Block { range, lines: None }));
    }

    /// Number of lines at `width`.
    pub fn height(&mut self, width: u16) -> usize {
        self.layout(width);
        let top = self.tops.last().copied().unwrap_or(0);
        top + self.open.as_ref().map_or(0, |open| separator(top, &open.lines) + open.lines.len())
    }

    /// Lines `start..start + count` at `width` (fewer at the end of the document).
    pub fn lines(&mut self, width: u16, start: usize, count: usize) -> Vec<Line<'static>> {
        self.layout(width);
        let mut out = Vec::with_capacity(count);
        let first = self.tops.partition_point(|&top| top <= start).saturating_sub(1);
        let end = start.saturating_add(count);
        for i in first..=self.blocks.len() {
            let top = self.tops.get(i).copied().unwrap_or(0);
            if top >= end {
                break;
            }
            let lines = if i < self.blocks.len() {
                self.blocks[i].lines.as_ref().map(|(_, lines)| lines.as_slice())
            } else {
                self.open.as_ref().map(|open| open.lines.as_slice())
            };
            let Some(lines) = lines else { continue };
            let sep = separator(top, lines);
            for row in start.max(top)..end.min(top + sep + lines.len()) {
                let index = row - top;
                out.push(if index < sep { Line::default() } else { lines[index - sep].clone() });
            }
        }
        out
    }

    /// Brings `tops` and the open tail up to date for `width`.
    fn layout(&mut self, width: u16) {
        if width != self.width {
            self.width = width;
            self.tops.truncate(1);
        }
        while self.tops.len() <= self.blocks.len() {
            let i = self.tops.len() - 1;
            let top = self.tops[i];
            let block = &mut self.blocks[i];
            let fresh = match &block.lines {
                Some((w, _)) => *w != width,
                None => true,
            };
            if fresh {
                let text = self.source.get(block.range.clone()).unwrap_or("");
                block.lines = Some((width, render_block(text, width, self.options, false)));
            }
            let lines = block.lines.as_ref().map_or(&[][..], |(_, lines)| lines.as_slice());
            self.tops.push(top + separator(top, lines) + lines.len());
        }
        let start = self.scanner.open_start();
        let end = self.source.len();
        let stale = self.open.as_ref().is_none_or(|o| o.width != width || o.start != start || o.end != end);
        if stale {
            let text = self.source.get(start..end).unwrap_or("");
            let lines = render_block(text, width, self.options, true);
            self.open = Some(OpenTail { width, start, end, lines });
        }
    }
}

/// One blank line between blocks, when something came before and this block shows anything.
fn separator(top: usize, lines: &[Line<'static>]) -> usize {
    usize::from(top > 0 && !lines.is_empty())
}
