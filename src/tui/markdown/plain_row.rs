//! A table body row that needs no Markdown parser: a whole line `| a | b | c |` whose cells
//! are plain words (printable ASCII without any character that can start inline markup, an
//! escape, an entity or HTML). Most rows a model streams are such; an open table (`open_table`)
//! takes them a line at a time instead of running pulldown-cmark over them every frame. Owns
//! only which lines qualify and their cells; anything else is left to the parser, and the
//! property test in `tests.rs` holds the cells to pulldown-cmark's.

use ratatui::text::Span;

/// The cells of `line` (one row, without its newline) when it is a plain row of exactly
/// `columns` non-empty cells, each as the one span a parse gives it; else `None`.
pub(super) fn cells(line: &str, columns: usize) -> Option<Vec<Vec<Span<'static>>>> {
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    if !inner.bytes().all(plain) {
        return None;
    }
    let mut cells = Vec::with_capacity(columns);
    for cell in inner.split('|') {
        let text = cell.trim_matches(' ');
        if text.is_empty() || cells.len() == columns {
            return None;
        }
        cells.push(vec![Span::raw(text.to_string())]);
    }
    (cells.len() == columns).then_some(cells)
}

/// A byte a plain row may hold: letters, digits, spaces, the separator and punctuation with
/// no meaning inside a table cell (no emphasis, code, link, image, HTML, entity, escape or
/// strikethrough character).
fn plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b" |#'\"()-+=.,:;?/%@$".contains(&byte)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::markdown::render::{parse, CodeMode, Node};
    use crate::tui::markdown::style::Palette;
    use proptest::prelude::*;

    /// The body rows pulldown-cmark gives `line` under a header of `columns` cells.
    fn parsed(line: &str, columns: usize) -> Vec<Vec<Vec<Span<'static>>>> {
        let head = format!("{}|\n{}|\n", "| h ".repeat(columns), "|---".repeat(columns));
        let nodes = parse(&format!("{head}{line}\n"), Palette { color: true }, CodeMode::Plain, None);
        match nodes.into_iter().next() {
            Some(Node::Table { table, .. }) => table.rows,
            _ => Vec::new(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every line taken as plain has exactly the cells the parser gives it, whatever
        /// printable ASCII it holds (markup characters, escapes, entities, pipes, spaces).
        #[test]
        fn plain_cells_are_the_parsers(
            cells_text in proptest::collection::vec("[ -~]{0,6}|[a-z0-9 ,.:;()'\"#%@$?/+=-]{0,8}", 1..5),
            columns in 1usize..5,
        ) {
            let line = format!("|{}|", cells_text.join("|"));
            if let Some(cells) = cells(&line, columns) {
                prop_assert_eq!(vec![cells], parsed(&line, columns), "{:?}", line);
            }
        }
    }

    #[test]
    fn a_row_of_words_is_plain() {
        let cells = cells("| 12 | a cell, with (some) words | 84 |", 3).expect("plain");
        let texts: Vec<&str> = cells.iter().map(|c| c[0].content.as_ref()).collect();
        assert_eq!(texts, ["12", "a cell, with (some) words", "84"]);
    }

    #[test]
    fn markup_missing_pipes_and_other_counts_are_left_to_the_parser() {
        for line in [
            "| a | *b* |",
            "| a | `b` |",
            "a | b |",
            "| a | b",
            "| a | |",
            "| a | b | c |",
            "| a |",
            "|a\\|b| c |",
            " | a | b |",
        ] {
            assert!(cells(line, 2).is_none(), "{line:?}");
        }
    }
}
