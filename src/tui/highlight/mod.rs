//! Syntax highlighting of fenced code for the conversation pane: code text and a language
//! token in, one styled `Line` per source line out. Owns a bounded cache keyed by (content
//! hash, language, colour), the reading of a fence's info string (`fence_lang`) and the
//! streamed block (`Streamed`); `line.rs` owns `LineHighlighter`, the one place syntect
//! highlights: line by line, so a block still streaming in can go on where it stopped (see
//! `markdown/open_code.rs`). The latest such block is shared (`Streamed`, held weakly here):
//! once it is finished and shown, `highlight_code` takes the lines streaming already made
//! (shared, not copied) instead of highlighting it again.
//! Every syntect call runs under `guarded`; when one panics the whole block is shown plain.
//! The syntect theme (dark or light) is chosen once for the UI thread, which renders all
//! Markdown (`use_light`, from the UI's `Theme`); blocks and cache entries remember which one
//! they were made with.
//! It must not wrap or lay out lines, never loads anything at startup, and never panics.

mod line;

use std::cell::{RefCell, RefMut};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, OnceLock};

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

#[cfg(test)]
pub(crate) use line::inject;
pub use line::LineHighlighter;

use super::wrap::expand_tabs;

/// Highlighted lines of one code block, shared between the cache and every layout of it.
pub type CodeLines = Arc<Vec<Line<'static>>>;

/// Entries kept before the cache is emptied and starts over.
const MAX_CACHE_ENTRIES: usize = 4096;

