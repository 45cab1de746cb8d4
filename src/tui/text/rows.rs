//! `RowIndex` and `Scroll`: the bookkeeping that keeps a frame's cost independent of
//! history length. `RowIndex` caches each item's height at the current width with prefix
//! sums (only items from the first changed one are re-measured); `Scroll` is a viewport
//! that follows new output until the user scrolls away.

/// Heights of a list of items at one width, with prefix sums.
#[derive(Default, Debug)]
pub struct RowIndex {
    width: u16,
    /// `prefix[i]` = rows before item `i`; `prefix.len() == items + 1` when up to date.
    prefix: Vec<usize>,
    dirty_from: usize,
}

impl RowIndex {
    /// Marks item `i` (and everything after it) as needing to be measured again.
    pub fn invalidate(&mut self, i: usize) {
        self.dirty_from = self.dirty_from.min(i);
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        self.dirty_from = 0;
    }

    /// Brings the index up to date for `count` items at `width`, measuring only what changed.
    pub fn update(&mut self, count: usize, width: u16, mut height_of: impl FnMut(usize) -> usize) {
        if width != self.width {
            self.width = width;
            self.dirty_from = 0;
        }
        let from = self.dirty_from.min(count).min(self.prefix.len().saturating_sub(1));
        self.prefix.truncate(from + 1);
        if self.prefix.is_empty() {
            self.prefix.push(0);
        }
        for i in from..count {
            let before = self.prefix[i];
            self.prefix.push(before + height_of(i));
        }
        self.dirty_from = count;
    }

    pub fn total(&self) -> usize {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// The item holding row `row`, and the row's offset inside it.
    pub fn locate(&self, row: usize) -> Option<(usize, usize)> {
        if row >= self.total() {
            return None;
        }
        let i = self.prefix.partition_point(|&start| start <= row) - 1;
        Some((i, row - self.prefix[i]))
    }

    /// First row of item `i`.
    pub fn start_of(&self, i: usize) -> usize {
        self.prefix.get(i).copied().unwrap_or_else(|| self.total())
    }
}

/// A viewport over `total` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scroll {
    pub top: usize,
    /// Stick to the bottom as rows are added.
    pub follow: bool,
}

impl Default for Scroll {
    fn default() -> Self {
        Scroll { top: 0, follow: true }
    }
}

impl Scroll {
    /// The first visible row for this frame.
    pub fn resolve(&mut self, total: usize, view: usize) -> usize {
        let max_top = total.saturating_sub(view);
        if self.follow || self.top >= max_top {
            self.top = max_top;
        }
        self.top
    }

    pub fn up(&mut self, rows: usize, total: usize, view: usize) {
        let top = self.resolve(total, view);
        self.top = top.saturating_sub(rows);
        self.follow = self.top >= total.saturating_sub(view);
    }

    pub fn down(&mut self, rows: usize, total: usize, view: usize) {
        let max_top = total.saturating_sub(view);
        self.top = (self.resolve(total, view) + rows).min(max_top);
        self.follow = self.top >= max_top;
    }

    pub fn home(&mut self) {
        self.top = 0;
        self.follow = false;
    }

    pub fn end(&mut self) {
        self.follow = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_only_from_the_first_changed_item() {
        let mut index = RowIndex::default();
        let mut measured = Vec::new();
        index.update(3, 80, |i| {
            measured.push(i);
            i + 1
        });
        assert_eq!(index.total(), 6);
        measured.clear();
        index.invalidate(2);
        index.update(4, 80, |i| {
            measured.push(i);
            1
        });
        assert_eq!(measured, [2, 3]);
        assert_eq!(index.total(), 5);
        assert_eq!(index.locate(3), Some((2, 0)));
        assert_eq!(index.locate(4), Some((3, 0)));
        assert_eq!(index.locate(5), None);
        measured.clear();
        index.update(4, 40, |i| {
            measured.push(i);
            1
        });
        assert_eq!(measured, [0, 1, 2, 3], "a new width measures everything");
    }

    #[test]
    fn follows_until_scrolled_up_and_again_at_the_end() {
        let mut s = Scroll::default();
        assert_eq!(s.resolve(100, 10), 90);
        s.up(5, 100, 10);
        assert_eq!((s.top, s.follow), (85, false));
        assert_eq!(s.resolve(200, 10), 85, "stays put while new rows arrive");
        s.down(1000, 200, 10);
        assert!(s.follow);
        assert_eq!(s.resolve(300, 10), 290);
    }
}
