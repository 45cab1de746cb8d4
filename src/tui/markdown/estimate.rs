//! A cheap guess at how many lines a block takes at a width, from its source alone: one per
//! source line plus what a line that long would wrap to. `MarkdownDoc` gives it to blocks it
//! has not laid out at the current width (a 1 MB reply arriving at once, or after a width
//! change), so a frame lays out only what it shows. Owns nothing else; the guess only places
//! the rows nobody is looking at, so it needs to be close, never exact.

/// Estimated lines of a block of Markdown `text` at `width` columns (at least one).
pub fn estimate_rows(text: &str, width: u16) -> usize {
    let width = usize::from(width.max(1));
    let rows: usize = text.split('\n').map(|line| line.len().div_ceil(width).max(1)).sum();
    rows.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_line_plus_wrapping() {
        assert_eq!(estimate_rows("a\nb", 80), 2);
        assert_eq!(estimate_rows(&"x".repeat(81), 80), 2);
        assert_eq!(estimate_rows("", 0), 1);
    }
}
