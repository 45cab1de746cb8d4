//! Property test of the Markdown renderer (issue 9, robustness): for arbitrary Markdown-ish
//! text and widths it never panics and never returns a line wider than the width.

use elelem::tui::markdown::{render, RenderOptions};
use proptest::prelude::*;
use unicode_width::UnicodeWidthStr;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn no_panic_and_no_line_wider_than_the_width(
        pieces in prop::collection::vec(
            prop::sample::select(vec![
                "# Heading ", "- item ", "1. first ", "> quote ", "```rust\n", "```\n", "| a | b |\n|---|---|\n",
                "| long cell text | x |\n", "**bold** ", "`code` ", "[link](http://x) ", "\n", "\n\n", "\t", "世界 ",
                "emoji 👩\u{200d}💻 ", "averyveryverylongwordthatwillnotfitanywhereatall ", "  - nested ", "\x1b[31m",
            ]),
            0..40,
        ),
        width in 1u16..90,
    ) {
        let source: String = pieces.concat();
        for line in render(&source, width, RenderOptions::default()) {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            prop_assert!(text.width() <= usize::from(width), "width {} exceeded by {:?} in {:?}", width, text, source);
        }
    }
}

/// Markdown pieces that reach the constructs a stream can get wrong: fences of backticks and
/// tildes (longer than three too, and shorter ones inside), ATX and setext headings, link
/// reference definitions and the references they change, lists, quotes, tables.
fn streaming_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "words and more words ",
        "*em* ",
        "`code` ",
        "\n",
        "\n\n",
        "\n- item ",
        "\n1. step ",
        "\n> quote ",
        "\n```\n",
        "\n````rust\n",
        "\n````\n",
        "\n~~~\n",
        "\n~~~~ py\n",
        "\n```\n",
        "fn x() {}\n",
        "\n# Title ",
        "\n### Small ",
        "\nSetext title\n===\n",
        "\nUnder\n---\n",
        "\n[r]: https://x.io \"t\"\n",
        "[r] ",
        "[text][r] ",
        "[missing][] ",
        "\n| a | b |\n|---|---|\n| c | d |\n",
        "漢字🎉 ",
        "\t",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A reply streamed in any chunks, a frame after each, shows exactly what rendering the
    /// text received so far whole shows, at any width.
    #[test]
    fn streamed_render_equals_whole_render(
        pieces in prop::collection::vec(streaming_piece(), 1..60),
        repeat in 1usize..10,
        chunks in prop::collection::vec(1usize..400, 1..8),
        width in 8u16..120,
    ) {
        let source = pieces.concat().repeat(repeat);
        let mut doc = elelem::tui::markdown::MarkdownDoc::new(RenderOptions::default());
        let mut at = 0;
        let mut i = 0;
        while at < source.len() {
            let mut end = (at + chunks[i % chunks.len()]).min(source.len());
            while !source.is_char_boundary(end) {
                end += 1;
            }
            doc.push_str(&source[at..end]);
            at = end;
            i += 1;
            let height = doc.height(width);
            let streamed = doc.lines(width, 0, height);
            prop_assert_eq!(streamed, render(&source[..at], width, RenderOptions::default()), "at {}", at);
        }
    }
}
