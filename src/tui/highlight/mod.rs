//! Syntax highlighting of fenced code for the conversation pane: code text and a language
//! token in, one styled `Line` per source line out. `Highlighter` is a value the pane that
//! shows code owns (the conversation pane, which hands it to each reply's document): it holds
//! the bounded cache of whole blocks keyed by (content hash, language, colours), the latest
//! streamed block (`Streamed`, held weakly) and the caches its lines share (`line.rs`), so
//! nothing here is global but the syntect sets, read-only once loaded. `line.rs` owns
//! `LineHighlighter`, the one place syntect highlights: line by line, so a block still
//! streaming in can go on where it stopped (see `markdown/open/code.rs`); `memo.rs` the parse
//! memo; `streamed.rs` the streamed block. Once a streamed block is finished and shown,
//! `Highlighter::code` takes the lines streaming already made (shared, not copied) instead of
//! highlighting it again. This module also reads a fence's info string (`fence_lang`).
//! Every syntect call runs under `guarded`; when one panics the whole block is shown plain.
//! The colours (none, dark or light background: `CodeColors`) are passed with every block;
//! blocks and cache entries remember which they were made with.
//! It must not wrap or lay out lines, never loads anything at startup, and never panics.

#[cfg(test)]
mod inject;
mod line;
mod memo;
mod streamed;

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::{Rc, Weak};
use std::sync::Arc;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use line::LineCaches;
pub use line::LineHighlighter;
pub use streamed::{SharedStream, Streamed};

use super::wrap::expand_tabs;

/// Highlighted lines of one code block, shared between the cache and every layout of it.
pub type CodeLines = Arc<Vec<Line<'static>>>;

/// Entries kept before the cache is emptied and starts over.
const MAX_CACHE_ENTRIES: usize = 4096;

/// How code is coloured: at all (`color: false` under NO_COLOR), and for a light terminal
/// background (`light`) or a dark one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CodeColors {
    pub color: bool,
    pub light: bool,
}

impl CodeColors {
    /// Coloured for a dark background (the default).
    pub const DARK: CodeColors = CodeColors { color: true, light: false };
    /// Coloured for a light background.
    pub const LIGHT: CodeColors = CodeColors { color: true, light: true };
}

/// Highlights code blocks and keeps what makes that fast: the cache of whole blocks, the
/// latest streamed block and the caches of its line highlighters. Owned by the pane that
/// shows code (cloning it shares the caches, for the documents the pane hands it to); used
/// on the thread that owns it (syntect's parse state with the Oniguruma engine is not
/// `Send`). `Default` is a fresh one with empty caches.
#[derive(Clone, Default)]
pub struct Highlighter {
    shared: Rc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// Whole blocks highlighted, by (content hash, language, colours).
    blocks: RefCell<HashMap<CacheKey, CodeLines>>,
    /// The latest block to start streaming (held weakly, so a dropped document frees it).
    latest: RefCell<Weak<RefCell<Streamed>>>,
    /// What every line highlighter made here shares.
    lines: Rc<LineCaches>,
}

impl Highlighter {
    /// Highlighted lines for `code` in `lang` (a fence info token such as `rust` or `py`), from
    /// the cache when this block was highlighted before. Tabs become `TAB_WIDTH` spaces; the
    /// trailing newline of the block does not produce an empty last line.
    pub fn code(&self, code: &str, lang: &str, colors: CodeColors) -> CodeLines {
        let key = cache_key(code, lang, colors);
        if let Some(hit) = self.shared.blocks.borrow().get(&key) {
            return Arc::clone(hit);
        }
        let lines =
            self.streamed_lines(code, lang, colors).unwrap_or_else(|| Arc::new(self.uncached(code, lang, colors)));
        let mut blocks = self.shared.blocks.borrow_mut();
        if blocks.len() >= MAX_CACHE_ENTRIES {
            blocks.clear();
        }
        blocks.insert(key, Arc::clone(&lines));
        lines
    }

