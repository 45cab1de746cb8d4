//! The whole render of an open block's tail, and what every strategy of `block.rs` shares:
//! the render (`render_open`, `parse_open`) they fall back to and check against, and the
//! tests of a tail they cannot keep (`is_clean`, `may_define_links`). Imports no strategy, so
//! the strategies and their chooser (`block.rs`) import it without a circle.

use std::borrow::Cow;

use ratatui::text::Line;

use super::code::OpenCode;
use crate::sanitize::sanitize;
use crate::tui::highlight::Highlighter;
use crate::tui::markdown::lines::layout_nodes;
use crate::tui::markdown::nodes::Node;
use crate::tui::markdown::paint::{paint, CodeMode, OpenHighlighter};
use crate::tui::markdown::parse::{parse_marked, Marks};
use crate::tui::markdown::style::{Palette, RenderOptions};

/// One render of a piece of source: its nodes, what the parse marked, its lines and the first
/// line of each node (`starts`, one more entry at the end).
pub(crate) struct Parsed {
    /// The source held nothing `sanitize` changes (so neither does any piece of it).
    pub clean: bool,
    pub nodes: Vec<Node>,
    pub marks: Marks,
    pub lines: Vec<Line<'static>>,
    pub starts: Vec<usize>,
}

/// Renders `text` (raw: sanitized here) the way the last block of a whole render is.
pub(crate) fn render_open(text: &str, frame: &mut LayoutArgs<'_>) -> Parsed {
    let (width, options) = (frame.width, frame.options);
    let clean = sanitize(text);
    let palette = Palette::new(options);
    let (mut nodes, marks) = parse_marked(&clean, palette);
    let code = Some(&mut *frame.code as &mut dyn OpenHighlighter);
    paint(&mut nodes, CodeMode::Open, palette.code_colors(), frame.highlighter, code);
    let (lines, starts) = layout_nodes(&nodes, usize::from(width), Palette::new(options));
    Parsed { clean: matches!(clean, Cow::Borrowed(_)), nodes, marks, lines, starts }
}

/// `render_open` up to its nodes, for a state that lays them out itself (code at the end
/// highlighted from scratch, not by the document's `OpenCode`).
pub(crate) fn parse_open(text: &str, frame: &LayoutArgs<'_>) -> (Vec<Node>, Marks) {
    let palette = Palette::new(frame.options);
    let (mut nodes, marks) = parse_marked(&sanitize(text), palette);
    paint(&mut nodes, CodeMode::Open, palette.code_colors(), frame.highlighter, None);
    (nodes, marks)
}

/// `text` holds nothing `sanitize` would change, so offsets into its sanitized form are its own.
pub(crate) fn is_clean(text: &str) -> bool {
    matches!(sanitize(text), Cow::Borrowed(_))
}

/// `text` may hold a link reference definition, which can change how links anywhere in the
/// block read: such a block is not split.
pub(crate) fn may_define_links(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"]:").is_some()
}

/// What a layout needs besides the text.
pub(crate) struct LayoutArgs<'a> {
    pub width: u16,
    pub options: RenderOptions,
    /// The document's highlighter.
    pub highlighter: &'a Highlighter,
    pub code: &'a mut OpenCode,
}
