//! Copying out of a `MarkdownDoc`: how its rows read back as text (`RowText`: soft breaks,
//! layout columns, code labels) and the code of the block whose label is at a row. Both lay
//! out again only the blocks they are asked about (`block_text`), when something is copied;
//! drawing never comes here. The rows are the ones `lines` gives, since a block is laid out
//! by the same path and the open tail's lines equal a whole render of it.

use super::{separator, MarkdownDoc};
use crate::tui::markdown::block_text;
use crate::tui::text::row_text::RowText;

impl MarkdownDoc {
    /// How rows `start..start + count` at `width` read back as text (fewer at the end).
    pub fn row_texts(&mut self, width: u16, start: usize, count: usize) -> Vec<RowText> {
        let mut out = Vec::with_capacity(count.min(4096));
        let end = start.saturating_add(count);
        self.each_block(width, start, end, |top, sep, texts, _| {
            for row in start.max(top)..end.min(top + sep + texts.len()) {
                let index = row - top;
                out.push(if index < sep { RowText::default() } else { texts[index - sep] });
            }
        });
        out
    }

    /// The code of the block whose label row is row `row` at `width`, if it is one.
    pub fn code_at(&mut self, width: u16, row: usize) -> Option<String> {
        let mut found = None;
        self.each_block(width, row, row.saturating_add(1), |top, sep, texts, codes| {
            let label = row.checked_sub(top + sep).and_then(|i| texts.get(i)).and_then(|t| t.label);
            if let Some(code) = label.and_then(|k| codes.get(k)) {
                found = Some(code.clone());
            }
        });
        found
    }

    /// Calls `each(top, separator rows, row texts, code blocks)` for every block (the open
    /// tail last) with rows in `start..end` at `width`. A block's texts cover as many rows as
    /// the block has (a block still estimated is laid out by `block_text` all the same).
    fn each_block(
        &mut self,
        width: u16,
        start: usize,
        end: usize,
        mut each: impl FnMut(usize, usize, &[RowText], &[String]),
    ) {
        let n = self.blocks.len();
        let _ = self.height(width);
        let first = self.tops[..=n].partition_point(|&top| top <= start).saturating_sub(1);
        for i in first..=n {
            let top = self.tops[i];
            if top >= end {
                break;
            }
            let (range, rows) = match self.blocks.get(i) {
                Some(block) => (block.range.clone(), block.rows),
                None => match self.open.as_ref() {
                    Some(open) => (open.start..open.end, open.rendered.lines.len()),
                    None => continue,
                },
            };
            let text = self.source.get(range).unwrap_or("");
            let (mut texts, codes) = block_text(text, width, self.options);
            texts.resize(rows, RowText::default());
            each(top, separator(top, rows), &texts, &codes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::text::row_text::Join;

    #[test]
    fn rows_say_their_soft_breaks_and_a_label_row_finds_its_code() {
        let mut doc = MarkdownDoc::default();
        doc.push_str("one two three four five six\n\n```py\nx = 1\n```\n\nend\n");
        let height = doc.height(12);
        let texts = doc.row_texts(12, 0, height);
        let lines = doc.lines(12, 0, height);
        let shown: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(shown, ["one two", "three four", "five six", "", "  py  [copy]", "  x = 1", "", "end"]);
        let joins: Vec<Join> = texts.iter().map(|t| t.join).collect();
        assert_eq!(joins[..3], [Join::Line, Join::Space, Join::Space]);
        assert_eq!(texts[4].label, Some(0));
        assert_eq!(texts[5].skip, 2, "code's indent is layout");
        assert_eq!(doc.code_at(12, 4).as_deref(), Some("x = 1\n"));
        assert_eq!(doc.code_at(12, 5), None);
        assert_eq!(doc.code_at(12, 0), None);
    }
}
