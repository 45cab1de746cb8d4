//! `Streamed`: a code block highlighted line by line as it streams in
//! (`markdown/open/code.rs` drives it, `Highlighter::start_stream` makes it). Owns the block's
//! complete lines so far and syntect's state after them; the lines are shared with
//! `Highlighter::code` once the block is finished.

use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use std::sync::Arc;

use ratatui::text::Line;

use super::{plain_lines, CodeColors, CodeLines, LineHighlighter};

/// A code block highlighted line by line as it streams in: its complete lines so far (tabs
/// expanded, each followed by `\n`), one highlighted `Line` per line of them (exactly what
/// `Highlighter::uncached` gives for that text: all plain once syntect panicked) and
/// syntect's state after them. The lines are shared with `Highlighter::code` once the block
/// is finished (copied only if it then grew, which a finished block does not).
pub struct Streamed {
    lang: String,
    colors: CodeColors,
    done: String,
    lines: CodeLines,
    highlighter: LineHighlighter,
}

/// A `Streamed` block, shared between its streaming highlighter and the `Highlighter` it
/// started from, on one thread (syntect's parse state with the Oniguruma engine is not `Send`).
pub type SharedStream = Rc<RefCell<Streamed>>;

impl Streamed {
    /// A new block in `lang`, highlighted by `highlighter`.
    pub(super) fn new(highlighter: LineHighlighter, lang: &str, colors: CodeColors) -> SharedStream {
        Rc::new(RefCell::new(Streamed {
            lang: lang.to_string(),
            colors,
            done: String::new(),
            lines: Arc::default(),
            highlighter,
        }))
    }

    /// The shared block, to read or extend (held only within one call, never across one).
    pub fn lock(stream: &SharedStream) -> RefMut<'_, Streamed> {
        stream.borrow_mut()
    }

    /// The block is in `lang`, coloured with `colors`.
    pub fn is(&self, lang: &str, colors: CodeColors) -> bool {
        self.lang == lang && self.colors == colors
    }

    /// The complete lines highlighted so far, each followed by `\n`.
    pub fn done(&self) -> &str {
        &self.done
    }

    /// One per line of `done`.
    pub fn lines(&self) -> &[Line<'static>] {
        &self.lines
    }

    /// `lines`, shared.
    pub(super) fn shared_lines(&self) -> CodeLines {
        Arc::clone(&self.lines)
    }

    pub fn panicked(&self) -> bool {
        self.highlighter.panicked()
    }

    /// Highlights `text`, complete lines that each end in `\n` (tabs expanded), after `done`.
    pub fn extend(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let panicked = self.highlighter.panicked();
        let lines = Arc::make_mut(&mut self.lines);
        for line in text.split_inclusive('\n') {
            lines.push(self.highlighter.line(line.strip_suffix('\n').unwrap_or(line)));
        }
        self.done.push_str(text);
        if self.highlighter.panicked() && !panicked {
            *lines = plain_lines(self.done.strip_suffix('\n').unwrap_or(&self.done), self.colors);
        }
    }

    /// The unfinished last line (tabs expanded), highlighted from a copy of the state; `None`
    /// when syntect panicked on it, so that this time the whole block must be plain.
    pub fn last(&self, text: &str) -> Option<Line<'static>> {
        let mut scratch = self.highlighter.clone();
        let line = scratch.line(text);
        (self.highlighter.panicked() || !scratch.panicked()).then_some(line)
    }
}
