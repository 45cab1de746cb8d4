//! `LineHighlighter`, the one place syntect highlights: one line at a time, keeping syntect's
//! state between lines, so a block that grows goes on where it stopped. Owns the syntect sets
//! (loaded on first use: read-only data, the one thing shared by the whole process), the
//! caches lines share (`LineCaches`: the parse memo of `memo.rs`, styles by scope stack,
//! short span texts; one per `Highlighter`, so per pane, never global) and the styled-span
//! building; `mod.rs` owns what is done with whole blocks (the cache, `Streamed`).
//!
//! Per line only syntect's parse is unavoidable (the state of every later line depends on
//! it), so everything around it is kept cheap:
//! - **Parse memo** (`memo.rs`): a short line seen again in the same parser state (`}`, a blank
//!   line, `    }`, `} else {`) gets the scope changes its first parse gave, not a second
//!   parse. The parse is a function of (state, line), so this changes nothing but the cost.
//! - **Styles by scope stack**: the scopes open are kept as a plain `ScopeStack` and a run's
//!   style is looked up by that stack in a cache (syntect's `style_for_stack`, once per
//!   stack), instead of syntect's `HighlightState`, which matches the theme's selectors on
//!   every push. Same styles (the tests compare both).
//! - **Spans**: runs of one style are merged as ranges of the line, and short span texts are
//!   shared `'static` strings (a bounded table per `LineCaches`), so a line costs few allocations and cloning it
//!   (layout, the frame) costs fewer.
//!
//! Every syntect call runs under `guarded`; it never panics.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::OnceLock;

#[cfg(test)]
use super::inject::Inject;
use super::memo::Memo;
use super::CodeColors;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{FontStyle, Highlighter, Theme, ThemeSet};
use syntect::parsing::{ParseState, Scope, ScopeStack, ScopeStackOp, SyntaxReference, SyntaxSet};

use super::plain_code_style;

/// The syntect themes: for a dark background, and for a light one (`CodeColors::light`).
const DARK_THEME: &str = "base16-ocean.dark";
const LIGHT_THEME: &str = "InspiredGitHub";
/// Lines longer than this are shown plain: regex highlighting of huge lines can be very slow.
const MAX_HIGHLIGHT_LINE: usize = 4096;

/// What the line highlighters of one `Highlighter` share, so that work done for one line
/// serves the next: the parse memo, the style of each scope stack seen (per theme) and the
/// short span texts (`shared`). Each is bounded and starts over when full.
#[derive(Default)]
pub(super) struct LineCaches {
    memo: RefCell<Memo>,
    /// One table per theme: dark, light.
    styles: RefCell<[HashMap<Box<[Scope]>, Style>; 2]>,
    /// Short span texts, leaked once each (at most `MAX_TEXTS` per `LineCaches`).
    texts: RefCell<HashSet<&'static str>>,
    /// Test-only: injected panics, and counts of what was highlighted and parsed.
    #[cfg(test)]
    pub(super) inject: Inject,
}

/// Syntect's state after the lines highlighted so far: the parser's, and the scopes open.
#[derive(Clone)]
struct SyntaxState {
    parse: ParseState,
    scopes: ScopeStack,
}

/// Highlights a code block one line at a time, keeping syntect's state between lines: a block
/// that grows goes on from where it stopped, and its unfinished last line is highlighted from a
/// copy (`clone`). Line by line it gives exactly the lines `highlight_uncached` gives.
#[derive(Clone)]
pub struct LineHighlighter {
    /// The caches of the `Highlighter` that made it.
    caches: Rc<LineCaches>,
    /// `None` when the block is plain: no colour, an unknown language or no theme.
    state: Option<SyntaxState>,
    /// Colour at all, and which theme (fixed when the block starts).
    colors: CodeColors,
    /// A line failed to parse: it and every later line are plain.
    failed: bool,
    /// Syntect panicked: the block is to be shown plain as a whole (see `panicked`).
    panicked: bool,
    /// The line being highlighted, with its `\n`.
    buf: String,
}

