//! The conversation pane: the list of history cells, which of them are still streaming,
//! and the scrolled viewport over them. Drawing measures only cells that changed (via
//! `RowIndex`) and lays out only the visible rows, so a frame costs the same with 10 or
//! 10,000 cells. A big reply may hold estimated heights for what nobody looked at yet: each
//! frame first settles its window (lays out exactly the rows it shows; see
//! `MarkdownDoc::settle`), keeping the top row's line in place, and scrolling settles the rows
//! it passes before it moves.

use crate::protocol::ToolResult;
use crate::tui::intent::{Intent, Scrolled};
use crate::tui::markdown::{MarkdownDoc, RenderOptions};
use crate::tui::panes::conversation::cells::{CellKind, HistoryCell};
use crate::tui::panes::conversation::tool_group;
use crate::tui::panes::conversation::tool_line::ToolLine;
use crate::tui::text::hints::{paste_chip, PASTE_LINES};
use crate::tui::text::rows::{RowIndex, Scroll};
use crate::tui::text::settle::{settle, Items};
use crate::tui::text::theme::{PaneFrame, Theme};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use std::collections::HashMap;

#[derive(Default)]
pub struct History {
    cells: Vec<HistoryCell>,
    index: RowIndex,
    pub scroll: Scroll,
    expand_thinking: bool,
    /// Output arrived while the user was scrolled up.
    pub new_output: bool,
    open_thinking: Option<usize>,
    open_reply: Option<usize>,
    /// Tool call id → its cell, for linking with the tool log.
    tools: HashMap<String, usize>,
    /// The first cell of the model's current step: calls above it are not grouped with it.
    step_start: usize,
    /// The selected cell (a tool line or a collapsed paste), moved with Up/Down.
    pub selected: Option<usize>,
    /// Rows in the viewport at the last draw (for page-sized scrolling).
    pub view_rows: usize,
    /// Where the rows were drawn last, for mouse clicks.
    inner: Rect,
    /// Colour in rendered Markdown (off with `NO_COLOR`).
    pub color: bool,
    /// Markdown coloured for a light background.
    pub light: bool,
    /// Width and theme of the last draw, so scrolling can lay out what it scrolls over.
    drawn: Option<(u16, Theme)>,
    /// The pane's frame as last drawn.
    frame: PaneFrame,
    /// The welcome's cell, until the first prompt takes it away.
    welcome: Option<usize>,
}

impl History {
    pub fn new(color: bool) -> Self {
        History { color, ..History::default() }
    }

    /// A history whose Markdown is coloured by `theme`.
    pub fn themed(theme: crate::tui::text::theme::Theme) -> Self {
        History { color: theme.color, light: theme.light, ..History::default() }
    }

    fn changed(&mut self, i: usize) {
        self.index.invalidate(i);
        if !self.scroll.follow {
            self.new_output = true;
        }
    }

    pub fn push(&mut self, kind: CellKind) -> usize {
        self.cells.push(HistoryCell::new(kind));
        let i = self.cells.len() - 1;
        self.changed(i);
        i
    }

    /// Shows the first screen's welcome (`welcome.rs`) when nothing was said yet.
    pub fn welcome(&mut self, lines: Vec<String>) {
        if !self.has_prompt() && self.welcome.is_none() {
            self.welcome = Some(self.push(CellKind::Welcome(lines)));
        }
    }

    /// A prompt was sent (or came back with a resumed session).
    pub fn has_prompt(&self) -> bool {
        self.cells.iter().any(|c| matches!(c.kind, CellKind::User(_) | CellKind::PastedPrompt { .. }))
    }

    /// The first prompt takes the welcome away.
    fn dismiss_welcome(&mut self) {
        if let Some(i) = self.welcome.take() {
            self.cells[i].kind = CellKind::Gone;
            self.cells[i].touch();
            self.changed(i);
        }
    }

    /// A prompt; a long one (a resumed session's paste) shows as a chip, expanded with Space.
    pub fn user(&mut self, text: &str) {
        let lines = text.lines().count();
        if lines > PASTE_LINES {
            return self.user_pasted(&paste_chip(lines), text);
        }
        self.dismiss_welcome();
        self.close();
        self.push(CellKind::User(text.to_string()));
    }

    /// A prompt holding long pastes: `shown` has their placeholders, `full` all of it.
    pub fn user_pasted(&mut self, shown: &str, full: &str) {
        self.dismiss_welcome();
        self.close();
        self.push(CellKind::PastedPrompt { shown: shown.to_string(), full: full.to_string(), expanded: false });
    }

