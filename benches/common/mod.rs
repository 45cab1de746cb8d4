//! What the benches share: the shapes of long streamed blocks (issue 13), one chunk at a time,
//! the ~1 MB Markdown reply the TUI rows and `examples/sse_mock.rs` stream, and the 200 KB
//! code block. Each uses part of it.
#![allow(dead_code)]

/// Short paragraphs (the baseline), then one long paragraph, list, table and line.
pub const SHAPES: [&str; 5] = ["paragraphs", "paragraph", "list", "table", "no-newline"];

/// Chunk `i` of `shape`: one line (or, for "no-newline", a few words).
pub fn shape_chunk(shape: &str, i: usize) -> String {
    match shape {
        "paragraphs" => format!("Line {i} of the reply, with a few words in it.\n\n"),
        "paragraph" => format!("Line {i} of the reply, with a few words in it.\n"),
        "list" => format!("- Item {i} of the reply, with a few words in it.\n"),
        "table" if i == 0 => "| n | words | more |\n|---|---|--:|\n".to_string(),
        "table" => format!("| {i} | a cell with a few words | {} |\n", i * 7),
        _ => format!("Words {i} of the reply, with a few in it. "),
    }
}

/// `text` in pieces of about `size` bytes, cut at character boundaries (a stream's deltas).
pub fn pieces(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let piece = &text[start..end];
        start = end;
        Some(piece)
    })
}

/// About 1 MB of mixed Markdown (paragraphs, code, tables, lists, headings).
pub fn one_megabyte_text() -> String {
    markdown_text(1_000_000)
}

/// A deterministic Markdown reply of about `size` bytes, as a model writes it: paragraphs,
/// code, tables, lists and headings, ending with the line `END-OF-REPLY` (also what
/// `examples/sse_mock.rs` serves).
pub fn markdown_text(size: usize) -> String {
    let chunk = "Some **streamed** text with `inline code` and a [link](https://example.com). ";
    let mut text = String::new();
    let mut i = 0;
    while text.len() < size {
        match i % 50 {
            10 => text.push_str("\n\n```rust\nfn example(x: u32) -> u32 {\n    x * 2\n}\n```\n\n"),
            20 => text.push_str("\n\n| name | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n"),
            30 => text.push_str("\n\n- a list item\n- another item\n\n"),
            40 => text.push_str(&format!("\n\n## Section {i}\n\n")),
            _ => text.push_str(&chunk.repeat(3)),
        }
        i += 1;
    }
    text.push_str("\n\nEND-OF-REPLY\n");
    text
}

/// The start of a reply that is one 200 KB Rust code block (a model writing a whole file),
/// its fence still open.
pub fn code_block_text() -> String {
    let mut text = String::from("Here is the file:\n\n```rust\n");
    let mut i = 0;
    while text.len() < 200_000 {
        text.push_str(&format!("fn function_{i}(x: u64) -> u64 {{\n    let y = x * {i} + 1; // step {i}\n    y\n}}\n"));
        i += 1;
    }
    text
}
