//! Syntax highlighting of fenced code for the conversation pane: code text and a language
//! token in, one styled `Line` per source line out. Owns the lazily loaded syntect sets, a
//! bounded cache keyed by (content hash, language, colour), the reading of a fence's info
//! string (`fence_lang`) and `LineHighlighter`, the one place syntect highlights: line by line,
//! so a block still streaming in can go on where it stopped (see `markdown/open_code.rs`).
//! The latest such block is shared (`Streamed`, held weakly here): once it is finished and shown,
//! `highlight_code` takes the lines streaming already made instead of highlighting it again.
//! Every syntect call runs under `guarded`; when one panics the whole block is shown plain.
//! It must not wrap or lay out lines, never loads anything at startup, and never panics.

use std::cell::{RefCell, RefMut};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex, OnceLock};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, Highlighter, Theme, ThemeSet};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

use super::wrap::expand_tabs;

/// Highlighted lines of one code block, shared between the cache and every layout of it.
pub type CodeLines = Arc<Vec<Line<'static>>>;

const THEME: &str = "base16-ocean.dark";
/// Lines longer than this are shown plain: regex highlighting of huge lines can be very slow.
const MAX_HIGHLIGHT_LINE: usize = 4096;
/// Entries kept before the cache is emptied and starts over.
const MAX_CACHE_ENTRIES: usize = 4096;

