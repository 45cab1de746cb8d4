//! Streaming tests of long open blocks (one paragraph, one list, one table, one line without a
//! newline): after every chunk the document must show exactly what a whole render shows, and
//! the incremental layout must have been used. Plus property tests over arbitrary Markdown.

use proptest::prelude::*;

use super::tests::{chunk_sizes, stream_and_compare};
use super::*;
use crate::tui::wrap::line_width;

/// Streams `source` at two widths in two chunkings; the incremental layout kept lines.
fn check(source: &str) {
    for (seed, width, scale) in [(2u64, 40u16, 3usize), (9, 100, 7)] {
        let kept = stream_and_compare(source, chunk_sizes(seed).map(|n| n * scale), width);
        assert!(kept > 0, "the incremental layout was used at width {width}");
    }
}

fn paragraph(lines: usize) -> String {
    let mut text = String::new();
    for i in 0..lines {
        text.push_str(&match i % 9 {
            1 => format!("line {i} has *emphasis*, `code {i}` and a [link](https://x.io/{i})\n"),
            2 => format!("snake_case_{i} and 2 * 3 and 漢字 🎉 words, a hard break here  \n"),
            3 => format!("an open *star in line {i} that\n"),
            5 => format!("closes two lines later* with **strong {i}** text and a trailing backslash\\\n"),
            7 => format!("a long word {} ends line {i}\n", "x".repeat(70)),
            _ => format!("plain words of line {i} of one long paragraph\n"),
        });
    }
    text
}

#[test]
fn a_long_paragraph_streamed_in_chunks_matches_rendering_whole() {
    check(&paragraph(120));
}

#[test]
fn a_long_line_without_a_newline_streamed_in_chunks_matches_rendering_whole() {
    let text: String = (0..300).map(|i| format!("word{i} with *it* and `c{i}` and  two spaces ")).collect();
    check(&text);
}

#[test]
fn a_long_list_streamed_in_chunks_matches_rendering_whole() {
    let mut text = String::from("Here is the list:\n");
    for i in 0..150 {
        text.push_str(&format!("- item {i} with **bold** and `code {i}`\n"));
        if i % 10 == 3 {
            text.push_str(&format!("  - nested {i}\n  continued *here*\n"));
        }
    }
    check(&text);
}

#[test]
fn a_long_numbered_loose_list_streamed_in_chunks_matches_rendering_whole() {
    let text: String = (1..120).map(|i| format!("{i}. step {i} does *things*\n\n   and more {i}\n\n")).collect();
    check(&text);
}

#[test]
fn a_tight_list_that_turns_loose_matches_rendering_whole() {
    let mut text: String = (0..80).map(|i| format!("- item {i} of a tight list\n")).collect();
    text.push('\n');
    text.extend((80..120).map(|i| format!("- item {i} after a blank line\n")));
    check(&text);
}

#[test]
fn a_long_table_streamed_in_chunks_matches_rendering_whole() {
    let mut text = String::from("| n | words | code |\n|---|:-:|--:|\n");
    for i in 0..200 {
        let words =
            if i == 120 { "a much wider cell that changes the column widths".to_string() } else { format!("w{i}") };
        text.push_str(&format!("| {i} | {words} | `x{i}` \\| y |\n"));
    }
    text.push_str("\nafter the table\n");
    check(&text);
}

/// A table of plain rows (`plain_row`) with rows of markup, of too few, too many and empty
/// cells, and a cell too wide for the screen among them.
fn plain_table() -> String {
    let mut text = String::from("| n | words | more |\n|---|:-:|--:|\n");
    for i in 0..300 {
        text.push_str(&match i % 50 {
            7 => format!("| {i} | *emphasis* and `code` in row {i} | x |\n"),
            13 => format!("| {i} | two cells |\n"),
            21 => format!("| {i} | a | b | four |\n"),
            33 => format!("| {i} | |  |\n"),
            40 if i > 100 => format!("| {i} | {} | wide |\n", "a long cell ".repeat(6)),
            _ => format!("| {i} | a cell with a few words | {} |\n", i * 37),
        });
    }
    text.push_str("\nafter the table\n");
    text
}

#[test]
fn a_table_of_plain_rows_streamed_in_chunks_matches_rendering_whole() {
    check(&plain_table());
}

/// Rows that arrive whole, a frame after each: only those with markup or another number of
/// cells go through the parser (with the header); plain rows are split by hand.
#[test]
fn plain_table_rows_are_not_parsed() {
    let text = plain_table();
    let rows: Vec<&str> = text.split_inclusive('\n').collect();
    let mut doc = MarkdownDoc::default();
    for row in &rows {
        doc.push_str(row);
        let _ = doc.height(100);
    }
    let parsed = doc.table_bytes_parsed();
    assert!(doc.kept_open_lines() > 0 || doc.laid_out_blocks() > 0);
    assert!(parsed > 0 && parsed < text.len() / 4, "{parsed} of {} bytes parsed", text.len());
    let height = doc.height(100);
    assert_eq!(doc.lines(100, 0, height), render(doc.source(), 100, RenderOptions::default()));
}

