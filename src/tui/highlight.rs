//! Syntax highlighting of fenced code for the conversation pane: code text and a language
//! token in, one styled `Line` per source line out. Owns the lazily loaded syntect sets and a
//! bounded cache keyed by (content hash, language, colour). It must not wrap or lay out lines,
//! never loads anything at startup, and never panics on any input.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

/// Highlighted lines of one code block, shared between the cache and every layout of it.
pub type CodeLines = Arc<Vec<Line<'static>>>;

const THEME: &str = "base16-ocean.dark";
/// Lines longer than this are shown plain: regex highlighting of huge lines can be very slow.
pub(super) const MAX_HIGHLIGHT_LINE: usize = 4096;
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

/// Highlighted lines for `code` in `lang` (a fence info token such as `rust` or `py`), from the
/// cache when this block was highlighted before. Tabs become four spaces; the trailing newline
/// of the block does not produce an empty last line.
pub fn highlight_code(code: &str, lang: &str, color: bool) -> CodeLines {
    let key = cache_key(code, lang, color);
    if let Some(hit) = cache().lock().ok().and_then(|map| map.get(&key).cloned()) {
        return hit;
    }
    let lines = Arc::new(highlight_uncached(code, lang, color));
    if let Ok(mut map) = cache().lock() {
        if map.len() >= MAX_CACHE_ENTRIES {
            map.clear();
        }
        map.insert(key, Arc::clone(&lines));
    }
    lines
}

/// Highlights without touching the cache: for code that is still streaming in and would only
/// fill the cache with prefixes of itself.
pub fn highlight_uncached(code: &str, lang: &str, color: bool) -> Vec<Line<'static>> {
    let code = super::wrap::expand_tabs(code);
    let code = code.strip_suffix('\n').unwrap_or(&code);
    if !color {
        return plain_lines(code, color);
    }
    let syntax = if color { find_syntax(lang) } else { None };
    match syntax {
        Some(syntax) => {
            let job = std::panic::AssertUnwindSafe(|| highlight_with(code, syntax));
            std::panic::catch_unwind(job).unwrap_or_else(|_| plain_lines(code, color))
        }
        None => plain_lines(code, color),
    }
}

/// The same lines `highlight_code` gives (same text, tabs expanded) in the plain code style:
/// cheap, for measuring heights of code that is not on screen.
pub fn plain_code(code: &str, color: bool) -> Vec<Line<'static>> {
    let code = super::wrap::expand_tabs(code);
    plain_lines(code.strip_suffix('\n').unwrap_or(&code), color)
}

pub(super) fn plain_lines(code: &str, color: bool) -> Vec<Line<'static>> {
    let style = plain_code_style(color);
    code.split('\n').map(|line| Line::from(Span::styled(line.to_string(), style))).collect()
}

fn highlight_with(code: &str, syntax: &SyntaxReference) -> Vec<Line<'static>> {
    let sets = sets();
    let Some(theme) = sets.theme.as_ref() else {
        return plain_lines(code, true);
    };
    let mut highlighter = HighlightLines::new(syntax, theme);
    let mut failed = false;
    let mut out = Vec::new();
    let mut buf = String::new();
    for line in code.split('\n') {
        if failed || line.len() > MAX_HIGHLIGHT_LINE {
            out.push(Line::from(Span::styled(line.to_string(), plain_code_style(true))));
            continue;
        }
        buf.clear();
        buf.push_str(line);
        buf.push('\n');
        match highlighter.highlight_line(&buf, &sets.syntaxes) {
            Ok(regions) => out.push(to_line(&regions)),
            Err(_) => {
                failed = true;
                out.push(Line::from(Span::styled(line.to_string(), plain_code_style(true))));
            }
        }
    }
    out
}

pub(super) fn to_line(regions: &[(syntect::highlighting::Style, &str)]) -> Line<'static> {
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

pub(crate) struct Sets {
    pub(crate) syntaxes: SyntaxSet,
    pub(crate) theme: Option<Theme>,
}

/// Loaded on first use only (tens of milliseconds), never at startup.
pub(crate) fn sets() -> &'static Sets {
    static SETS: OnceLock<Sets> = OnceLock::new();
    SETS.get_or_init(|| {
        let mut themes = ThemeSet::load_defaults();
        Sets { syntaxes: SyntaxSet::load_defaults_newlines(), theme: themes.themes.remove(THEME) }
    })
}

pub(crate) fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
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
    fn odd_inputs_do_not_panic() {
        for lang in ["rust", "python", "html", "c", "bash", "json"] {
            for code in ["", "\n", "\"unterminated", "/* open comment", "<<<EOF\n", "\u{0}\u{7f}é漢字🎉", "}}}}{{{{"]
            {
                let _ = highlight_uncached(code, lang, true);
            }
        }
    }
}