impl LineHighlighter {
    /// A highlighter for a block in `lang` (a fence info token such as `rust` or `py`) in
    /// `colors`, sharing `caches` with the other blocks of its `Highlighter`.
    pub(super) fn new(caches: Rc<LineCaches>, lang: &str, colors: CodeColors) -> Self {
        let state = if colors.color {
            guarded(|| {
                let syntax = find_syntax(lang)?;
                highlighter(colors.light)?;
                Some(SyntaxState { parse: ParseState::new(syntax), scopes: ScopeStack::new() })
            })
        } else {
            Some(None)
        };
        LineHighlighter {
            caches,
            panicked: state.is_none(),
            state: state.flatten(),
            colors,
            failed: false,
            buf: String::new(),
        }
    }

    /// One line (without its `\n`, tabs expanded), highlighted from the current state, which it
    /// advances. Plain once a line failed to parse, and for lines too long to highlight.
    pub fn line(&mut self, text: &str) -> Line<'static> {
        let plain = |colors| Line::from(Span::styled(text.to_string(), plain_code_style(colors)));
        let colors = self.colors;
        let Some(state) = self.state.as_mut().filter(|_| !self.failed && !self.panicked) else {
            return plain(colors);
        };
        if text.len() > MAX_HIGHLIGHT_LINE {
            return plain(colors);
        }
        let caches = &*self.caches;
        #[cfg(test)]
        caches.inject.count_line();
        self.buf.clear();
        self.buf.push_str(text);
        self.buf.push('\n');
        let line = &self.buf;
        let highlighted = guarded(|| {
            #[cfg(test)]
            caches.inject.check(line);
            let ops =
                caches.memo.borrow_mut().parse(&mut state.parse, line, |state, line| parse_now(caches, state, line))?;
            to_line(caches, line, &ops, &mut state.scopes, colors.light)
        });
        match highlighted {
            Some(Some(line)) => line,
            Some(None) => {
                self.failed = true;
                plain(colors)
            }
            None => {
                self.panicked = true;
                plain(colors)
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
pub(super) fn guarded<T>(job: impl FnOnce() -> T) -> Option<T> {
    crate::panics::catch_sync(job).ok()
}

/// Syntect's parse of `line` (with its `\n`) from `state`, which it advances; `None` when
/// syntect cannot parse it.
fn parse_now(_caches: &LineCaches, state: &mut ParseState, line: &str) -> Option<Vec<(usize, ScopeStackOp)>> {
    #[cfg(test)]
    _caches.inject.count_parse();
    state.parse_line(line, &sets().syntaxes).ok()
}

/// The styled line for `line` (with its `\n`, which no span includes) given the scope changes
/// `ops` parsed from it, applied to `scopes` as it goes: each piece of text takes the style of
/// the scopes open over it, and neighbouring pieces of one style make one span. `None` when the
/// changes do not apply (a restore with nothing cleared).
fn to_line(
    caches: &LineCaches,
    line: &str,
    ops: &[(usize, ScopeStackOp)],
    scopes: &mut ScopeStack,
    light: bool,
) -> Option<Line<'static>> {
    let end = line.strip_suffix('\n').unwrap_or(line).len();
    let mut runs: Vec<(usize, usize, Style)> = Vec::new();
    let mut style = None;
    let mut from = 0;
    let mut piece = |to: usize, scopes: &ScopeStack, style: &mut Option<Style>| {
        let to = to.min(end);
        if to > from {
            let style = *style.get_or_insert_with(|| style_of(caches, scopes.as_slice(), light));
            match runs.last_mut() {
                Some(last) if last.2 == style && last.1 == from => last.1 = to,
                _ => runs.push((from, to, style)),
            }
        }
        from = from.max(to);
    };
    for (at, op) in ops {
        piece(*at, scopes, &mut style);
        scopes.apply(op).ok()?;
        if !matches!(op, ScopeStackOp::Noop) {
            style = None;
        }
    }
    piece(end, scopes, &mut style);
    Some(Line::from(
        runs.into_iter()
            .map(|(from, to, style)| Span::styled(shared(caches, &line[from..to]), style))
            .collect::<Vec<_>>(),
    ))
}

/// The ratatui style of text under `scopes`: what syntect's `HighlightState` gives for that
/// stack (the theme's default for none), cached per stack in `caches`.
fn style_of(caches: &LineCaches, scopes: &[Scope], light: bool) -> Style {
    /// Stacks remembered before the cache starts over.
    const MAX_STACKS: usize = 4096;
    let Some(highlighter) = highlighter(light) else { return Style::new() };
    if scopes.is_empty() {
        return to_ratatui(highlighter.get_default());
    }
    let mut styles = caches.styles.borrow_mut();
    let styles = &mut styles[usize::from(light)];
    if let Some(style) = styles.get(scopes) {
        return *style;
    }
    if styles.len() >= MAX_STACKS {
        styles.clear();
    }
    let style = to_ratatui(highlighter.style_for_stack(scopes));
    styles.insert(scopes.into(), style);
    style
}

/// Span texts of up to this many bytes are shared.
const MAX_TEXT: usize = 12;
/// Shared span texts kept per `LineCaches` (never freed: lines drawn may still hold them).
const MAX_TEXTS: usize = 4096;

/// A span's text: a shared `'static` copy for short text (keywords, punctuation, common
/// names; a bounded table: at most `MAX_TEXTS` texts of up to `MAX_TEXT` bytes are ever kept
/// per `LineCaches`, never freed), an owned copy otherwise.
fn shared(caches: &LineCaches, text: &str) -> Cow<'static, str> {
    if text.len() > MAX_TEXT {
        return Cow::Owned(text.to_string());
    }
    let mut texts = caches.texts.borrow_mut();
    if let Some(shared) = texts.get(text) {
        return Cow::Borrowed(*shared);
    }
    if texts.len() >= MAX_TEXTS {
        return Cow::Owned(text.to_string());
    }
    let shared: &'static str = Box::leak(text.into());
    texts.insert(shared);
    Cow::Borrowed(shared)
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

pub(super) struct Sets {
    pub(super) syntaxes: SyntaxSet,
    dark: Option<Theme>,
    light: Option<Theme>,
}

/// Loaded on first use only (tens of milliseconds), never at startup; read-only after.
pub(super) fn sets() -> &'static Sets {
    static SETS: OnceLock<Sets> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        Sets {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            dark: themes.themes.remove(DARK_THEME),
            light: themes.themes.remove(LIGHT_THEME),
        }
    })
}