/// A row still arriving that reads wider than it ends up (an unclosed backtick shows itself)
/// does not widen the kept columns, whether the table's state starts there or goes on.
#[test]
fn a_row_still_arriving_does_not_widen_the_kept_columns() {
    let rows: String = (0..60).map(|i| format!("| {i} | ab |\n")).collect();
    let row = "| 60 | x `aaaaaaaaaaaaaaaaaaaaaaaa` |\n";
    let text = format!("| n | w |\n|---|---|\n{rows}{row}{rows}\nafter\n");
    // Just before the closing backtick.
    let cut = text.find("` |").unwrap_or(0);
    for earlier in [cut, cut - 100] {
        let mut doc = MarkdownDoc::default();
        for piece in [&text[..earlier], &text[earlier..cut], &text[cut..cut + 40], &text[cut + 40..]] {
            doc.push_str(piece);
            let height = doc.height(60);
            assert_eq!(doc.lines(60, 0, height), render(doc.source(), 60, RenderOptions::default()));
        }
    }
}

#[test]
fn text_that_reaches_back_matches_rendering_whole() {
    for tail in ["===\n", "---|---\n", "[foo]: https://x.io\n", "\n- a list\n- b\n", "```\ncode\n```\n"] {
        let text = format!("{}{tail}more text [foo] after\n", paragraph(60));
        stream_and_compare(&text, chunk_sizes(4).map(|n| n * 5), 60);
    }
}

/// A long block streamed with a frame after every chunk, then finished by the next block: the
/// finished block takes the open tail's lines (it is laid out although it is far over
/// `EXACT_BATCH`, which would otherwise leave it estimated until shown) and shows what a
/// whole render shows, however the next block's first line arrives; when it arrives whole,
/// the block is not rendered whole again.
#[test]
fn a_long_block_that_finishes_keeps_the_lines_of_its_open_tail() {
    let list: String = (0..1200).map(|i| format!("- Item {i} of the reply, with a few words in it.\n")).collect();
    let table: String = std::iter::once("| n | words |\n|---|--:|\n".to_string())
        .chain((0..1200).map(|i| format!("| {i} | a cell with a few words |\n")))
        .collect();
    let paragraph: String = (0..1200).map(|i| format!("Line {i} of the reply, with a few words in it.\n")).collect();
    for block in [list, table, paragraph] {
        assert!(block.len() > super::doc::EXACT_BATCH);
        for next in [&["\n\nThe end.\n"][..], &["\n", "\nThe", " end.", "\n"]] {
            let mut doc = MarkdownDoc::default();
            for chunk in block.as_bytes().chunks(997) {
                doc.push_str(std::str::from_utf8(chunk).unwrap_or_default());
                let _ = doc.height(100);
            }
            let before = doc.whole_renders();
            for piece in next {
                doc.push_str(piece);
                let _ = doc.height(100);
            }
            assert_eq!(doc.laid_out_blocks(), 1, "{next:?}");
            if next.len() == 1 {
                assert_eq!(doc.whole_renders(), before, "{}", &block[..20]);
            }
            let height = doc.height(100);
            assert_eq!(doc.lines(100, 0, height), render(doc.source(), 100, RenderOptions::default()));
        }
    }
}

/// Markdown made of pieces that exercise the parser: inline markup, list items, tables,
/// quotes, fences (of backticks and tildes, longer than three too), ATX and setext headings,
/// link reference definitions and their references, rules and blank lines.
fn markdown() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{1,30}",
        Just("*".to_string()),
        Just("**".to_string()),
        Just("_".to_string()),
        Just("`".to_string()),
        Just("[".to_string()),
        Just("](u)".to_string()),
        Just("<b>".to_string()),
        Just("\\".to_string()),
        Just("  \n".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("\n- ".to_string()),
        Just("\n1. ".to_string()),
        Just("\n  - ".to_string()),
        Just("\n> ".to_string()),
        Just("\n| a | b |\n|---|---|\n| c | d |".to_string()),
        Just("\n```\n".to_string()),
        Just("\n---\n".to_string()),
        Just("\n===\n".to_string()),
        Just("漢字🎉".to_string()),
        Just("\t".to_string()),
        Just("\n````\n".to_string()),
        Just("\n````rust\n".to_string()),
        Just("\n~~~\n".to_string()),
        Just("\n~~~~ py\n".to_string()),
        Just("\n# ".to_string()),
        Just("\n### ".to_string()),
        Just("\n=\n".to_string()),
        Just("\n[r]: https://x.io \"t\"\n".to_string()),
        Just("[r]".to_string()),
        Just("[text][r]".to_string()),
    ];
    prop::collection::vec(piece, 1..120).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever comes in, the renderer returns lines no wider than the width.
    #[test]
    fn no_line_is_ever_wider_than_the_width(source in markdown(), width in 1u16..120) {
        for line in render(&source, width, RenderOptions::default()) {
            prop_assert!(line_width(&line) <= usize::from(width), "{line:?}");
        }
    }

    /// Long arbitrary Markdown streamed in chunks shows what a whole render shows.
    #[test]
    fn streaming_arbitrary_markdown_matches_rendering_whole(source in markdown(), seed in 1u64..1000, width in 10u16..120) {
        let source = source.repeat(3000 / source.len().max(1) + 1);
        stream_and_compare(&source, chunk_sizes(seed).map(|n| n * 13), width);
    }
}
