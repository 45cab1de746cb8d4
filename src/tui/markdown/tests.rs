//! Behaviour tests of the Markdown renderer: one construct or guarantee per test.

use ratatui::style::{Modifier, Style};

use super::*;
use crate::tui::wrap::line_width;

pub(crate) fn dump(lines: &[Line<'_>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

fn text(source: &str, width: u16) -> String {
    dump(&render(source, width, RenderOptions::default()))
}

fn styled(source: &str, width: u16, needle: &str) -> Style {
    let lines = render(source, width, RenderOptions::default());
    lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains(needle))
        .map(|s| s.style)
        .unwrap_or_else(|| panic!("{needle:?} not in {}", dump(&lines)))
}

#[test]
fn paragraphs_wrap_at_the_width() {
    assert_eq!(text("one two three four five", 10), "one two\nthree four\nfive");
}

#[test]
fn paragraphs_are_separated_by_one_blank_line() {
    assert_eq!(text("a\n\n\n\nb", 20), "a\n\nb");
}

#[test]
fn headings_drop_their_marks_and_are_bold() {
    assert_eq!(text("# Title\ntext", 20), "Title\n\ntext");
    assert!(styled("## Sub", 20, "Sub").add_modifier.contains(Modifier::BOLD));
    assert!(styled("## Sub", 20, "Sub").fg.is_some());
}

#[test]
fn emphasis_strong_and_strikethrough_are_modifiers() {
    let src = "*it* **bold** ~~gone~~";
    assert!(styled(src, 40, "it").add_modifier.contains(Modifier::ITALIC));
    assert!(styled(src, 40, "bold").add_modifier.contains(Modifier::BOLD));
    assert!(styled(src, 40, "gone").add_modifier.contains(Modifier::CROSSED_OUT));
}

#[test]
fn inline_code_has_its_own_style() {
    assert_ne!(styled("use `cargo`", 40, "cargo"), Style::default());
    assert_eq!(text("use `cargo`", 40), "use cargo");
}

#[test]
fn links_are_underlined_and_show_a_different_url() {
    assert_eq!(text("see [docs](https://x.io) now", 80), "see docs (https://x.io) now");
    assert!(styled("[docs](https://x.io)", 80, "docs").add_modifier.contains(Modifier::UNDERLINED));
    assert_eq!(text("<https://x.io>", 80), "https://x.io");
}

#[test]
fn bullet_lists_hang_their_continuation_lines() {
    assert_eq!(text("- alpha beta gamma\n- two", 12), "• alpha beta\n  gamma\n• two");
}

#[test]
fn nested_and_numbered_lists_indent() {
    assert_eq!(text("1. one\n   - inner\n2. two", 40), "1. one\n   ◦ inner\n2. two");
    assert_eq!(text("7. seven\n8. eight", 40), "7. seven\n8. eight");
}

#[test]
fn loose_list_items_are_separated_and_stay_numbered() {
    assert_eq!(text("1. a\n\n2. b\n\n   more\n\nafter", 40), "1. a\n\n2. b\n\n   more\n\nafter");
}

#[test]
fn task_list_items_show_boxes() {
    assert_eq!(text("- [ ] todo\n- [x] done", 40), "• [ ] todo\n• [✓] done");
}

#[test]
fn block_quotes_have_a_gutter() {
    assert_eq!(text("> quoted words here\n>\n> again", 10), "│ quoted\n│ words\n│ here\n│\n│ again");
}

#[test]
fn rules_span_the_width() {
    assert_eq!(text("a\n\n---\n\nb", 5), "a\n\n─────\n\nb");
}

#[test]
fn code_blocks_are_labelled_indented_and_not_rewrapped() {
    assert_eq!(text("```\nlet a = 1;\n    b\n```", 40), "  code  [copy]\n  let a = 1;\n      b");
    assert_eq!(text("    indented code", 40), "  code  [copy]\n  indented code");
}

#[test]
fn a_code_blocks_label_names_its_language_under_a_list_marker() {
    assert_eq!(text("```rust,ignore\nfn x() {}\n```", 40), "  rust  [copy]\n  fn x() {}");
    assert_eq!(text("- step\n\n  ```sh\n  ls\n  ```", 40), "• step\n\n    sh  [copy]\n    ls");
    assert_eq!(text("- ```sh\n  ls\n  ```", 40), "•   sh  [copy]\n    ls");
}

#[test]
fn long_code_lines_wrap_only_when_longer_than_the_width() {
    assert_eq!(text("```\naaaa bbbb cccc\n```", 12), "  code\n  aaaa bbbb\n  cccc", "no room for [copy]");
}

#[test]
fn code_blocks_are_highlighted() {
    let lines = render("```rust\nfn main() {}\n```", 40, RenderOptions::default());
    let colours: std::collections::HashSet<_> = lines[1].spans.iter().map(|s| s.style.fg).collect();
    assert!(colours.len() > 1, "{colours:?}");
}

#[test]
fn no_color_keeps_modifiers_but_drops_colours() {
    let lines = render("# T\n\n`c` **b**\n\n```rust\nfn x() {}\n```", 40, RenderOptions { color: false, light: false });
    let spans: Vec<_> = lines.iter().flat_map(|l| l.spans.iter()).collect();
    assert!(spans.iter().all(|s| s.style.fg.is_none() && s.style.bg.is_none()));
    assert!(spans.iter().any(|s| s.content == "b" && s.style.add_modifier.contains(Modifier::BOLD)));
    assert!(dump(&lines).contains("`c`"));
}

#[test]
fn tables_align_their_columns() {
    let src = "| name | n |\n|------|--:|\n| a | 1 |\n| longer | 100 |";
    assert_eq!(text(src, 40), "name   │   n\n───────┼────\na      │   1\nlonger │ 100");
}

#[test]
fn wide_tables_shrink_and_wrap_their_cells() {
    let src = "| key | description |\n|---|---|\n| a | a fairly long description of the thing |";
    let out = text(src, 20);
    assert!(!out.contains('|'), "{out}");
    assert_eq!(
        out,
        "key │ description\n────┼───────────────\na   │ a fairly long\n    │ description of\n    │ the thing"
    );
}

#[test]
fn control_sequences_never_reach_the_output() {
    let out = text("hi \x1b[2Jthere \x1b]0;title\x07ok", 40);
    assert_eq!(out, "hi there ok");
}

#[test]
fn zero_width_renders_nothing() {
    assert!(render("hello", 0, RenderOptions::default()).is_empty());
}

const TRICKY: &[&str] = &[
    "averyveryveryverylongwordwithoutanyspacesatallthatkeepsgoing and more",
    "see https://example.com/a/very/long/path/that/never/ends/and/keeps/going?q=1&r=2 here",
    "漢字漢字漢字漢字漢字漢字漢字漢字 emoji 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉 mixed ❤️ text",
    "| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 |",
    "| col | another column with a long header |\n|---|---|\n| 漢字漢字漢字 | https://example.com/very/long/url/in/a/cell |",
    "- a\n  - b\n    - c\n      - d\n        - e\n          - f deep nested words here",
    "> > > > > deeply quoted text that wraps",
    "```\n\tfn main() { println!(\"a very long line of code that exceeds the width\"); }\n```",
    "# A heading that is long enough to wrap around\n\n---",
    "1. [link text](https://example.com/long/url/path/that/is/long) after",
];

#[test]
fn no_line_is_wider_than_the_width() {
    for source in TRICKY {
        for width in [1u16, 2, 3, 5, 8, 13, 20, 40, 80] {
            for line in render(source, width, RenderOptions::default()) {
                assert!(line_width(&line) <= usize::from(width), "width {width}: {line:?} from {source:?}");
            }
        }
    }
}

/// A small deterministic generator, so the chunking is "random" but reproducible.
pub(super) fn chunk_sizes(seed: u64) -> impl Iterator<Item = usize> {
    let mut state = seed;
    std::iter::from_fn(move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        Some(1 + (state >> 33) as usize % 17)
    })
}

