//! The colour pass between parsing and laying out: gives each code node (`Code::Source`) its
//! lines, plain or highlighted. `doc.rs` decides when a block is painted how (plain to measure
//! it, highlighted once it is shown, the open tail through the document's `OpenCode`, which it
//! hands in as an `OpenHighlighter`); this module only applies that choice. It must not parse
//! or wrap.

use std::sync::Arc;

use ratatui::text::Line;

use super::nodes::{Code, Node};
use crate::tui::highlight::{highlight_code, highlight_uncached, plain_code};

/// Highlights the code block still streaming in at the end of a document, going on from the
/// last call (`open::code::OpenCode`).
pub(crate) trait OpenHighlighter {
    /// Highlighted lines of the open block's `code` (sanitized) in `lang`.
    fn highlight(&mut self, code: &str, lang: &str, color: bool) -> Vec<Line<'static>>;
}

/// How code blocks get their styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeMode {
    /// Not highlighted: same text and so the same height, for blocks not on screen.
    Plain,
    /// Highlighted through the shared cache.
    Highlighted,
    /// Highlighted, but a code block at the very end is still streaming in and is highlighted
    /// without filling the cache with prefixes of itself: by the document's `OpenCode`, which
    /// goes on from the previous frame, or else from scratch.
    Open,
}

/// Gives every code node of `nodes` its lines in `mode` (`open`: the document's streaming
/// highlighter, for a block at the very end in `CodeMode::Open`). Returns whether any node is
/// code.
pub(crate) fn paint(
    nodes: &mut [Node],
    mode: CodeMode,
    color: bool,
    mut open: Option<&mut dyn OpenHighlighter>,
) -> bool {
    let mut has_code = false;
    for node in nodes {
        let Node::Code { code, .. } = node else { continue };
        has_code = true;
        let Code::Source { lang, text, at_end } = code else { continue };
        let lines = match mode {
            CodeMode::Plain => Arc::new(plain_code(text, color)),
            CodeMode::Open if *at_end => Arc::new(match open.as_mut() {
                Some(open) => open.highlight(text, lang, color),
                None => highlight_uncached(text, lang, color),
            }),
            CodeMode::Highlighted | CodeMode::Open => highlight_code(text, lang, color),
        };
        *code = Code::Lines(lines);
    }
    has_code
}
