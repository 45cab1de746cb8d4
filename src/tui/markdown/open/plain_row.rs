//! A table body row that needs no Markdown parser: a whole line `| a | b | c |` whose cells
//! are plain words (printable ASCII without any character that can start inline markup, an
//! escape, an entity or HTML). Most rows a model streams are such; an open table (`table.rs`)
//! takes them a line at a time instead of running pulldown-cmark over them every frame. Owns
//! only which lines qualify and their cells; anything else is left to the parser, and a
//! property test holds the cells to pulldown-cmark's.

/// Appends the cells of `line` (one row, without its newline) to `out` and returns true when
/// it is a plain row of exactly `columns` non-empty cells; else leaves `out` as it was. A cell
/// is its text trimmed of spaces: a parse gives it as one unstyled span of that text.
pub(crate) fn split<'a>(line: &'a str, columns: usize, out: &mut Vec<&'a str>) -> bool {
    let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else { return false };
    if !inner.bytes().all(|b| PLAIN[usize::from(b)]) {
        return false;
    }
    let start = out.len();
    for cell in inner.split('|') {
        let text = cell.trim_matches(' ');
        if text.is_empty() || out.len() - start == columns {
            out.truncate(start);
            return false;
        }
        out.push(text);
    }
    if out.len() - start != columns {
        out.truncate(start);
        return false;
    }
    true
}

/// The bytes a plain row may hold: letters, digits, spaces, the separator and punctuation
/// with no meaning inside a table cell (no emphasis, code, link, image, HTML, entity, escape
/// or strikethrough character).
const PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let punctuation = b" |#'\"()-+=.,:;?/%@$";
    let mut i = 0;
    while i < punctuation.len() {
        table[punctuation[i] as usize] = true;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::markdown::nodes::Node;
    use crate::tui::markdown::parse::parse;
    use crate::tui::markdown::style::{Palette, RenderOptions};
    use proptest::prelude::*;
    use ratatui::text::Span;

    /// The body rows pulldown-cmark gives `line` under a header of `columns` cells.
    fn parsed(line: &str, columns: usize) -> Vec<Vec<Vec<Span<'static>>>> {
        let head = format!("{}|\n{}|\n", "| h ".repeat(columns), "|---".repeat(columns));
        let nodes = parse(&format!("{head}{line}\n"), Palette::new(RenderOptions::default()));
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

    /// The cells `split` gives `line`, as the spans a parse would give them.
    fn cells(line: &str, columns: usize) -> Option<Vec<Vec<Span<'static>>>> {
        let mut out = vec!["before"];
        let plain = split(line, columns, &mut out);
        assert_eq!(out[0], "before");
        assert_eq!(out.len(), if plain { columns + 1 } else { 1 }, "{line:?}");
        plain.then(|| out[1..].iter().map(|cell| vec![Span::raw(cell.to_string())]).collect())
    }

    #[test]
    fn a_row_of_words_is_plain() {
        let mut out = Vec::new();
        assert!(split("| 12 | a cell, with (some) words | 84 |", 3, &mut out));
        assert_eq!(out, ["12", "a cell, with (some) words", "84"]);
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