pub(crate) const SAMPLE: &str = "# Plan\n\nSome *intro* text with `code` and a [link](https://example.com).\n\
Second line of the paragraph.\n\n## Steps\n\n1. First step\n   with continuation\n\n   ```bash\n   cargo build\n\n   cargo test\n   ```\n\n\
2. Second step\n   - nested item\n   - [x] done item\n\n> A quote\n> spanning lines\n\n| a | b |\n|---|:-:|\n| 1 | two |\n| 漢字 | 🎉 |\n\n\
```rust\nfn main() {\n    println!(\"hi\");\n}\n```\nText right after a fence.\n# Heading right after\n---\n\n    indented code\n\n\
Final paragraph with **bold** and ~~strike~~.\n";

#[test]
fn streaming_in_random_chunks_matches_rendering_whole() {
    for seed in 1..=6u64 {
        let mut doc = MarkdownDoc::default();
        let mut rest = SAMPLE;
        let mut sizes = chunk_sizes(seed);
        while !rest.is_empty() {
            let mut cut = sizes.next().unwrap_or(1).min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (delta, tail) = rest.split_at(cut);
            doc.push_str(delta);
            rest = tail;
            let prefix = doc.source().to_string();
            let width = [40u16, 80, 120][seed as usize % 3];
            let height = doc.height(width);
            assert_eq!(doc.lines(width, 0, height), render(&prefix, width, RenderOptions::default()));
        }
        for width in [40u16, 80, 120] {
            let height = doc.height(width);
            assert_eq!(doc.lines(width, 0, height), render(SAMPLE, width, RenderOptions::default()), "width {width}");
        }
    }
}

