//! Snapshots of the Markdown renderer: plain text dumps of typical replies at a few widths,
//! and one dump of span styles for a heading, inline code and a highlighted Rust block.

use elelem::tui::markdown::{render, MarkdownDoc, RenderOptions};
use ratatui::text::Line;

fn dump(lines: &[Line<'_>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

fn styles(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        for span in &line.spans {
            out.push_str(&format!("{i:>2} {:?} {:?}\n", span.content, span.style));
        }
    }
    out
}

const REPLY: &str = "# Fixing the build

The error comes from `Cargo.toml`: the *feature* is **not** enabled. See the [docs](https://doc.rust-lang.org/cargo/).

## Steps

1. Enable the feature:

   ```toml
   [dependencies]
   syntect = { version = \"5\", features = [\"parsing\"] }
   ```

2. Rebuild:
   - `cargo build`
   - `cargo test`
3. [x] Done

> Note: this also fixes
> the warning.

| crate | version | why |
|:------|--------:|:---:|
| syntect | 5.3 | highlighting |
| pulldown-cmark | 0.13 | parsing Markdown into events |

---

```rust
fn main() {
    println!(\"hello\");
}
```
";

#[test]
fn a_typical_reply_at_80_columns() {
    insta::assert_snapshot!(dump(&render(REPLY, 80, RenderOptions::default())));
}

#[test]
fn a_typical_reply_at_40_columns() {
    insta::assert_snapshot!(dump(&render(REPLY, 40, RenderOptions::default())));
}

#[test]
fn a_wide_table_squeezed_into_30_columns() {
    let table = "| name | description | link |\n|---|---|---|\n| alpha | the first letter of the Greek alphabet | https://en.wikipedia.org/wiki/Alpha |\n| 漢字 | CJK characters 🎉 | - |\n";
    insta::assert_snapshot!(dump(&render(table, 30, RenderOptions::default())));
}

#[test]
fn styles_of_a_heading_inline_code_and_rust_code() {
    let source = "## Title\n\nRun `cargo` now.\n\n```rust\nfn main() { let x = 1; }\n```\n";
    insta::assert_snapshot!(styles(&render(source, 60, RenderOptions::default())));
}

#[test]
fn styles_without_colour() {
    let source = "## Title\n\nRun `cargo` **now**.\n\n```rust\nfn main() {}\n```\n";
    insta::assert_snapshot!(styles(&render(source, 60, RenderOptions { color: false, light: false })));
}

#[test]
fn a_streamed_reply_matches_the_whole_render_at_every_width() {
    let mut doc = MarkdownDoc::default();
    for (i, chunk) in REPLY.as_bytes().chunks(7).enumerate() {
        doc.push_str(std::str::from_utf8(chunk).unwrap_or(""));
        let _ = doc.height([40, 80, 120][i % 3]);
    }
    for width in [40u16, 80, 120] {
        let height = doc.height(width);
        assert_eq!(doc.lines(width, 0, height), render(REPLY, width, RenderOptions::default()));
    }
}
