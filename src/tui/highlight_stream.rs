//! Highlighting of the code block that is still streaming in. Each frame would otherwise
//! re-highlight the whole open block from its first line (syntect is stateful), which makes
//! a long code block cost O(n²). This keeps the parser state after the last complete line,
//! so a frame only highlights the lines that arrived since, plus the unfinished last line.
//! It gives exactly the lines `highlight_uncached` would; it must not touch the shared cache.

use super::highlight::{find_syntax, plain_code, plain_code_style, plain_lines, sets, to_line, MAX_HIGHLIGHT_LINE};
use ratatui::text::{Line, Span};
use std::sync::Mutex;
use syntect::highlighting::{HighlightIterator, HighlightState, Highlighter};
use syntect::parsing::{ParseState, ScopeStack};

/// Where highlighting of the open block stopped.
struct Progress {
    lang: String,
    /// The complete lines highlighted so far, each followed by `\n` (tabs expanded).
    done: String,
    lines: Vec<Line<'static>>,
    parse: ParseState,
    highlight: HighlightState,
    /// A line failed to parse: everything after it is plain, as in `highlight_uncached`.
    failed: bool,
}

static PROGRESS: Mutex<Option<Progress>> = Mutex::new(None);

/// Highlighted lines of a code block that may still be growing.
pub fn highlight_streaming(code: &str, lang: &str, color: bool) -> Vec<Line<'static>> {
    let Some(syntax) = find_syntax(lang).filter(|_| color) else { return plain_code(code, color) };
    let Some(theme) = sets().theme.as_ref() else { return plain_lines(code, color) };
    let highlighter = Highlighter::new(theme);
    let code = super::wrap::expand_tabs(code);
    let body = code.strip_suffix('\n').unwrap_or(&code);
    // Everything up to the last newline is complete; the rest is the line being written.
    let (complete, last) = match body.rfind('\n') {
        Some(i) => (&body[..=i], &body[i + 1..]),
        None => ("", body),
    };
    let Ok(mut slot) = PROGRESS.lock() else { return plain_lines(body, color) };
    let reusable = slot.as_ref().is_some_and(|p| p.lang == lang && complete.starts_with(&p.done));
    if !reusable {
        *slot = Some(Progress {
            lang: lang.to_string(),
            done: String::new(),
            lines: Vec::new(),
            parse: ParseState::new(syntax),
            highlight: HighlightState::new(&highlighter, ScopeStack::new()),
            failed: false,
        });
    }
    let Some(progress) = slot.as_mut() else { return plain_lines(body, color) };
    let new = &complete[progress.done.len()..];
    for line in new.split_inclusive('\n') {
        let styled =
            highlight_line(line, &mut progress.parse, &mut progress.highlight, &highlighter, &mut progress.failed);
        progress.lines.push(styled);
    }
    progress.done.push_str(new);
    let mut lines = progress.lines.clone();
    let (mut parse, mut highlight, mut failed) = (progress.parse.clone(), progress.highlight.clone(), progress.failed);
    drop(slot);
    let last = format!("{last}\n");
    lines.push(highlight_line(&last, &mut parse, &mut highlight, &highlighter, &mut failed));
    lines
}

/// One line (with its `\n`) highlighted from the given state, which it advances.
pub(crate) fn highlight_line(
    line: &str,
    parse: &mut ParseState,
    highlight: &mut HighlightState,
    highlighter: &Highlighter<'_>,
    failed: &mut bool,
) -> Line<'static> {
    let text = line.strip_suffix('\n').unwrap_or(line);
    if *failed || text.len() > MAX_HIGHLIGHT_LINE {
        return Line::from(Span::styled(text.to_string(), plain_code_style(true)));
    }
    match parse.parse_line(line, &sets().syntaxes) {
        Ok(ops) => {
            let regions: Vec<_> = HighlightIterator::new(highlight, &ops, line, highlighter).collect();
            to_line(&regions)
        }
        Err(_) => {
            *failed = true;
            Line::from(Span::styled(text.to_string(), plain_code_style(true)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::highlight_uncached;

    #[test]
    fn streaming_gives_the_same_lines_as_highlighting_the_whole_block() {
        let code = "fn main() {\n    let s = \"a string\\twith tab\";\n    /* multi\n line comment */\n    println!(\"{s}\");\n}\n";
        for cut in 0..=code.len() {
            if !code.is_char_boundary(cut) {
                continue;
            }
            let prefix = &code[..cut];
            assert_eq!(highlight_streaming(prefix, "rust", true), highlight_uncached(prefix, "rust", true), "at {cut}");
        }
    }

    #[test]
    fn a_different_block_starts_over() {
        let a = highlight_streaming("let x = 1;\nlet y = 2;\n", "rust", true);
        assert_eq!(a, highlight_uncached("let x = 1;\nlet y = 2;\n", "rust", true));
        let b = highlight_streaming("x = 1\ny = 2\n", "python", true);
        assert_eq!(b, highlight_uncached("x = 1\ny = 2\n", "python", true));
        assert_eq!(highlight_streaming("plain", "nosuchlang", true), highlight_uncached("plain", "nosuchlang", true));
    }
}
