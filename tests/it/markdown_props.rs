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
