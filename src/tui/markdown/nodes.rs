//! The width-independent form of a block of Markdown, between parsing (`parse`) and laying out
//! (`lines`): styled inline text with its list/quote prefixes, code (its source until the
//! colour pass, `paint`, gives it lines), tables, rules and blank separators. A leaf: it only
//! holds data.

use pulldown_cmark::Alignment;
use ratatui::text::Span;

use crate::tui::highlight::CodeLines;

/// Spans put before the first line of a node and before its continuation lines.
#[derive(Clone, Debug, Default)]
pub(crate) struct Prefix {
    pub first: Vec<Span<'static>>,
    pub rest: Vec<Span<'static>>,
}

#[derive(Debug, Default)]
pub(crate) struct Table {
    pub aligns: Vec<Alignment>,
    pub header: Vec<Vec<Span<'static>>>,
    pub rows: Vec<Vec<Vec<Span<'static>>>>,
}

/// A code block's body: its source as parsed, until `paint` gives it lines.
#[derive(Debug)]
pub(crate) enum Code {
    Source {
        /// The fence's language (empty for an indented block).
        lang: String,
        text: String,
        /// The block reaches the very end of the parsed text (it may still be streaming in).
        at_end: bool,
    },
    Lines(CodeLines),
}

#[derive(Debug)]
pub(crate) enum Node {
    /// Inline text to wrap; `\n` in it is a hard break.
    Text {
        prefix: Prefix,
        spans: Vec<Span<'static>>,
    },
    Code {
        prefix: Prefix,
        code: Code,
        /// The label row above the code (its language, `code` when the fence names none);
        /// `None` for more lines of a block whose label is already laid out (`open::code`).
        label: Option<String>,
    },
    Table {
        prefix: Prefix,
        table: Table,
    },
    Rule {
        prefix: Prefix,
    },
    Blank {
        prefix: Vec<Span<'static>>,
    },
}
