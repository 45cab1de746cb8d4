//! What the benches share: the shapes of long streamed blocks (issue 13), one chunk at a time.

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