#[test]
fn a_long_code_block_streamed_in_random_chunks_matches_rendering_whole() {
    let mut source = String::from("Here is the file:\n\n```rust\n");
    for i in 0..150 {
        source.push_str(&format!("fn f{i}(x: u32) -> u32 {{ /* comment {i} */ x + {i} }}\n"));
        if i % 9 == 0 {
            source.push_str("let s = \"a string\nover lines\";\n\tlet tab = 1;\n");
        }
    }
    source.push_str("```\n\nAfter the code.\n");
    for (seed, width) in [(3u64, 60u16), (11, 100)] {
        stream_and_compare(&source, chunk_sizes(seed).map(|n| n * 31), width);
    }
}

/// Streams `source` into a document in chunks of `sizes`, checking after each one that the
/// document shows what a whole render of the text so far shows. Returns the most lines the
/// open block's incremental layout kept meanwhile.
pub(super) fn stream_and_compare(source: &str, mut sizes: impl Iterator<Item = usize>, width: u16) -> usize {
    let mut doc = MarkdownDoc::default();
    let mut kept = 0;
    let mut rest = source;
    while !rest.is_empty() {
        let mut cut = sizes.next().unwrap_or(1).min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (delta, tail) = rest.split_at(cut);
        doc.push_str(delta);
        rest = tail;
        let prefix = doc.source().to_string();
        let height = doc.height(width);
        assert_eq!(
            doc.lines(width, 0, height),
            render(&prefix, width, RenderOptions::default()),
            "at {}",
            prefix.len()
        );
        kept = kept.max(doc.kept_open_lines());
    }
    kept
}

#[test]
fn code_nested_in_a_list_streamed_in_chunks_matches_rendering_whole() {
    let mut source = String::from("Steps:\n\n1. Write the file:\n\n   ```rust\n");
    for i in 0..30 {
        source.push_str(&format!("   fn f{i}(x: u32) -> u32 {{ /* comment {i} */ x + {i} }}\n"));
        if i % 9 == 0 {
            source.push_str("   let s = \"a string\n   over lines\";\n   \tlet tab = 1;\n");
        }
    }
    source.push_str("   ```\n\n2. Run it:\n   - ```sh\n     cargo run\n     ```\n\n> ```py\n> x = 1\n> ```\n");
    for (seed, width) in [(5u64, 50u16), (8, 90)] {
        stream_and_compare(&source, chunk_sizes(seed).map(|n| n * 7), width);
    }
}

#[test]
fn two_documents_streaming_at_once_do_not_disturb_each_other() {
    let code = |lang: &str, n: usize| {
        let body: String = (0..n).map(|i| format!("let v{i} = \"{i}\"; // {lang}\n")).collect();
        format!("- item\n\n  ```{lang}\n{body}")
    };
    let (a, b) = (code("rust", 40), code("python", 40));
    let (mut doc_a, mut doc_b) = (MarkdownDoc::default(), MarkdownDoc::default());
    let chunks =
        |text: &str| text.as_bytes().chunks(23).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>();
    for (delta_a, delta_b) in chunks(&a).iter().zip(chunks(&b).iter()) {
        for (doc, delta) in [(&mut doc_a, delta_a), (&mut doc_b, delta_b)] {
            doc.push_str(delta);
            let prefix = doc.source().to_string();
            let height = doc.height(60);
            assert_eq!(doc.lines(60, 0, height), render(&prefix, 60, RenderOptions::default()));
        }
    }
}

#[test]
fn a_window_of_lines_is_a_slice_of_the_whole() {
    let mut doc = MarkdownDoc::default();
    doc.push_str(SAMPLE);
    let all = render(SAMPLE, 40, RenderOptions::default());
    assert_eq!(doc.height(40), all.len());
    for start in [0, 3, 10, all.len() - 5, all.len() + 3] {
        let expected: Vec<_> = all.iter().skip(start).take(7).cloned().collect();
        assert_eq!(doc.lines(40, start, 7), expected, "start {start}");
    }
}

#[test]
fn resizing_reflows_the_document() {
    let mut doc = MarkdownDoc::default();
    doc.push_str(SAMPLE);
    let narrow = doc.height(30);
    let wide = doc.height(120);
    assert!(narrow > wide);
    assert_eq!(doc.lines(30, 0, narrow), render(SAMPLE, 30, RenderOptions::default()));
}