/// The theme's highlighter, built once (it indexes the theme's scope selectors).
pub(super) fn highlighter(light: bool) -> Option<&'static Highlighter<'static>> {
    static DARK: OnceLock<Option<Highlighter<'static>>> = OnceLock::new();
    static LIGHT: OnceLock<Option<Highlighter<'static>>> = OnceLock::new();
    if light {
        LIGHT.get_or_init(|| sets().light.as_ref().map(Highlighter::new)).as_ref()
    } else {
        DARK.get_or_init(|| sets().dark.as_ref().map(Highlighter::new)).as_ref()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use syntect::highlighting::{HighlightIterator, HighlightState};

    /// Syntect's own way, with nothing of ours between: a fresh parse of every line and its
    /// `HighlightState`, merged into spans the way the highlighter did before.
    fn reference(code: &str, lang: &str) -> Vec<Line<'static>> {
        let (Some(syntax), Some(highlighter)) = (find_syntax(lang), highlighter(false)) else { return Vec::new() };
        let mut parse = ParseState::new(syntax);
        let mut state = HighlightState::new(highlighter, ScopeStack::new());
        let mut out = Vec::new();
        for text in code.split('\n') {
            let line = format!("{text}\n");
            let ops = parse.parse_line(&line, &sets().syntaxes).unwrap_or_default();
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (style, text) in HighlightIterator::new(&mut state, &ops, &line, highlighter) {
                let text = text.trim_end_matches('\n');
                if text.is_empty() {
                    continue;
                }
                let style = to_ratatui(style);
                match spans.last_mut() {
                    Some(last) if last.style == style => last.content.to_mut().push_str(text),
                    _ => spans.push(Span::styled(text.to_string(), style)),
                }
            }
            out.push(Line::from(spans));
        }
        out
    }

    fn ours(caches: &Rc<LineCaches>, code: &str, lang: &str) -> Vec<Line<'static>> {
        let mut highlighter = LineHighlighter::new(Rc::clone(caches), lang, CodeColors::DARK);
        code.split('\n').map(|line| highlighter.line(line)).collect()
    }

    const SAMPLES: &[(&str, &str)] = &[
        ("rust", "use std::io;\n\n/// Docs with `code`.\n#[derive(Debug)]\npub struct A<'a> { x: &'a str }\n\nimpl A<'_> {\n    fn f(&self) -> Result<(), io::Error> {\n        let s = \"a \\\"quoted\\\" {}\";\n        /* block\n           comment */\n        if self.x.is_empty() {\n            return Ok(());\n        }\n        match 1u8 { 0 => {}, _ => {} }\n        Ok(())\n    }\n}\n"),
        ("python", "import os\n\n@decorator\ndef f(x: int) -> str:\n    \"\"\"Doc\n    string.\"\"\"\n    return f\"{x!r}\" + 'y'\n\nclass C(object):\n    pass\n"),
        ("html", "<!DOCTYPE html>\n<html>\n<head><style>body { color: red; }</style>\n<script>var x = \"</div>\";</script></head>\n<body class=\"a\">&amp;<!-- c --></body>\n</html>\n"),
        ("bash", "#!/bin/sh\nset -e\nfor f in *.txt; do\n  echo \"$f ${f%.txt}\" | tr a-z A-Z\ndone\ncat <<EOF\nhere $doc\nEOF\n"),
        ("json", "{\n  \"a\": [1, 2.5e3, true, null],\n  \"b\": {\"c\": \"d\\n\"}\n}\n"),
        ("c", "#include <stdio.h>\n#define X(a) ((a) * 2)\nint main(void) {\n    printf(\"%d\\n\", X(1)); // hi\n    return 0;\n}\n"),
        ("markdown", "# Title\n\nSome *text* and `code`.\n\n```rust\nfn main() {}\n```\n\n- item\n"),
        ("go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(`raw\nstring`)\n}\n"),
    ];

    /// Luminance (0..=1) of a style's foreground colour.
    fn luminance(style: Style) -> f64 {
        let Some(Color::Rgb(r, g, b)) = style.fg else { panic!("no colour: {style:?}") };
        (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b)) / 255.0
    }

    #[test]
    fn the_light_theme_writes_code_dark_and_the_dark_theme_light() {
        let default = |light| to_ratatui(highlighter(light).expect("theme loaded").get_default());
        assert!(luminance(default(true)) < 0.4, "{:?}", default(true));
        assert!(luminance(default(false)) > 0.6, "{:?}", default(false));
        let mut ops = Vec::new();
        let mut parse = ParseState::new(find_syntax("rust").expect("rust"));
        ops.extend(parse.parse_line("let x = \"hi\";\n", &sets().syntaxes).expect("parses"));
        let caches = LineCaches::default();
        let light = to_line(&caches, "let x = \"hi\";\n", &ops, &mut ScopeStack::new(), true).expect("a line");
        assert!(light.spans.len() > 2);
        for span in &light.spans {
            assert!(luminance(span.style) < 0.6, "pale on white: {span:?}");
        }
    }

    #[test]
    fn styles_are_what_syntect_itself_gives() {
        let caches = Rc::new(LineCaches::default());
        for (lang, code) in SAMPLES {
            // Twice: the second time every short line comes from the memo.
            for round in 0..2 {
                assert_eq!(ours(&caches, code, lang), reference(code, lang), "{lang}, round {round}");
            }
        }
    }

    #[test]
    fn a_short_line_seen_again_in_the_same_state_is_not_parsed_again() {
        let code = "fn a() {\n    x\n}\nfn b() {\n    x\n}\n".repeat(50);
        let caches = Rc::new(LineCaches::default());
        let lines = ours(&caches, &code, "rust");
        let parsed = caches.inject.lines_parsed();
        assert_eq!(lines, reference(&code, "rust"));
        // `fn a() {`, `fn b() {`, `    x` and `}` twice each (the memo keeps a line from its
        // second sighting), and the empty last line once.
        assert!(parsed <= 9, "{parsed} parses for {} lines", lines.len());
        // A line in another state is parsed: `    x` inside a block comment is a comment.
        let before = caches.inject.lines_parsed();
        let lines = ours(&caches, "/*\n    x\n}\n*/\n", "rust");
        assert!(caches.inject.lines_parsed() - before >= 3);
        assert_eq!(lines, reference("/*\n    x\n}\n*/\n", "rust"));
    }

    #[test]
    fn short_texts_are_shared_and_long_ones_owned() {
        let caches = Rc::new(LineCaches::default());
        let line = ours(&caches, "let x = \"a string long enough to be owned\";", "rust").remove(0);
        assert!(line.spans.iter().any(|s| matches!(s.content, Cow::Borrowed("let"))), "{line:?}");
        assert!(line.spans.iter().any(|s| matches!(&s.content, Cow::Owned(t) if t.len() > 12)), "{line:?}");
    }
}
