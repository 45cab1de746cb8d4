//! The one `settle` walk: given a list of items stacked in rows, some with only estimated
//! heights, lay out exactly the rows a window needs around an anchor row and say where that
//! row's line went. `MarkdownDoc` walks its blocks with it and the conversation pane its cells
//! (a reply cell settling its own blocks through the same walk). Owns only the walk; what
//! laying out an item means is the caller's (`Items`).

/// A list of items stacked in rows, as the walk sees it.
pub trait Items {
    /// How many items there are.
    fn count(&mut self) -> usize;
    /// The item holding `row` and the row's offset in it; `None` past the end.
    fn locate(&mut self, row: usize) -> Option<(usize, usize)>;
    /// The first row of item `i`, as the heights stand now.
    fn start(&mut self, i: usize) -> usize;
    /// Rows of item `i`, as they stand now.
    fn height(&mut self, i: usize) -> usize;
    /// Lays out exactly the `before` rows above row `row` of item `i` and the `after` rows from
    /// it, and returns where that row's line is now in the item (a row at or past the item's
    /// end stays as far past its end).
    fn settle_item(&mut self, i: usize, row: usize, before: usize, after: usize) -> usize;
}

/// Lays out exactly the `before` rows above row `row` and the `after` rows from it, and returns
/// where `row`'s line is now: items laid out above it moved it by the difference between their
/// estimated and exact heights. A row at or past the end stays as far past the end.
pub fn settle(items: &mut impl Items, row: usize, before: usize, after: usize) -> usize {
    let Some(last) = items.count().checked_sub(1) else { return row };
    let (i, offset) = match items.locate(row) {
        Some(found) => found,
        None => (last, row.saturating_sub(items.start(last))),
    };
    let offset = items.settle_item(i, offset, before, after);
    let mut covered = items.height(i).saturating_sub(offset);
    let mut j = i + 1;
    while covered < after && j <= last {
        items.settle_item(j, 0, 0, after - covered);
        covered += items.height(j);
        j += 1;
    }
    let mut covered = offset;
    let mut j = i;
    while covered < before && j > 0 {
        j -= 1;
        let end = items.height(j);
        covered += items.settle_item(j, end, before - covered, 0);
    }
    items.start(i) + offset
}

/// Where row `row` of an item is once the item went from `was` rows to `now`: a row at or
/// past its end stays as far past the end; a row inside an item whose height was an estimate
/// keeps its offset as far as the item now reaches.
pub fn row_after(row: usize, was: usize, now: usize, estimated: bool) -> usize {
    if row >= was {
        now + (row - was)
    } else if estimated {
        row.min(now.saturating_sub(1))
    } else {
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items with estimated heights that become exact when laid out.
    struct Estimated {
        estimated: Vec<usize>,
        exact: Vec<usize>,
        laid_out: Vec<bool>,
    }

    impl Estimated {
        fn rows(&self, i: usize) -> usize {
            if self.laid_out[i] {
                self.exact[i]
            } else {
                self.estimated[i]
            }
        }
    }

    impl Items for Estimated {
        fn count(&mut self) -> usize {
            self.exact.len()
        }
        fn locate(&mut self, row: usize) -> Option<(usize, usize)> {
            let mut top = 0;
            for i in 0..self.exact.len() {
                let rows = self.rows(i);
                if row < top + rows {
                    return Some((i, row - top));
                }
                top += rows;
            }
            None
        }
        fn start(&mut self, i: usize) -> usize {
            (0..i).map(|j| self.rows(j)).sum()
        }
        fn height(&mut self, i: usize) -> usize {
            self.rows(i)
        }
        fn settle_item(&mut self, i: usize, row: usize, _: usize, _: usize) -> usize {
            let was = self.rows(i);
            let estimated = !self.laid_out[i];
            self.laid_out[i] = true;
            let now = self.rows(i);
            row_after(row, was, now, estimated)
        }
    }

    #[test]
    fn the_anchor_keeps_its_line_and_only_the_window_is_laid_out() {
        let mut items = Estimated { estimated: vec![10; 6], exact: vec![3, 20, 4, 7, 2, 9], laid_out: vec![false; 6] };
        // Row 25 is row 5 of item 2 (estimated); laid out exactly it has 4 rows: clamped to 3.
        let row = settle(&mut items, 25, 5, 5);
        assert_eq!(items.laid_out, [false, true, true, true, false, false]);
        assert_eq!(row, 10 + 20 + 3);
        // Past the end: as far past the new end.
        let mut items = Estimated { estimated: vec![5; 3], exact: vec![1, 2, 3], laid_out: vec![false; 3] };
        assert_eq!(settle(&mut items, 17, 1, 0), 15, "two past the end, whose item was 2 rows shorter");
        assert_eq!(items.laid_out, [false, false, true]);
        assert_eq!(settle(&mut items, 15, 8, 0), 6 + 2);
        assert_eq!(items.laid_out, [true, true, true]);
    }
}
