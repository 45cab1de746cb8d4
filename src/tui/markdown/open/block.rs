//! The open block of a streaming reply (its last, unfinished top-level block), laid out so that
//! a frame costs what arrived, not the block's length: one `OpenBlock` per `MarkdownDoc`, for
//! a block that is not a long top-level code fence (`code.rs` lays those out).
//!
//! State machine: a tail shorter than `MIN_BYTES` is rendered whole (cheap). A longer one is
//! rendered whole once, and from that render (`choose`) the block gets a state that keeps its
//! finished lines: a list keeps its finished items (`list.rs`), a paragraph its wrapped
//! lines up to the last safe break (`paragraph.rs`), a table its finished rows
//! (`table.rs`). Each frame a state lays out only the rest and checks that doing so is still
//! exact; when it is not (or the width, the tail or the previous lines are not what it left),
//! the block is rendered whole again and the state chosen again. Every path gives exactly the
//! lines of a whole render (the streaming tests compare them after every chunk).

use std::borrow::Cow;

use ratatui::text::Line;

use super::code::OpenCode;
use super::list::OpenList;
use super::paragraph::OpenParagraph;
use super::table::OpenTable;
use crate::sanitize::sanitize;
use crate::tui::markdown::lines::layout_nodes;
use crate::tui::markdown::nodes::Node;
use crate::tui::markdown::paint::{paint, CodeMode, OpenHighlighter};
use crate::tui::markdown::parse::{parse_marked, FirstBlock, Marks};
use crate::tui::markdown::style::{Palette, RenderOptions};

/// Tails shorter than this are rendered whole on every frame.
const MIN_BYTES: usize = 512;

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
pub(crate) fn render_open(text: &str, width: u16, options: RenderOptions, code: Option<&mut OpenCode>) -> Parsed {
    let clean = sanitize(text);
    let palette = Palette::new(options);
    let (mut nodes, marks) = parse_marked(&clean, palette);
    paint(&mut nodes, CodeMode::Open, palette.color, code.map(|code| code as &mut dyn OpenHighlighter));
    let (lines, starts) = layout_nodes(&nodes, usize::from(width), Palette::new(options));
    Parsed { clean: matches!(clean, Cow::Borrowed(_)), nodes, marks, lines, starts }
}

/// `render_open` up to its nodes, for a state that lays them out itself.
pub(crate) fn parse_open(text: &str, options: RenderOptions, code: Option<&mut OpenCode>) -> (Vec<Node>, Marks) {
    let palette = Palette::new(options);
    let (mut nodes, marks) = parse_marked(&sanitize(text), palette);
    paint(&mut nodes, CodeMode::Open, palette.color, code.map(|code| code as &mut dyn OpenHighlighter));
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
pub(crate) struct Frame<'a> {
    pub width: u16,
    pub options: RenderOptions,
    pub code: &'a mut OpenCode,
}

enum State {
    /// Rendered whole every frame.
    Whole,
    List(OpenList),
    Paragraph(OpenParagraph),
    Table(OpenTable),
}

/// Per-document state of the open block.
pub(crate) struct OpenBlock {
    /// The tail's start in the document, the width and colour the state is for.
    key: Option<(usize, u16, bool)>,
    /// How many lines the last call returned (to know the caller gave them back).
    produced: usize,
    state: State,
    /// Long tails rendered whole (the state chosen again), for tests.
    #[cfg(test)]
    pub(crate) whole_renders: usize,
}

impl Default for OpenBlock {
    fn default() -> Self {
        OpenBlock {
            key: None,
            produced: 0,
            state: State::Whole,
            #[cfg(test)]
            whole_renders: 0,
        }
    }
}

impl OpenBlock {
    /// Lines of the open tail `text` (starting at byte `start` of the document) at `width`,
    /// equal to the lines of a whole render; `previous` is what this returned for the same
    /// tail before it grew. `None` for a short tail: the caller renders it whole.
    pub(crate) fn layout(
        &mut self,
        previous: Option<Vec<Line<'static>>>,
        start: usize,
        text: &str,
        frame: &mut Frame<'_>,
    ) -> Option<Vec<Line<'static>>> {
        if text.len() < MIN_BYTES || frame.width == 0 {
            self.key = None;
            self.state = State::Whole;
            return None;
        }
        let key = (start, frame.width, frame.options.color);
        let mut lines = match previous {
            Some(lines) if self.key == Some(key) && lines.len() == self.produced => lines,
            _ => {
                self.state = State::Whole;
                Vec::new()
            }
        };
        self.key = Some(key);
        let kept = match &mut self.state {
            State::Whole => false,
            State::List(list) => list.layout(text, &mut lines, frame),
            State::Paragraph(paragraph) => paragraph.layout(text, &mut lines, frame),
            State::Table(table) => table.layout(text, &mut lines, frame),
        };
        if !kept {
            #[cfg(test)]
            {
                self.whole_renders += 1;
            }
            let parsed = render_open(text, frame.width, frame.options, Some(&mut *frame.code));
            self.state = choose(text, &parsed, frame);
            lines = parsed.lines;
        }
        self.produced = lines.len();
        Some(lines)
    }
}

#[cfg(test)]
impl OpenBlock {
    /// How much the state keeps (0: nothing, or rendered whole).
    pub(crate) fn kept(&self) -> usize {
        match &self.state {
            State::Whole => 0,
            State::List(list) => list.kept(),
            State::Paragraph(paragraph) => paragraph.kept(),
            State::Table(table) => table.kept(),
        }
    }
}

/// The state for a block whose whole render is `parsed`.
fn choose(text: &str, parsed: &Parsed, frame: &Frame<'_>) -> State {
    if !parsed.marks.items.is_empty() {
        return OpenList::start(text, parsed).map_or(State::Whole, State::List);
    }
    match parsed.marks.first {
        Some(FirstBlock::Paragraph) => OpenParagraph::start(text, parsed, frame).map_or(State::Whole, State::Paragraph),
        Some(FirstBlock::Table) => OpenTable::start(text, parsed, frame).map_or(State::Whole, State::Table),
        _ => State::Whole,
    }
}