/// Style of code that is not highlighted (unknown language, no colour, or a fallback).
pub fn plain_code_style(color: bool) -> Style {
    if color {
        Style::new().fg(Color::Rgb(0xc0, 0xc5, 0xce))
    } else {
        Style::new()
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
    let lines = Arc::new(streamed_lines(code, lang, color).unwrap_or_else(|| highlight_uncached(code, lang, color)));
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
/// panicked) and syntect's state after them.
pub struct Streamed {
    lang: String,
    color: bool,
    done: String,
    lines: Vec<Line<'static>>,
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
            done: String::new(),
            lines: Vec::new(),
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
        self.lang == lang && self.color == color
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
        let panicked = self.highlighter.panicked();
        for line in text.split_inclusive('\n') {
            self.lines.push(self.highlighter.line(line.strip_suffix('\n').unwrap_or(line)));
        }
        self.done.push_str(text);
        if self.highlighter.panicked() && !panicked {
            self.lines = plain_lines(self.done.strip_suffix('\n').unwrap_or(&self.done), self.color);
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
fn streamed_lines(code: &str, lang: &str, color: bool) -> Option<Vec<Line<'static>>> {
    let stream = LATEST_STREAM.with(|latest| latest.borrow().upgrade())?;
    let mut stream = stream.try_borrow_mut().ok()?;
    let code = expand_tabs(code);
    let rest = code.strip_prefix(stream.done.as_str()).filter(|_| stream.is(lang, color) && code.ends_with('\n'))?;
    stream.extend(rest);
    Some(stream.lines.clone())
}

/// Loads the syntax sets and the theme on a thread of its own (once; not with colour off),
/// highlighting one line so the commonest grammar's patterns are compiled too: called when
/// the first prompt is sent, so the reply's first code block does not stall the UI thread
/// (and a key typed then) for the ~100 ms loading takes. Startup still loads nothing.
pub fn warm_up(color: bool) {
    static WARMED: std::sync::Once = std::sync::Once::new();
    if color {
        WARMED.call_once(|| {
            std::thread::spawn(|| LineHighlighter::new("rust", true).line("fn main() {}"));
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

/// Syntect's state after the lines highlighted so far.
#[derive(Clone)]
struct SyntaxState {
    parse: ParseState,
    highlight: HighlightState,
}

/// Highlights a code block one line at a time, keeping syntect's state between lines: a block
/// that grows goes on from where it stopped, and its unfinished last line is highlighted from a
/// copy (`clone`). Line by line it gives exactly the lines `highlight_uncached` gives.
#[derive(Clone)]
pub struct LineHighlighter {
    /// `None` when the block is plain: no colour, an unknown language or no theme.
    state: Option<SyntaxState>,
    color: bool,
    /// A line failed to parse: it and every later line are plain.
    failed: bool,
    /// Syntect panicked: the block is to be shown plain as a whole (see `panicked`).
    panicked: bool,
    /// The line being highlighted, with its `\n`.
    buf: String,
}

impl LineHighlighter {
    /// A highlighter for a block in `lang` (a fence info token such as `rust` or `py`).
    pub fn new(lang: &str, color: bool) -> Self {
        let state = if color {
            guarded(|| {
                let syntax = find_syntax(lang)?;
                let highlight = HighlightState::new(highlighter()?, ScopeStack::new());
                Some(SyntaxState { parse: ParseState::new(syntax), highlight })
            })
        } else {
            Some(None)
        };
        LineHighlighter { panicked: state.is_none(), state: state.flatten(), color, failed: false, buf: String::new() }
    }

    /// One line (without its `\n`, tabs expanded), highlighted from the current state, which it
    /// advances. Plain once a line failed to parse, and for lines too long to highlight.
    pub fn line(&mut self, text: &str) -> Line<'static> {
        let plain = |color| Line::from(Span::styled(text.to_string(), plain_code_style(color)));
        let Some(state) = self.state.as_mut().filter(|_| !self.failed && !self.panicked) else {
            return plain(self.color);
        };
        if text.len() > MAX_HIGHLIGHT_LINE {
            return plain(self.color);
        }
        #[cfg(test)]
        inject::count_line();
        self.buf.clear();
        self.buf.push_str(text);
        self.buf.push('\n');
        let line = &self.buf;
        let highlighted = guarded(|| {
            #[cfg(test)]
            inject::check(line);
            let ops = state.parse.parse_line(line, &sets().syntaxes).ok()?;
            let regions: Vec<_> = HighlightIterator::new(&mut state.highlight, &ops, line, highlighter()?).collect();
            Some(to_line(&regions))
        });
        match highlighted {
            Some(Some(line)) => line,
            Some(None) => {
                self.failed = true;
                plain(self.color)
            }
            None => {
                self.panicked = true;
                plain(self.color)
            }
        }
    }

    /// Syntect panicked on some line: the state is unusable, every later line is plain, and the
    /// caller shows the whole block plain (`plain_lines`), as `highlight_uncached` does.
    pub fn panicked(&self) -> bool {
        self.panicked
    }
}

/// Runs syntect work, catching a panic in it: `None` when it panicked. The thread is marked
/// meanwhile (the kernel's one "caught" flag), so the panic hooks leave such a panic alone.
fn guarded<T>(job: impl FnOnce() -> T) -> Option<T> {
    crate::agent::caught::catch_sync(job).ok()
}

/// A test-only way to make syntect "panic" inside `guarded`, on this thread only.
#[cfg(test)]
pub(crate) mod inject {
    use std::cell::Cell;

    thread_local! {
        static PANIC_ON: Cell<Option<&'static str>> = const { Cell::new(None) };
        static LINES: Cell<usize> = const { Cell::new(0) };
    }

    /// Lines syntect has highlighted on this thread so far.
    pub(crate) fn lines_highlighted() -> usize {
        LINES.with(Cell::get)
    }

    pub(super) fn count_line() {
        LINES.with(|n| n.set(n.get() + 1));
    }

    /// Injects panics while alive; dropping it stops them.
    pub(crate) struct PanicOn;

    impl Drop for PanicOn {
        fn drop(&mut self) {
            PANIC_ON.with(|p| p.set(None));
        }
    }

    /// Until the returned guard is dropped, highlighting a line that contains `marker` panics.
    pub(crate) fn panic_on(marker: &'static str) -> PanicOn {
        PANIC_ON.with(|p| p.set(Some(marker)));
        PanicOn
    }

    pub(super) fn check(line: &str) {
        if PANIC_ON.with(Cell::get).is_some_and(|marker| line.contains(marker)) {
            panic!("injected highlighter panic");
        }
    }
}

fn to_line(regions: &[(syntect::highlighting::Style, &str)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::with_capacity(regions.len());
    for (style, text) in regions {
        let text = text.trim_end_matches('\n');
        if text.is_empty() {
            continue;
        }
        let style = to_ratatui(*style);
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => spans.push(Span::styled(text.to_string(), style)),
        }
    }
    Line::from(spans)
}

/// Foreground and font style only: the pane's background stays the terminal's.
fn to_ratatui(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

struct Sets {
    syntaxes: SyntaxSet,
    theme: Option<Theme>,
}

/// Loaded on first use only (tens of milliseconds), never at startup.
fn sets() -> &'static Sets {
    static SETS: OnceLock<Sets> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        Sets { syntaxes: SyntaxSet::load_defaults_newlines(), theme: themes.themes.remove(THEME) }
    })
}

/// The theme's highlighter, built once (it indexes the theme's scope selectors).
fn highlighter() -> Option<&'static Highlighter<'static>> {
    static HIGHLIGHTER: OnceLock<Option<Highlighter<'static>>> = OnceLock::new();
    HIGHLIGHTER.get_or_init(|| sets().theme.as_ref().map(Highlighter::new)).as_ref()
}

fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
    let token = lang.trim();
    if token.is_empty() {
        return None;
    }
    let syntaxes = &sets().syntaxes;
    let lower = token.to_ascii_lowercase();
    let alias = match lower.as_str() {
        "sh" | "shell" | "zsh" | "console" => "bash",
        "py" | "python3" => "python",
        "js" | "jsx" | "javascript" | "ts" | "typescript" | "tsx" | "json5" => "js",
        "rs" => "rust",
        "yml" => "yaml",
        "c++" | "cc" | "hpp" => "cpp",
        "golang" => "go",
        other => other,
    };
    syntaxes
        .find_syntax_by_token(alias)
        .or_else(|| syntaxes.find_syntax_by_extension(alias))
        .or_else(|| syntaxes.find_syntax_by_name(token))
        .filter(|syntax| syntax.name != "Plain Text")
}

fn cache_key(code: &str, lang: &str, color: bool) -> (u64, String, bool) {
    let mut hasher = DefaultHasher::new();
    code.hash(&mut hasher);
    (hasher.finish(), lang.to_string(), color)
}

type Cache = Mutex<HashMap<(u64, String, bool), CodeLines>>;

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
        assert_eq!(guarded(crate::agent::caught::panic_is_caught), Some(true));
        assert!(!crate::agent::caught::panic_is_caught());
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
