//! The colour pass between parsing and laying out: gives each code node (`Code::Source`) its
//! lines, plain or highlighted. `doc.rs` decides when a block is painted how (plain to measure
//! it, highlighted once it is shown, the open tail through the document's `OpenCode`, which it
//! hands in as an `OpenHighlighter`); this module only applies that choice. It must not parse
//! or wrap.

use std::sync::Arc;

use ratatui::text::Line;

use super::nodes::{Code, Node};
use crate::tui::highlight::{plain_code, CodeColors, Highlighter};

/// Highlights the code block still streaming in at the end of a document, going on from the
/// last call (`open::code::OpenCode`).
pub(crate) trait OpenHighlighter {
    /// Highlighted lines of the open block's `code` (sanitized) in `lang`, by `highlighter`.
    fn highlight(
        &mut self,
        highlighter: &Highlighter,
        code: &str,
        lang: &str,
        colors: CodeColors,
    ) -> Vec<Line<'static>>;
}

/// How code blocks get their styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CodeMode {
    /// Not highlighted: same text and so the same height, for blocks not on screen.
    Plain,
    /// Highlighted through the highlighter's cache.
    Highlighted,
    /// Highlighted, but a code block at the very end is still streaming in and is highlighted
    /// without filling the cache with prefixes of itself: by the document's `OpenCode`, which
    /// goes on from the previous frame, or else from scratch.
    Open,
}

/// Gives every code node of `nodes` its lines in `mode` and `colors`, highlighted by
/// `highlighter` (`open`: the document's streaming highlighter, for a block at the very end
/// in `CodeMode::Open`). Returns whether any node is code.
pub(crate) fn paint(
    nodes: &mut [Node],
    mode: CodeMode,
    colors: CodeColors,
    highlighter: &Highlighter,
    mut open: Option<&mut dyn OpenHighlighter>,
) -> bool {
    let mut has_code = false;
    for node in nodes {
        let Node::Code { code, .. } = node else { continue };
        has_code = true;
        let Code::Source { lang, text, at_end } = code else { continue };
        let lines = match mode {
            CodeMode::Plain => Arc::new(plain_code(text, colors)),
            CodeMode::Open if *at_end => Arc::new(match open.as_mut() {
                Some(open) => open.highlight(highlighter, text, lang, colors),
                None => highlighter.uncached(text, lang, colors),
            }),
            CodeMode::Highlighted | CodeMode::Open => highlighter.code(text, lang, colors),
        };
        *code = Code::Lines(lines);
    }
    has_code
}