    /// Highlights without touching the block cache: for code that is still streaming in and
    /// would only fill the cache with prefixes of itself.
    pub fn uncached(&self, code: &str, lang: &str, colors: CodeColors) -> Vec<Line<'static>> {
        let code = expand_tabs(code);
        let code = code.strip_suffix('\n').unwrap_or(&code);
        let mut highlighter = self.line_highlighter(lang, colors);
        let lines = code.split('\n').map(|line| highlighter.line(line)).collect();
        if highlighter.panicked() {
            plain_lines(code, colors)
        } else {
            lines
        }
    }

    /// A highlighter of one block's lines in `lang`, sharing this one's caches.
    pub fn line_highlighter(&self, lang: &str, colors: CodeColors) -> LineHighlighter {
        LineHighlighter::new(Rc::clone(&self.shared.lines), lang, colors)
    }

    /// A new streamed block in `lang`, made the one `code` may go on from (the latest to start
    /// streaming here).
    pub fn start_stream(&self, lang: &str, colors: CodeColors) -> SharedStream {
        let stream = Streamed::new(self.line_highlighter(lang, colors), lang, colors);
        *self.shared.latest.borrow_mut() = Rc::downgrade(&stream);
        stream
    }

    /// Lines of `code` in `lang` went on from the latest streamed block when `code` (complete
    /// lines) extends it: a block that finished streaming is not highlighted a second time.
    fn streamed_lines(&self, code: &str, lang: &str, colors: CodeColors) -> Option<CodeLines> {
        let stream = self.shared.latest.borrow().upgrade()?;
        let mut stream = stream.try_borrow_mut().ok()?;
        let code = expand_tabs(code);
        let rest = code.strip_prefix(stream.done()).filter(|_| stream.is(lang, colors) && code.ends_with('\n'))?;
        stream.extend(rest);
        Some(stream.shared_lines())
    }

    /// Test-only counts and panics of this highlighter's lines.
    #[cfg(test)]
    pub(crate) fn inject(&self) -> &inject::Inject {
        &self.shared.lines.inject
    }

    /// Test-only: until the guard is dropped, a line holding `marker` makes syntect "panic".
    #[cfg(test)]
    pub(crate) fn panic_on(&self, marker: &'static str) -> inject::PanicOn {
        inject::panic_on(Rc::clone(&self.shared.lines), marker)
    }
}

/// Style of code that is not highlighted (unknown language, no colour, or a fallback).
pub fn plain_code_style(colors: CodeColors) -> Style {
    match (colors.color, colors.light) {
        (false, _) => Style::new(),
        (true, false) => Style::new().fg(Color::Rgb(0xc0, 0xc5, 0xce)),
        (true, true) => Style::new().fg(Color::Rgb(0x32, 0x38, 0x40)),
    }
}

/// The language token of a fence's info string: `rust` for "rust", "rust,ignore" or
/// "{.rust}". The only place an info string is read.
pub fn fence_lang(info: &str) -> &str {
    info.split(|c: char| c.is_whitespace() || matches!(c, ',' | '{' | '}' | '.')).find(|s| !s.is_empty()).unwrap_or("")
}

/// Loads the syntax sets and both themes on a thread of its own (once; not with colour off),
/// highlighting one line so the commonest grammar's patterns are compiled too: called when
/// the first prompt is sent, so the reply's first code block does not stall the UI thread
/// (and a key typed then) for the ~100 ms loading takes. Startup still loads nothing. What it
/// loads is the process's read-only syntect data; its caches are its own and dropped.
pub fn warm_up(color: bool) {
    static WARMED: std::sync::Once = std::sync::Once::new();
    if color {
        WARMED.call_once(|| {
            std::thread::spawn(|| {
                let _ = line::highlighter(true);
                Highlighter::default().line_highlighter("rust", CodeColors::DARK).line("fn main() {}")
            });
        });
    }
}

/// The same lines `Highlighter::code` gives (same text, tabs expanded) in the plain code
/// style: cheap, for measuring heights of code that is not on screen.
pub fn plain_code(code: &str, colors: CodeColors) -> Vec<Line<'static>> {
    let code = expand_tabs(code);
    plain_lines(code.strip_suffix('\n').unwrap_or(&code), colors)
}

/// One plain line per `\n`-separated line of `code` (tabs already expanded).
pub fn plain_lines(code: &str, colors: CodeColors) -> Vec<Line<'static>> {
    let style = plain_code_style(colors);
    code.split('\n').map(|line| Line::from(Span::styled(line.to_string(), style))).collect()
}

/// (content hash, language, colours).
type CacheKey = (u64, String, CodeColors);

fn cache_key(code: &str, lang: &str, colors: CodeColors) -> CacheKey {
    let mut hasher = DefaultHasher::new();
    code.hash(&mut hasher);
    (hasher.finish(), lang.to_string(), colors)
}

#[cfg(test)]
mod tests;