    pub fn thinking(&mut self, delta: &str) {
        let i = match self.open_thinking {
            Some(i) => i,
            None => {
                self.open_reply = None;
                let i = self.push(CellKind::Thinking { text: Default::default(), collapsed: false });
                self.open_thinking = Some(i);
                i
            }
        };
        self.cells[i].push_thinking(delta);
        self.changed(i);
    }

    pub fn saying(&mut self, delta: &str) {
        let i = match self.open_reply {
            Some(i) => i,
            None => {
                if let Some(t) = self.open_thinking.take() {
                    if let CellKind::Thinking { collapsed, .. } = &mut self.cells[t].kind {
                        *collapsed = true;
                    }
                    self.cells[t].touch();
                    self.changed(t);
                }
                let doc = MarkdownDoc::new(RenderOptions { color: self.color, light: self.light });
                let i = self.push(CellKind::Reply(Box::new(doc)));
                self.open_reply = Some(i);
                i
            }
        };
        self.cells[i].push_reply(delta);
        self.changed(i);
    }

    pub fn tool_started(&mut self, id: &str, tool: &str, label: &str) {
        self.close();
        let i = self.push(CellKind::Tool(ToolLine::new(id, tool, label)));
        self.tools.insert(id.to_string(), i);
    }

    /// The model's response ended (its usage came): the calls it asks for start a new step,
    /// whose lines do not join those above.
    pub fn step_ended(&mut self) {
        self.step_start = self.cells.len();
    }

    /// A chunk of a running call's output: it is a command, whose last lines show under
    /// its line until it ends.
    pub fn tool_output(&mut self, id: &str, chunk: &str) {
        let Some(&i) = self.tools.get(id) else { return };
        if let Some(CellKind::Tool(line)) = self.cells.get_mut(i).map(|c| &mut c.kind) {
            line.stream(chunk);
        }
        self.cells[i].touch();
        self.changed(i);
    }

    pub fn tool_finished(&mut self, id: &str, result: &ToolResult) {
        if let Some(&i) = self.tools.get(id) {
            if let CellKind::Tool(line) = &mut self.cells[i].kind {
                line.finish(result);
            }
            self.cells[i].touch();
            self.changed(i);
            for merged in tool_group::regroup(&mut self.cells, i, self.step_start) {
                for id in merged.ids {
                    self.tools.insert(id, merged.into);
                }
                if self.selected == Some(merged.from) {
                    self.selected = Some(merged.into);
                }
                self.changed(merged.from);
                self.changed(merged.into);
            }
        }
    }

    /// The turn was interrupted: the reply it cut off loses an unfinished table row.
    pub fn interrupted(&mut self) {
        if let Some(i) = self.open_reply {
            self.cells[i].cut_unfinished_row();
            self.changed(i);
        }
        self.close();
    }

    /// Ends the streaming response: the next delta starts new cells.
    pub fn close(&mut self) {
        if let Some(t) = self.open_thinking.take() {
            if let CellKind::Thinking { collapsed, .. } = &mut self.cells[t].kind {
                *collapsed = true;
            }
            self.cells[t].touch();
            self.changed(t);
        }
        self.open_reply = None;
    }

