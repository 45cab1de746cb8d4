//! How a laid-out row reads back as text, for copying out of the conversation (the in-app
//! selection, `panes/conversation/selection.rs`): whether it goes on from the row above it
//! (a soft break the wrapper made, at a space or inside a word) or starts a line of its own,
//! which of its first columns are layout rather than text (a continuation's indent, code's
//! indent), and whether it is a code block's label. Nothing here is computed while drawing:
//! the panes describe their rows only when something is copied, and `joins_of` finds the
//! soft breaks by walking the wrapped rows along the text they came from.

use crate::tui::wrap::expand_tabs;

/// How a row follows the row above it when text is copied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Join {
    /// A line of its own (a hard break, a new paragraph, the first row).
    #[default]
    Line,
    /// The rest of the line above, wrapped at spaces: one space goes between them.
    Space,
    /// The rest of a word broken at the width: nothing goes between them.
    Word,
}

/// What a row holds as text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowText {
    pub join: Join,
    /// Columns at the row's start that are layout, not text: left out of a copy.
    pub skip: usize,
    /// The row is the label of the reply's code block of this index (0 for its first): it is
    /// left out of a copy, and a click on it copies the block.
    pub label: Option<usize>,
}

impl RowText {
    /// A row that goes on from the row above as `join` says, its first `skip` columns layout.
    pub fn joined(join: Join, skip: usize) -> Self {
        RowText { join, skip, label: None }
    }
}

/// How each of `rows` (the wrapped rows of `source`, their prefixes taken off) joins the row
/// before it: the wrapper drops the spaces at a soft break and keeps everything else, so each
/// row is found in `source` where the last one ended, after the spaces or the line break the
/// wrapper dropped. The first row is a `Line`; from a row that cannot be found (a line cut
/// with `…`, a stand-in for a character too wide) on, every row is a `Line`.
pub fn joins_of(source: &str, rows: &[String]) -> Vec<Join> {
    let source = expand_tabs(source);
    let mut rest: &str = &source;
    let mut joins = Vec::with_capacity(rows.len());
    let mut lost = false;
    for (i, row) in rows.iter().enumerate() {
        if lost {
            joins.push(Join::Line);
            continue;
        }
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        let (join, from) = if rest[spaces..].starts_with('\n') {
            (Join::Line, spaces + 1)
        } else if i == 0 {
            (Join::Line, 0)
        } else if spaces > 0 {
            (Join::Space, spaces)
        } else {
            (Join::Word, 0)
        };
        rest = &rest[from..];
        // A row that starts a line keeps what fits of its leading spaces.
        let lead = if join == Join::Line { rest.len() - rest.trim_start_matches(' ').len() } else { 0 };
        match (0..=lead).find(|&k| rest[k..].starts_with(row.as_str())) {
            Some(k) => {
                rest = &rest[k + row.len()..];
                joins.push(join);
            }
            None => {
                lost = true;
                joins.push(Join::Line);
            }
        }
    }
    joins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::wrap::wrap_spans;
    use ratatui::text::Span;

    fn rows_of(text: &str, width: usize) -> Vec<String> {
        wrap_spans(&[Span::raw(text)], width)
            .iter()
            .map(|row| row.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// The rows joined as `joins` says.
    fn joined(rows: &[String], joins: &[Join]) -> String {
        let mut out = String::new();
        for (row, join) in rows.iter().zip(joins) {
            match join {
                Join::Line if !out.is_empty() || row.is_empty() => out.push('\n'),
                Join::Line => {}
                Join::Space => out.push(' '),
                Join::Word => {}
            }
            out.push_str(row);
        }
        out.strip_prefix('\n').map(str::to_string).unwrap_or(out)
    }

    #[test]
    fn soft_breaks_at_spaces_and_inside_words_and_hard_breaks_are_told_apart() {
        let text = "the quick brown fox\njumps over abcdefghijklmnop";
        let rows = rows_of(text, 9);
        let joins = joins_of(text, &rows);
        assert_eq!(rows, ["the quick", "brown fox", "jumps", "over abcd", "efghijklm", "nop"]);
        assert_eq!(joins, [Join::Line, Join::Space, Join::Line, Join::Space, Join::Word, Join::Word]);
        assert_eq!(joined(&rows, &joins), text);
    }

    #[test]
    fn blank_lines_and_kept_indentation_are_lines_of_their_own() {
        let text = "a\n\n    indented words here";
        let rows = rows_of(text, 12);
        let joins = joins_of(text, &rows);
        assert_eq!(joins[..3], [Join::Line, Join::Line, Join::Line]);
        assert_eq!(joined(&rows, &joins), text);
    }

    #[test]
    fn a_row_not_found_and_every_row_after_it_are_lines() {
        let rows = vec!["the".to_string(), "qu…".to_string(), "fox".to_string()];
        assert_eq!(joins_of("the quick fox", &rows), [Join::Line, Join::Line, Join::Line]);
    }
}
