//! Word wrapping of plain styled text by display width (unicode-width), for the cells
//! that are not Markdown: prompts, thinking, command output, tool details.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Wraps `text` to `width` columns, each line prefixed by `first` (then `rest` on
/// continuation and later lines). Never returns a line wider than `width`.
pub fn wrap(text: &str, width: u16, style: Style, first: &str, rest: &str, prefix_style: Style) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    let mut out = Vec::new();
    for (n, source_line) in text.split('\n').enumerate() {
        let source_line = source_line.replace('\t', "    ");
        let mut prefix = if n == 0 { first } else { rest };
        let mut line = String::new();
        let mut used = 0usize;
        let avail = |p: &str| width.saturating_sub(p.width()).max(1);
        for word in split_keep_spaces(&source_line) {
            let w = word.width();
            if used + w > avail(prefix) && used > 0 {
                out.push(make(prefix, prefix_style, line.trim_end(), style));
                prefix = rest;
                line.clear();
                used = 0;
                if word.trim().is_empty() {
                    continue;
                }
            }
            if w > avail(prefix) {
                // A word longer than the line: break it by characters.
                for c in word.chars() {
                    let cw = c.width().unwrap_or(0);
                    if used + cw > avail(prefix) && used > 0 {
                        out.push(make(prefix, prefix_style, &line, style));
                        prefix = rest;
                        line.clear();
                        used = 0;
                    }
                    line.push(c);
                    used += cw;
                }
            } else {
                line.push_str(word);
                used += w;
            }
        }
        out.push(make(prefix, prefix_style, line.trim_end(), style));
    }
    out
}

fn make(prefix: &str, prefix_style: Style, text: &str, style: Style) -> Line<'static> {
    if prefix.is_empty() {
        Line::from(Span::styled(text.to_string(), style))
    } else {
        Line::from(vec![Span::styled(prefix.to_string(), prefix_style), Span::styled(text.to_string(), style)])
    }
}

/// Splits into words, each followed by its trailing spaces.
fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in s.char_indices() {
        if c == ' ' {
            in_space = true;
        } else if in_space {
            out.push(&s[start..i]);
            start = i;
            in_space = false;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Cuts `text` to at most `width` columns, ending with `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn wraps_words_and_breaks_long_ones() {
        let lines = wrap("the quick brown fox jumps", 10, Style::default(), "", "", Style::default());
        assert_eq!(texts(&lines), ["the quick", "brown fox", "jumps"]);
        let lines = wrap("abcdefghijkl", 5, Style::default(), "> ", "  ", Style::default());
        assert_eq!(texts(&lines), ["> abc", "  def", "  ghi", "  jkl"]);
    }

    #[test]
    fn wide_characters_never_overflow() {
        for line in wrap("日本語のテキストです", 7, Style::default(), "", "", Style::default()) {
            assert!(line.width() <= 7);
        }
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("hi", 6), "hi");
    }
}