    /// The last `turns` turns were rewound: their cells, from the prompt on, are gone.
    pub fn rewind(&mut self, turns: usize) {
        let prompts = self
            .cells
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, c)| matches!(c.kind, CellKind::User(_) | CellKind::PastedPrompt { .. }));
        let Some((from, _)) = prompts.take(turns).last() else { return };
        self.close();
        for i in from..self.cells.len() {
            self.cells[i].kind = CellKind::Gone;
            self.cells[i].touch();
            self.changed(i);
        }
        self.tools.retain(|_, cell| *cell < from);
        self.selected = self.selected.filter(|i| *i < from);
    }

    pub fn clear(&mut self) {
        *self = History {
            expand_thinking: self.expand_thinking,
            color: self.color,
            light: self.light,
            ..History::default()
        };
    }

    pub fn toggle_thinking(&mut self) {
        self.expand_thinking = !self.expand_thinking;
        for cell in &mut self.cells {
            if matches!(cell.kind, CellKind::Thinking { .. }) {
                cell.touch();
            }
        }
        self.index.reset();
    }

    /// The selected cell's tool call, if it is one.
    pub fn selected_tool(&self) -> Option<&str> {
        match &self.cells.get(self.selected?)?.kind {
            CellKind::Tool(line) => Some(&line.id),
            _ => None,
        }
    }

    /// Selects the line of tool call `id` and scrolls it into view.
    pub fn select_tool(&mut self, id: &str) {
        if let Some(&i) = self.tools.get(id) {
            self.selected = Some(i);
            self.reveal(i);
        }
    }

    /// Moves the selection to the previous (`-1`) or next (`1`) selectable cell; with
    /// nothing selected, starts from what is on screen. `false` when there is none that way.
    pub fn select_step(&mut self, delta: isize) -> bool {
        let selectable = |cell: &HistoryCell| cell.selectable();
        let view = self.view_rows.max(1);
        let top = self.scroll.resolve(self.index.total(), view);
        let rows_of = |index: &RowIndex, i: usize| (index.start_of(i), index.start_of(i + 1));
        // A selection scrolled out of sight (Home, the wheel) is not where the user looks.
        if let Some(i) = self.selected {
            let (start, end) = rows_of(&self.index, i);
            if start >= top + view || end <= top {
                self.selected = None;
            }
        }
        let found = match (self.selected, delta < 0) {
            (Some(i), true) => self.cells[..i.min(self.cells.len())].iter().rposition(selectable),
            (Some(i), false) => self.cells.iter().skip(i + 1).position(selectable).map(|p| p + i + 1),
            (None, up) => {
                let (top, view) = (self.scroll.top, self.view_rows.max(1));
                let anchor = if up { top + view } else { top };
                let first = self.index.locate(anchor).map_or(self.cells.len(), |(i, _)| i);
                if up {
                    self.cells[..(first + 1).min(self.cells.len())].iter().rposition(selectable)
                } else {
                    self.cells.iter().skip(first).position(selectable).map(|p| p + first)
                }
            }
        };
        // Only a cell on screen or on the next row is selected; one further away is
        // scrolled towards a row at a time (Home then Down moves one row, not to the bottom).
        let near = |i: usize| {
            let (start, end) = rows_of(&self.index, i);
            if delta < 0 {
                end >= top
            } else {
                start <= top + view
            }
        };
        match found.filter(|&i| near(i)) {
            Some(i) => {
                self.selected = Some(i);
                self.reveal(i);
                true
            }
            None => false,
        }
    }

    /// A click at `at` selects the tool line there.
    pub fn click(&mut self, at: ratatui::layout::Position) {
        if !self.inner.contains(at) {
            return;
        }
        let row = self.scroll.top + usize::from(at.y - self.inner.y);
        if let Some((i, _)) =
            self.index.locate(row).filter(|(i, _)| self.cells.get(*i).is_some_and(HistoryCell::selectable))
        {
            self.selected = Some(i);
        }
    }

    /// Expands or collapses the selected cell (a command's whole output, a paste).
    pub fn toggle_selected(&mut self) {
        if let Some(i) = self.selected.filter(|&i| i < self.cells.len()) {
            self.cells[i].toggle();
            self.index.invalidate(i);
            // Keep the cell's first line where the user is looking, if it is on screen.
            let start = self.index.start_of(i);
            let top = self.scroll.top;
            if start < top || start >= top + self.view_rows.max(1) {
                self.scroll.top = start;
            }
            self.scroll.follow = false;
        }
    }

    /// Scrolls so cell `i` is on screen (its first rows, as many as fit).
    pub fn reveal(&mut self, i: usize) {
        let start = self.index.start_of(i);
        let end = self.index.start_of(i + 1).max(start + 1);
        let view = self.view_rows.max(1);
        let top = self.scroll.resolve(self.index.total(), view);
        let new_top = if start < top {
            start
        } else if end > top + view {
            end.saturating_sub(view).min(start)
        } else {
            return;
        };
        self.scroll.top = new_top;
        self.scroll.follow = new_top >= self.index.total().saturating_sub(view);
    }

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
    fn settle(&mut self, width: u16, theme: &Theme, row: usize, before: usize, after: usize) -> usize {
        settle(&mut Cells { history: self, width, theme }, row, before, after)
    }

    /// Lays out what scrolling `up` or down by `rows` brings on screen before it moves, so the
    /// rows it passes are exact (no line skipped or shown twice).
    fn settle_scroll(&mut self, rows: usize, up: bool) {
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

    /// Draws the pane; the selected cell is highlighted when `highlight` (this pane or the
    /// tool log has focus).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool, highlight: bool, title: &str) {
        let inner = theme.draw_pane_cached(&mut self.frame, area, buf, title, focused, false);
        self.inner = inner;
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let lines = self.visible(inner.width, usize::from(inner.height), theme, highlight);
        for (row, line) in lines.iter().enumerate() {
            crate::tui::text::line_out::set_line(buf, inner.x, inner.y + row as u16, line, inner.width);
        }
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

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
