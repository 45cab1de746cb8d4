//! The help overlay's rows for a width and a search: the groups of keys, the slash commands
//! and a note on what the model keeps, each entry its keys and their meaning side by side,
//! both wrapping within their own column (a narrow key column, so a meaning starts on its
//! key's row); below `MIN_MEANING` columns for the meaning, the meaning goes under its keys.
//! A search keeps the entries where every word typed starts a word (case-insensitive, the
//! group's name included) and the headings of the groups that still have one.

use super::KEYS;
use crate::tui::text::hints::KEEP_HINT;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::{line_width, wrap};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The narrowest the meaning column gets; narrower, the meaning goes under its keys.
const MIN_MEANING: u16 = 16;
/// The widest the key column gets (longer keys wrap within it).
const MAX_KEY_COLUMN: u16 = 30;

/// What is searched for: the words typed, lower-case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
}

impl Query {
    pub fn new(text: &str) -> Self {
        Query { words: text.split_whitespace().map(str::to_lowercase).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether every word searched for starts a word of `texts` (`r` finds `Ctrl+R`, not
    /// `Enter`); a word with a sign in it (`/mo`, `ctrl+r`) may be anywhere in them.
    pub fn matches(&self, texts: &[&str]) -> bool {
        let text = texts.join(" ").to_lowercase();
        let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        self.words.iter().all(|query| {
            if query.chars().all(char::is_alphanumeric) {
                words.iter().any(|word| word.starts_with(query.as_str()))
            } else {
                text.contains(query.as_str())
            }
        })
    }
}

/// The overlay's rows at `width` columns for `query`: each group of keys under its name,
/// then the commands, then the context note; "nothing matches" when the search leaves none.
pub fn help_lines(commands: &[(String, String)], width: u16, query: &Query, theme: &Theme) -> Vec<Line<'static>> {
    let column = (width / 3).clamp(8, MAX_KEY_COLUMN);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let section = |name: &str, entries: Vec<(&str, &str)>, lines: &mut Vec<Line<'static>>| {
        if entries.is_empty() {
            return;
        }
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::styled(name.to_string(), theme.accent())));
        for (keys, what) in entries {
            lines.extend(entry(keys, what, column, width, theme));
        }
    };
    for group in KEYS {
        let shown = group.keys.iter().filter(|(keys, what)| query.matches(&[group.name, keys, what]));
        section(group.name, shown.map(|(keys, what)| (*keys, *what)).collect(), &mut lines);
    }
    let shown = commands.iter().filter(|(name, what)| query.matches(&["Commands", name, what]));
    section("Commands", shown.map(|(name, what)| (name.as_str(), what.as_str())).collect(), &mut lines);
    if query.matches(&["Context", KEEP_HINT]) {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::styled("Context", theme.accent())));
        lines.extend(wrap(KEEP_HINT, width, theme.text(), "  ", "  ", theme.text()));
    }
    if lines.is_empty() {
        let note = "nothing matches the search · Backspace takes a letter back · Esc clears it";
        lines.extend(wrap(note, width, theme.dim(), "", "", theme.dim()));
    }
    lines
}

/// One entry: `keys` wrapped in a column `column` wide, `what` wrapped beside it.
fn entry(keys: &str, what: &str, column: u16, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    // Two spaces before the keys, two between the columns, one after the meaning.
    let meaning = width.saturating_sub(column + 5);
    if meaning < MIN_MEANING {
        let mut out = wrap(keys, width, theme.approval(), "  ", "  ", theme.approval());
        out.extend(wrap(what, width, theme.text(), "    ", "    ", theme.text()));
        return out;
    }
    let keys = wrap(keys, column, theme.approval(), "", "", Style::default());
    let what = wrap(what, meaning, theme.text(), "", "", Style::default());
    (0..keys.len().max(what.len()))
        .map(|row| {
            let mut spans = vec![Span::raw("  ")];
            let used = keys.get(row).map_or(0, |line| {
                spans.extend(line.spans.iter().cloned());
                line_width(line)
            });
            if let Some(line) = what.get(row) {
                spans.push(Span::raw(" ".repeat(usize::from(column).saturating_sub(used) + 2)));
                spans.extend(line.spans.iter().cloned());
            }
            Line::from(spans)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    #[test]
    fn a_key_and_its_meaning_share_a_row_and_long_keys_wrap_in_their_column() {
        let lines = text(&help_lines(&[], 74, &Query::default(), &Theme::new(true)));
        let row = lines.iter().find(|l| l.contains("Ctrl+R")).unwrap();
        assert!(row.contains("search earlier prompts"), "{row}");
        let at = lines.iter().position(|l| l.contains("Shift+Enter,")).unwrap();
        assert!(lines[at].contains("new line") && lines[at + 1].trim() == "Ctrl+J", "{lines:#?}");
        let wide: Vec<&String> =
            lines.iter().filter(|l| unicode_width::UnicodeWidthStr::width(l.as_str()) > 74).collect();
        assert!(wide.is_empty(), "{wide:#?}");
    }

    #[test]
    fn a_search_keeps_the_entries_with_every_word_and_their_groups() {
        let commands = vec![("/clear".to_string(), "forget the conversation".to_string())];
        let lines = text(&help_lines(&commands, 74, &Query::new("CTRL search"), &Theme::new(true)));
        assert_eq!(lines[0], "Prompt");
        assert!(lines[1].contains("Ctrl+R") && lines[1].contains("search earlier prompts"), "{lines:#?}");
        assert!(!lines.iter().any(|l| l.contains("Commands") || l.contains("Panes")), "{lines:#?}");
        let lines = text(&help_lines(&commands, 74, &Query::new("forget"), &Theme::new(true)));
        assert_eq!(lines[0], "Commands");
        let none = text(&help_lines(&commands, 74, &Query::new("zzzz"), &Theme::new(true)));
        assert!(none[0].starts_with("nothing matches"), "{none:#?}");
    }
}
