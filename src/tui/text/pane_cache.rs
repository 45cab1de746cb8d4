//! `DrawnCells`: the cells a pane drew last frame, reused while what it draws from did not
//! change, so a frame in which only the streamed reply moved does not draw the prompt editor
//! or the panes' borders again (ratatui's `Block` styles every cell of its area, and the
//! prompt editor lays out its text, on every frame). Owns only the reuse: what a pane looks
//! like stays with the pane, which draws into a blank buffer of its area on a miss.
//!
//! A pane's cells may be reused only when the key holds everything the drawing reads, and
//! the pane is drawn onto blank cells (its own area of a freshly reset frame), since a reuse
//! replaces the cells where the drawing would have patched their styles.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Which of the drawn cells a reuse copies back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Every cell of the area.
    All,
    /// The outermost rows and columns only: a pane's frame (its inside is left alone for the
    /// pane to fill).
    Edges,
}

/// The cells drawn for one key and area.
pub struct DrawnCells<K> {
    key: Option<K>,
    cells: Buffer,
}

impl<K> Default for DrawnCells<K> {
    fn default() -> Self {
        DrawnCells { key: None, cells: Buffer::empty(Rect::ZERO) }
    }
}

impl<K: PartialEq> DrawnCells<K> {
    /// Puts into `buf` at `area` what `draw` draws there (into a blank buffer of `area`),
    /// drawing again only when `key` or `area` differs from last time; `part` says which
    /// cells are copied back.
    pub fn draw(&mut self, key: K, area: Rect, part: Part, buf: &mut Buffer, draw: impl FnOnce(&mut Buffer)) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        if self.key.as_ref() != Some(&key) || self.cells.area != area {
            self.cells = Buffer::empty(area);
            draw(&mut self.cells);
            self.key = Some(key);
        }
        match part {
            Part::All => {
                for y in area.top()..area.bottom() {
                    self.copy_row(buf, y, area.left(), area.right());
                }
            }
            Part::Edges => {
                self.copy_row(buf, area.top(), area.left(), area.right());
                self.copy_row(buf, area.bottom() - 1, area.left(), area.right());
                for y in area.top() + 1..area.bottom().saturating_sub(1) {
                    self.copy_row(buf, y, area.left(), area.left() + 1);
                    self.copy_row(buf, y, area.right() - 1, area.right());
                }
            }
        }
    }

    /// Copies columns `from..to` of row `y` (all inside the cached area) into `buf`.
    fn copy_row(&self, buf: &mut Buffer, y: u16, from: u16, to: u16) {
        let source = self.cells.index_of(from, y);
        let target = buf.index_of(from, y);
        let len = usize::from(to - from);
        buf.content[target..target + len].clone_from_slice(&self.cells.content[source..source + len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Style};

    fn framed(buf: &mut Buffer) {
        let area = buf.area;
        for y in area.top()..area.bottom() {
            for x in area.left()..area.right() {
                let edge = y == area.top() || y + 1 == area.bottom() || x == area.left() || x + 1 == area.right();
                buf[(x, y)].set_symbol(if edge { "#" } else { "." }).set_style(Style::default().fg(Color::Red));
            }
        }
    }

    const SCREEN: Rect = Rect::new(0, 0, 10, 6);
    const AREA: Rect = Rect::new(2, 1, 5, 4);

    #[test]
    fn a_reuse_copies_the_cells_drawn_for_the_same_key_and_area() {
        let (screen, area) = (SCREEN, AREA);
        let mut cache = DrawnCells::default();
        let mut drawn = Buffer::empty(screen);
        cache.draw(1, area, Part::All, &mut drawn, framed);
        let mut reused = Buffer::empty(screen);
        cache.draw(1, area, Part::All, &mut reused, |_| panic!("drawn again for the same key"));
        let mut direct = Buffer::empty(screen);
        let mut inner = Buffer::empty(area);
        framed(&mut inner);
        direct.merge(&inner);
        assert_eq!(drawn, direct);
        assert_eq!(reused, direct);
    }

    #[test]
    fn edges_copy_only_the_frame_and_a_new_key_or_area_draws_again() {
        let area = AREA;
        let mut cache = DrawnCells::default();
        let mut buf = Buffer::empty(SCREEN);
        cache.draw("a", area, Part::Edges, &mut buf, framed);
        assert_eq!(buf[(2, 1)].symbol(), "#");
        assert_eq!(buf[(6, 4)].symbol(), "#");
        assert_eq!(buf[(3, 2)].symbol(), " ", "the inside is the pane's");
        let mut calls = 0;
        cache.draw("a", area, Part::Edges, &mut buf, |_| calls += 1);
        cache.draw("b", area, Part::Edges, &mut buf, |b| {
            calls += 1;
            framed(b)
        });
        cache.draw("b", Rect::new(1, 1, 5, 4), Part::Edges, &mut buf, |b| {
            calls += 1;
            framed(b)
        });
        assert_eq!(calls, 2);
    }
}
