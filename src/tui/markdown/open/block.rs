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

use ratatui::text::Line;

use super::list::OpenList;
use super::paragraph::OpenParagraph;
use super::table::OpenTable;
use super::whole::{render_open, LayoutArgs, Parsed};
use crate::tui::markdown::parse::FirstBlock;

/// Tails shorter than this are rendered whole on every frame.
const MIN_BYTES: usize = 512;

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
    /// Bytes an open table handed to the parser, for tests.
    #[cfg(test)]
    pub(crate) table_bytes_parsed: usize,
}

impl Default for OpenBlock {
    fn default() -> Self {
        OpenBlock {
            key: None,
            produced: 0,
            state: State::Whole,
            #[cfg(test)]
            whole_renders: 0,
            #[cfg(test)]
            table_bytes_parsed: 0,
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
        frame: &mut LayoutArgs<'_>,
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
            State::Table(table) => {
                let kept = table.layout(text, &mut lines, frame);
                #[cfg(test)]
                {
                    self.table_bytes_parsed += std::mem::take(&mut table.parsed);
                }
                kept
            }
        };
        if !kept {
            #[cfg(test)]
            {
                self.whole_renders += 1;
            }
            let parsed = render_open(text, frame);
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
fn choose(text: &str, parsed: &Parsed, frame: &LayoutArgs<'_>) -> State {
    if !parsed.marks.items.is_empty() {
        return OpenList::start(text, parsed).map_or(State::Whole, State::List);
    }
    match parsed.marks.first {
        Some(FirstBlock::Paragraph) => OpenParagraph::start(text, parsed, frame).map_or(State::Whole, State::Paragraph),
        Some(FirstBlock::Table) => OpenTable::start(text, parsed, frame).map_or(State::Whole, State::Table),
        _ => State::Whole,
    }
}