thread_local! {
    /// Code on this thread is highlighted with the light theme.
    static LIGHT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Highlights code on this thread (the UI thread) from now on with the light syntect theme
/// (`true`, for a light terminal background) or the dark one. Set at start, before anything
/// is highlighted.
pub fn use_light(light: bool) {
    LIGHT.with(|cell| cell.set(light));
}

/// Whether code on this thread is highlighted with the light theme.
pub fn light() -> bool {
    LIGHT.with(std::cell::Cell::get)
}

/// Style of code that is not highlighted (unknown language, no colour, or a fallback).
pub fn plain_code_style(color: bool) -> Style {
    match (color, light()) {
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

/// Highlighted lines for `code` in `lang` (a fence info token such as `rust` or `py`), from the
/// cache when this block was highlighted before. Tabs become `TAB_WIDTH` spaces; the trailing newline
/// of the block does not produce an empty last line.
pub fn highlight_code(code: &str, lang: &str, color: bool) -> CodeLines {
    let key = cache_key(code, lang, color);
    if let Some(hit) = cache().lock().ok().and_then(|map| map.get(&key).cloned()) {
        return hit;
    }
    let lines = streamed_lines(code, lang, color).unwrap_or_else(|| Arc::new(highlight_uncached(code, lang, color)));
    if let Ok(mut map) = cache().lock() {
        if map.len() >= MAX_CACHE_ENTRIES {
            map.clear();
        }
        map.insert(key, Arc::clone(&lines));
    }
    lines
}

/// A code block highlighted line by line as it streams in (`markdown/open_code.rs` drives it):
/// its complete lines so far (tabs expanded, each followed by `\n`), one highlighted `Line` per
/// line of them (exactly what `highlight_uncached` gives for that text: all plain once syntect
/// panicked) and syntect's state after them. The lines are shared with `highlight_code` once
/// the block is finished (copied only if it then grew, which a finished block does not).
pub struct Streamed {
    lang: String,
    color: bool,
    light: bool,
    done: String,
    lines: CodeLines,
    highlighter: LineHighlighter,
}

/// A `Streamed` block, shared between its streaming highlighter and `highlight_code` on one
/// thread (syntect's parse state with the Oniguruma engine is not `Send`).
pub type SharedStream = Rc<RefCell<Streamed>>;

impl Streamed {
    /// A new block in `lang`, made the one `highlight_code` may go on from (the latest to
    /// start streaming on this thread; held weakly there, so a dropped document frees it).
    pub fn start(lang: &str, color: bool) -> SharedStream {
        let stream = Rc::new(RefCell::new(Streamed {
            lang: lang.to_string(),
            color,
            light: light(),
            done: String::new(),
            lines: Arc::default(),
            highlighter: LineHighlighter::new(lang, color),
        }));
        LATEST_STREAM.with(|latest| *latest.borrow_mut() = Rc::downgrade(&stream));
        stream
    }

    /// The shared block, to read or extend (held only within one call, never across one).
    pub fn lock(stream: &SharedStream) -> RefMut<'_, Streamed> {
        stream.borrow_mut()
    }

    pub fn is(&self, lang: &str, color: bool) -> bool {
        self.lang == lang && self.color == color && self.light == light()
    }

    /// The complete lines highlighted so far, each followed by `\n`.
    pub fn done(&self) -> &str {
        &self.done
    }

    /// One per line of `done`.
    pub fn lines(&self) -> &[Line<'static>] {
        &self.lines
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
            *lines = plain_lines(self.done.strip_suffix('\n').unwrap_or(&self.done), self.color);
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

thread_local! {
    /// The latest block to start streaming on this thread (the UI thread renders them all).
    static LATEST_STREAM: RefCell<Weak<RefCell<Streamed>>> = const { RefCell::new(Weak::new()) };
}

/// Lines of `code` in `lang` went on from the latest streamed block when `code` (complete
/// lines) extends it: a block that finished streaming is not highlighted a second time.
fn streamed_lines(code: &str, lang: &str, color: bool) -> Option<CodeLines> {
    let stream = LATEST_STREAM.with(|latest| latest.borrow().upgrade())?;
    let mut stream = stream.try_borrow_mut().ok()?;
    let code = expand_tabs(code);
    let rest = code.strip_prefix(stream.done.as_str()).filter(|_| stream.is(lang, color) && code.ends_with('\n'))?;
    stream.extend(rest);
    Some(Arc::clone(&stream.lines))
}

/// Loads the syntax sets and the theme on a thread of its own (once; not with colour off),
/// highlighting one line so the commonest grammar's patterns are compiled too: called when
/// the first prompt is sent, so the reply's first code block does not stall the UI thread
/// (and a key typed then) for the ~100 ms loading takes. Startup still loads nothing.
pub fn warm_up(color: bool) {
    static WARMED: std::sync::Once = std::sync::Once::new();
    if color {
        let light = light();
        WARMED.call_once(|| {
            std::thread::spawn(move || {
                use_light(light);
                LineHighlighter::new("rust", true).line("fn main() {}")
            });
        });
    }
}

/// Highlights without touching the cache: for code that is still streaming in and would only
/// fill the cache with prefixes of itself.
pub fn highlight_uncached(code: &str, lang: &str, color: bool) -> Vec<Line<'static>> {
    let code = expand_tabs(code);
    let code = code.strip_suffix('\n').unwrap_or(&code);
    let mut highlighter = LineHighlighter::new(lang, color);
    let lines = code.split('\n').map(|line| highlighter.line(line)).collect();
    if highlighter.panicked() {
        plain_lines(code, color)
    } else {
        lines
    }
}

/// The same lines `highlight_code` gives (same text, tabs expanded) in the plain code style:
/// cheap, for measuring heights of code that is not on screen.
pub fn plain_code(code: &str, color: bool) -> Vec<Line<'static>> {
    let code = expand_tabs(code);
    plain_lines(code.strip_suffix('\n').unwrap_or(&code), color)
}

/// One plain line per `\n`-separated line of `code` (tabs already expanded).
pub fn plain_lines(code: &str, color: bool) -> Vec<Line<'static>> {
    let style = plain_code_style(color);
    code.split('\n').map(|line| Line::from(Span::styled(line.to_string(), style))).collect()
}

/// (content hash, language, colour, light theme).
type CacheKey = (u64, String, bool, bool);

fn cache_key(code: &str, lang: &str, color: bool) -> CacheKey {
    let mut hasher = DefaultHasher::new();
    code.hash(&mut hasher);
    (hasher.finish(), lang.to_string(), color, light())
}

type Cache = Mutex<HashMap<CacheKey, CodeLines>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn rust_code_gets_several_colours() {
        let lines = highlight_code("fn main() {\n    let x = \"hi\";\n}\n", "rust", true);
        assert_eq!(lines.len(), 3);
        assert_eq!(text(&lines[1]), "    let x = \"hi\";");
        let colours: std::collections::HashSet<_> =
            lines.iter().flat_map(|l| l.spans.iter().map(|s| s.style.fg)).collect();
        assert!(colours.len() > 2, "{colours:?}");
    }

    #[test]
    fn unknown_language_is_plain_code() {
        let lines = highlight_code("a b\nc", "no-such-lang", true);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.spans.iter().all(|s| s.style == plain_code_style(true))));
    }

    #[test]
    fn without_colour_no_span_has_a_colour() {
        let lines = highlight_code("fn main() {}\n", "rust", false);
        assert!(lines.iter().all(|l| l.spans.iter().all(|s| s.style.fg.is_none() && s.style.bg.is_none())));
    }

    #[test]
    fn plain_code_has_the_same_text_as_highlighted_code() {
        let code = "fn main() {\n\tlet x = 1;\n}\n";
        let plain: Vec<String> = plain_code(code, true).iter().map(text).collect();
        let coloured: Vec<String> = highlight_code(code, "rust", true).iter().map(text).collect();
        assert_eq!(plain, coloured);
    }

    #[test]
    fn tabs_become_spaces() {
        let lines = highlight_code("\tx", "", true);
        assert_eq!(text(&lines[0]), "    x");
    }

    #[test]
    fn same_block_is_served_from_the_cache() {
        let a = highlight_code("let cached = 1;", "rust", true);
        let b = highlight_code("let cached = 1;", "rust", true);
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn a_syntect_panic_makes_the_whole_block_plain_and_is_known_to_be_caught() {
        let code = "fn main() {\n    BOOM();\n}\n";
        let highlighted = highlight_uncached(code, "rust", true);
        let _panic = inject::panic_on("BOOM");
        assert_ne!(highlighted, plain_code(code, true));
        assert_eq!(highlight_uncached(code, "rust", true), plain_code(code, true));
        assert_eq!(line::guarded(crate::panics::panic_is_caught), Some(true));
        assert!(!crate::panics::panic_is_caught());
    }

    /// Inputs that differ in anything the lines depend on (code, language, colour, theme) get
    /// different cache keys; the width is no part of them (highlighting does not wrap).
    #[test]
    fn inputs_that_differ_get_different_keys() {
        let codes = ["", "\n", "fn a() {}", "fn a() {}\n", "fn a() {}\n\n", "\tx", "    x", "é", "e\u{301}"];
        let langs = ["", "rust", "rs", "Rust", "python", "rust "];
        let mut keys = std::collections::HashMap::new();
        for light in [false, true] {
            use_light(light);
            for code in codes {
                for lang in langs {
                    for color in [false, true] {
                        let key = cache_key(code, lang, color);
                        assert_eq!(key, cache_key(code, lang, color), "a key is stable");
                        if let Some(other) = keys.insert(key, (code, lang, color, light)) {
                            panic!("{other:?} and {:?} share a key", (code, lang, color, light));
                        }
                    }
                }
            }
        }
        use_light(false);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for lang in ["rust", "python", "html", "c", "bash", "json"] {
            for code in ["", "\n", "\"unterminated", "/* open comment", "<<<EOF\n", "\u{0}\u{7f}é漢字🎉", "}}}}{{{{"]
            {
                let _ = highlight_uncached(code, lang, true);
            }
        }
    }
}
