//! The conversation pane's viewport: measuring the cells (`RowIndex`), settling the rows a
//! frame or a scroll needs (`settle`, through the `Cells` walk), scrolling, its keys, and
//! drawing the visible rows with the pane's frame.

use super::History;
use crate::tui::intent::{Intent, Scrolled};
use crate::tui::text::settle::{settle, Items};
use crate::tui::text::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

impl History {
    /// Rows in all at `width`, measuring what changed.
    pub fn total_rows(&mut self, width: u16, theme: &Theme) -> usize {
        let expand = self.expand_thinking;
        let cells = &mut self.cells;
        self.index.update(cells.len(), width, |i| cells[i].height(width, theme, expand));
        self.index.total()
    }

    /// Lays out exactly the `before` rows above row `row` and the `after` rows from it (a
    /// reply may hold estimated heights for what nobody looked at yet) and returns where row
    /// `row`'s line is now: estimates above it that became exact moved it.
    pub(super) fn settle(&mut self, width: u16, theme: &Theme, row: usize, before: usize, after: usize) -> usize {
        settle(&mut Cells { history: self, width, theme }, row, before, after)
    }

    /// Lays out what scrolling `up` or down by `rows` brings on screen before it moves, so the
    /// rows it passes are exact (no line skipped or shown twice).
    pub(super) fn settle_scroll(&mut self, rows: usize, up: bool) {
        if let Some((width, theme)) = self.drawn {
            let view = self.view_rows.max(1);
            let total = self.total_rows(width, &theme);
            let top = self.scroll.resolve(total, view);
            let (before, after) = if up { (rows, 0) } else { (0, rows.saturating_add(view)) };
            self.scroll.top = self.settle(width, &theme, top, before, after);
        }
    }

    pub fn scroll_up(&mut self, rows: usize) {
        self.settle_scroll(rows, true);
        let total = self.index.total();
        self.scroll.up(rows, total, self.view_rows);
    }

    pub fn scroll_down(&mut self, rows: usize) {
        self.settle_scroll(rows, false);
        let total = self.index.total();
        self.scroll.down(rows, total, self.view_rows);
        if self.scroll.follow {
            self.new_output = false;
        }
    }

    pub fn scroll_end(&mut self) {
        self.scroll.end();
        self.new_output = false;
    }

    pub fn scroll_by(&mut self, how: Scrolled) {
        match how {
            Scrolled::Up(n) => self.scroll_up(n),
            Scrolled::Down(n) => self.scroll_down(n),
            Scrolled::Home => self.scroll.home(),
            Scrolled::End => self.scroll_end(),
        }
    }

