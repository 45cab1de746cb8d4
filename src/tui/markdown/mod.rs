//! Markdown for the conversation pane: source text in, ratatui `Line`s for a width out.
//! `render` lays out a whole text; `MarkdownDoc` takes a streaming reply delta by delta and
//! re-renders only its last block, serving any window of lines cheaply. This module owns the
//! Markdown look; it must not draw to a terminal, and all text passes through `sanitize`.
//!
//! Pipeline: `blocks` splits the source into top-level blocks; `parse` turns one block into
//! width-independent nodes (`nodes`); `paint` gives code nodes their colours; `lines` (with
//! `table`, and the TUI's one wrapper `tui::wrap`) turns nodes into lines for a width. Blocks
//! are joined with one blank line; a whole render and a streamed one take the same path, so
//! they produce the same lines. `open/` holds the strategies that lay out the block still
//! streaming in at a cost of what arrived (`open::block::OpenBlock`, `open::code::OpenCode`).
//! A code block is drawn under a label row (its language and `[copy]`); `block_text` says how
//! a block's lines read back as text and what its code blocks hold, for a copy
//! (`doc/copy.rs`).

mod blocks;
mod doc;
mod estimate;
mod lines;
mod nodes;
mod open;
mod paint;
mod parse;
mod style;
mod table;

#[cfg(test)]
mod lazy_tests;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

use ratatui::text::Line;

use crate::tui::highlight::Highlighter;
use crate::tui::text::row_text::RowText;
pub use doc::MarkdownDoc;
use paint::CodeMode;
pub use style::RenderOptions;

/// Lines of a whole Markdown text at `width` columns (empty when `width` is 0), its code
/// highlighted by a highlighter of its own.
pub fn render(source: &str, width: u16, options: RenderOptions) -> Vec<Line<'static>> {
    render_with(source, width, options, &Highlighter::default())
}

/// `render` with the code highlighted by `highlighter`.
fn render_with(source: &str, width: u16, options: RenderOptions, highlighter: &Highlighter) -> Vec<Line<'static>> {
    let ranges = blocks::split(source);
    let last = ranges.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, range) in ranges.into_iter().enumerate() {
        let text = source.get(range).unwrap_or("");
        let mode = if i == last { CodeMode::Open } else { CodeMode::Highlighted };
        let lines = render_block(text, width, options, mode, highlighter, None).0;
        if !out.is_empty() && !lines.is_empty() {
            out.push(Line::default());
        }
        out.extend(lines);
    }
    out
}

/// Lines of one block, and whether it holds code (whose colours `CodeMode::Plain` left out).
/// Code is highlighted by `highlighter`; `open` is the document's streaming highlighter
/// (`None` for a one-off render).
fn render_block(
    text: &str,
    width: u16,
    options: RenderOptions,
    mode: CodeMode,
    highlighter: &Highlighter,
    open: Option<&mut open::code::OpenCode>,
) -> (Vec<Line<'static>>, bool) {
    let clean = crate::sanitize::sanitize(text);
    let palette = style::Palette::new(options);
    let mut nodes = parse::parse(&clean, palette);
    let open = open.map(|open| open as &mut dyn paint::OpenHighlighter);
    let has_code = paint::paint(&mut nodes, mode, palette.code_colors(), highlighter, open);
    (lines::layout(&nodes, usize::from(width), palette), has_code)
}

/// How the lines of one block (as `render_block` lays it out) read back as text, and the
/// text of each of its code blocks, in order: for a copy, never while drawing.
fn block_text(text: &str, width: u16, options: RenderOptions) -> (Vec<RowText>, Vec<String>) {
    let clean = crate::sanitize::sanitize(text);
    let palette = style::Palette::new(options);
    let nodes = parse::parse(&clean, palette);
    let codes = nodes
        .iter()
        .filter_map(|node| match node {
            nodes::Node::Code { code: nodes::Code::Source { text, .. }, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (lines::layout_rows(&nodes, usize::from(width), palette).1, codes)
}