    /// A key while the conversation has the keys: Up/Down move the selection (or scroll
    /// when there is none that way), Enter opens the selected tool call in the tool log
    /// (`OpenCall`) or expands the selected cell, Space expands it; anything else is
    /// `Ignored`.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Up if !self.select_step(-1) => self.scroll_up(1),
            KeyCode::Down if !self.select_step(1) => self.scroll_down(1),
            KeyCode::Up | KeyCode::Down => {}
            KeyCode::Enter => match self.selected_tool() {
                Some(id) => return Intent::OpenCall(id.to_string()),
                None => self.toggle_selected(),
            },
            KeyCode::Char(' ') if self.selected.is_some() => self.toggle_selected(),
            _ => return Intent::Ignored,
        }
        Intent::Handled
    }

    /// The visible rows for a viewport of `rows` at `width`.
    pub fn visible(&mut self, width: u16, rows: usize, theme: &Theme, highlight: bool) -> Vec<Line<'static>> {
        let total = self.total_rows(width, theme);
        self.view_rows = rows;
        self.drawn = Some((width, *theme));
        // Lay out exactly the rows this frame shows: the last ones when following, else from
        // the top row on (which keeps its line), and the last ones if that runs off the end.
        if self.scroll.follow || self.scroll.top >= total.saturating_sub(rows) {
            self.settle(width, theme, total, rows, 0);
        } else {
            self.scroll.top = self.settle(width, theme, self.scroll.top, 0, rows);
            let total = self.index.total();
            if self.scroll.top + rows > total {
                self.settle(width, theme, total, rows, 0);
            }
        }
        let total = self.index.total();
        let top = self.scroll.resolve(total, rows);
        if self.scroll.follow {
            self.new_output = false;
        }
        let mut out = Vec::with_capacity(rows);
        let Some((mut i, mut offset)) = self.index.locate(top) else { return out };
        let expand = self.expand_thinking;
        while out.len() < rows && i < self.cells.len() {
            let want = rows - out.len();
            let mut lines = self.cells[i].lines(width, theme, expand, offset, want);
            if highlight && offset == 0 && self.selected == Some(i) {
                if let Some(first) = lines.first_mut() {
                    *first = std::mem::take(first).patch_style(theme.selected());
                }
            }
            out.extend(lines);
            offset = 0;
            i += 1;
        }
        out.truncate(rows);
        out
    }

    /// Rows below the view at the last draw, while scrolled up (none when following): from
    /// the row index's total, which every frame keeps, so it costs nothing per frame.
    pub fn rows_below(&self) -> Option<usize> {
        if self.scroll.follow {
            return None;
        }
        let below = self.index.total().saturating_sub(self.scroll.top + self.view_rows);
        (below > 0).then_some(below)
    }

    /// Draws the pane; the selected cell is highlighted when `highlight` (this pane or the
    /// tool log has focus). Scrolled up, the title says how far the bottom is
    /// (`↓ 120 lines · End`).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool, highlight: bool, title: &str) {
        // The frame's inside does not depend on its title: lay the rows out first, so the
        // title says where they ended.
        let inner = theme.pane("", focused).inner(area);
        let lines = if inner.width == 0 || inner.height == 0 {
            Vec::new()
        } else {
            self.visible(inner.width, usize::from(inner.height), theme, highlight)
        };
        let title = match self.rows_below() {
            Some(below) => format!("{title} · ↓ {below} line{} · End", if below == 1 { "" } else { "s" }),
            None => title.to_string(),
        };
        let inner = theme.draw_pane_cached(&mut self.frame, area, buf, &title, focused, false);
        self.inner = inner;
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        for (row, line) in lines.iter().enumerate() {
            crate::tui::text::line_out::set_line(buf, inner.x, inner.y + row as u16, line, inner.width);
        }
        self.paint_selection(buf, inner, theme);
        if !self.scroll.follow && self.new_output {
            // On the bottom border, where it hides no text.
            theme.draw_badge(area, buf, " ↓ new output (End) ");
        }
    }
}

/// The conversation's cells as `settle` walks them, at one width and theme.
struct Cells<'a> {
    history: &'a mut History,
    width: u16,
    theme: &'a Theme,
}

impl Items for Cells<'_> {
    fn count(&mut self) -> usize {
        self.history.cells.len()
    }

    fn locate(&mut self, row: usize) -> Option<(usize, usize)> {
        self.history.total_rows(self.width, self.theme);
        self.history.index.locate(row)
    }

    fn start(&mut self, i: usize) -> usize {
        self.history.total_rows(self.width, self.theme);
        self.history.index.start_of(i)
    }

    fn height(&mut self, i: usize) -> usize {
        self.history.cells[i].height(self.width, self.theme, self.history.expand_thinking)
    }

    /// `HistoryCell::settle`, re-measuring the cell when its height changed.
    fn settle_item(&mut self, i: usize, row: usize, before: usize, after: usize) -> usize {
        let expand = self.history.expand_thinking;
        let cell = &mut self.history.cells[i];
        let height = cell.height(self.width, self.theme, expand);
        let row = cell.settle(self.width, row, before, after);
        if cell.height(self.width, self.theme, expand) != height {
            self.history.index.invalidate(i);
        }
        row
    }
}
