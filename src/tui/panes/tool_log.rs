//! The tool log pane: one row per tool call across the whole session (`+ read README.md`,
//! `x execute cargo test`, `foo?` for unknown tools), live while running (spinner, elapsed
//! time, the last lines of streamed output), selectable and expandable to show the call
//! laid out by kind (`tool_detail.rs`). A call that runs a sub-agent shows the child's calls
//! nested under it (`sub_calls.rs`: the last few while it runs, all when expanded) and its
//! token count.

use crate::protocol::ToolResult;
use crate::sanitize::sanitize;
use crate::tui::intent::{Intent, Scrolled};
use crate::tui::panes::sub_calls::SubCalls;
use crate::tui::panes::tool_row::{one_line, ToolRow, OUTPUT_TAIL};
use crate::tui::runtime::clock::{SharedClock, SystemClock};
use crate::tui::text::rows::{RowIndex, Scroll};
use crate::tui::text::theme::{PaneFrame, Theme};
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub struct ToolLog {
    clock: SharedClock,
    rows: Vec<ToolRow>,
    by_id: HashMap<String, usize>,
    /// Where each turn's rows begin, so a rewind takes the rewound turns' rows out.
    turn_starts: Vec<usize>,
    index: RowIndex,
    pub scroll: Scroll,
    pub selected: Option<usize>,
    view_rows: usize,
    /// Rows added while the view was not following.
    unseen: usize,
    /// Where the rows were drawn last, for mouse clicks.
    inner: Rect,
    /// The pane's frame as last drawn.
    frame: PaneFrame,
}

impl Default for ToolLog {
    fn default() -> Self {
        Self::new(std::sync::Arc::new(SystemClock))
    }
}

impl ToolLog {
    pub fn new(clock: SharedClock) -> Self {
        ToolLog {
            clock,
            rows: Vec::new(),
            by_id: HashMap::new(),
            turn_starts: Vec::new(),
            index: RowIndex::default(),
            scroll: Scroll::default(),
            selected: None,
            view_rows: 0,
            unseen: 0,
            frame: PaneFrame::default(),
            inner: Rect::default(),
        }
    }

    pub fn running(&self) -> usize {
        self.rows.iter().rev().take_while(|r| r.result.is_none()).count()
    }

    /// A turn began: the rows from here on are its.
    pub fn turn_started(&mut self) {
        self.turn_starts.push(self.rows.len());
    }

    /// The last `turns` turns were rewound: their rows leave the log.
    pub fn rewound(&mut self, turns: usize) {
        let kept = self.turn_starts.len().saturating_sub(turns);
        let Some(&cut) = self.turn_starts.get(kept) else { return };
        self.turn_starts.truncate(kept);
        self.rows.truncate(cut);
        self.by_id.retain(|_, i| *i < cut);
        self.selected = self.selected.filter(|s| *s < cut);
        self.unseen = self.unseen.min(self.rows.len());
        self.index.invalidate(cut);
    }

    /// A call began; `summary` is the tool's own one-line description of it. While the
    /// view follows, a selection on the newest row moves on to this one; otherwise the row
    /// counts as unseen (`↓ N new`).
    pub fn started(&mut self, id: &str, name: &str, summary: &str, args: &Value) {
        let on_newest = self.selected.is_some_and(|s| s + 1 == self.rows.len());
        self.rows.push(ToolRow {
            id: id.to_string(),
            number: self.rows.len() + 1,
            name: sanitize(name).into_owned(),
            summary: one_line(summary),
            args: args.clone(),
            started: self.clock.now(),
            elapsed: None,
            waiting_since: None,
            waited: Duration::ZERO,
            result: None,
            output: String::new(),
            expanded: false,
            detail: None,
            sub: None,
        });
        let i = self.rows.len() - 1;
        self.by_id.insert(id.to_string(), i);
        self.index.invalidate(i);
        if !self.scroll.follow {
            self.unseen += 1;
        } else if on_newest {
            self.selected = Some(i);
        }
    }

    pub fn output(&mut self, id: &str, chunk: &str) {
        if let Some(&i) = self.by_id.get(id) {
            let row = &mut self.rows[i];
            row.output.push_str(chunk);
            if row.output.len() > 2 * OUTPUT_TAIL {
                let mut cut = row.output.len() - OUTPUT_TAIL;
                while !row.output.is_char_boundary(cut) {
                    cut += 1;
                }
                row.output.drain(..cut);
            }
            self.index.invalidate(i);
        }
    }

    /// Something the sub-agent run by call `id` showed (its calls, its tokens).
    pub fn sub_agent(&mut self, id: &str, event: crate::agent::AgentEvent) {
        if let Some(&i) = self.by_id.get(id) {
            if self.rows[i].sub.get_or_insert_with(SubCalls::default).take(event) {
                self.index.invalidate(i);
            }
        }
    }

    pub fn finished(&mut self, id: &str, result: &ToolResult) {
        let now = self.clock.now();
        if let Some(i) = self.by_id.remove(id) {
            let row = &mut self.rows[i];
            row.elapsed = Some(row.run_time(now));
            row.waiting_since = None;
            row.result = Some(result.clone());
            row.output = String::new();
            row.detail = None;
            self.index.invalidate(i);
        }
    }

    /// The approval dialog for call `id` opened (`true`) or was answered: the time in
    /// between is shown as `waiting for approval` and is not run time. A sub-agent's call
    /// marks the row of the call that runs the sub-agent.
    pub fn waiting(&mut self, id: &str, waiting: bool) {
        let now = self.clock.now();
        let running_sub = |r: &ToolRow| r.result.is_none() && r.sub.as_ref().is_some_and(|s| s.runs(id));
        let Some(i) = self.by_id.get(id).copied().or_else(|| self.rows.iter().rposition(running_sub)) else {
            return;
        };
        let row = &mut self.rows[i];
        match (waiting, row.waiting_since) {
            (true, None) => row.waiting_since = Some(now),
            (false, Some(since)) => {
                row.waited += now.saturating_duration_since(since);
                row.waiting_since = None;
            }
            _ => {}
        }
        self.index.invalidate(i);
    }

    pub fn select_next(&mut self, delta: isize) {
        if self.rows.is_empty() {
            return;
        }
        let last = self.rows.len() - 1;
        let next = match self.selected {
            // The first key selects the newest row.
            None => last,
            Some(current) => (current as isize + delta).clamp(0, last as isize) as usize,
        };
        if next == last {
            self.select_last();
        } else {
            self.selected = Some(next);
            self.reveal(next);
        }
    }

    /// Selects the newest row and follows new ones again (End).
    pub fn select_last(&mut self) {
        self.selected = self.rows.len().checked_sub(1);
        self.scroll.end();
        self.unseen = 0;
    }

    /// Rows added since the view stopped following that are below the view (`↓ N new`):
    /// a new row already on screen is not counted. Needs the index as of this frame.
    fn new_below(&self, top: usize, view: usize) -> usize {
        if self.scroll.follow {
            return 0;
        }
        let first_new = self.rows.len().saturating_sub(self.unseen);
        (first_new..self.rows.len()).filter(|&i| self.index.start_of(i) >= top + view).count()
    }

    /// The number the next call gets.
    pub fn next_number(&self) -> usize {
        self.rows.len() + 1
    }

    /// The selected row's call id.
    pub fn selected_id(&self) -> Option<&str> {
        self.rows.get(self.selected?).map(|r| r.id.as_str())
    }

    /// Selects call `id`, expanded, and scrolls it into view (the conversation's Enter).
    pub fn open(&mut self, id: &str) {
        if let Some(i) = self.rows.iter().position(|r| r.id == id) {
            self.selected = Some(i);
            if !self.rows[i].expanded {
                self.toggle_selected();
            } else {
                self.reveal(i);
            }
        }
    }

    pub fn toggle_selected(&mut self) {
        if let Some(i) = self.selected {
            if let Some(row) = self.rows.get_mut(i) {
                row.expanded = !row.expanded;
                self.index.invalidate(i);
                // Keep the row's first line where the user is looking.
                self.scroll.top = self.index.start_of(i);
                self.scroll.follow = false;
            }
        }
    }

    /// A click at `at`: selects the row there. `false` when no row is there.
    pub fn click(&mut self, at: ratatui::layout::Position) -> Intent {
        if !self.inner.contains(at) {
            return Intent::Handled;
        }
        let row = self.scroll.top + usize::from(at.y - self.inner.y);
        match self.index.locate(row) {
            Some((i, _)) if i < self.rows.len() => {
                self.selected = Some(i);
                self.show_selected()
            }
            _ => Intent::Handled,
        }
    }

    /// A key while the tool log has the keys: Up/Down select (and show the call in the
    /// conversation), Enter expands (with nothing selected, the newest call), `<` `>` move the split; anything else is `Ignored`.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Up => self.select_row(-1),
            KeyCode::Down => self.select_row(1),
            KeyCode::Enter if self.selected.is_none() => {
                // As the first arrow selects the newest call, so does the first Enter.
                self.select_last();
                self.toggle_selected();
                self.show_selected()
            }
            KeyCode::Enter => {
                self.toggle_selected();
                Intent::Handled
            }
            KeyCode::Char('<') => Intent::ResizeSplit(1),
            KeyCode::Char('>') => Intent::ResizeSplit(-1),
            _ => Intent::Ignored,
        }
    }

    /// Scrolls the log; End selects the newest call (and shows it in the conversation).
    pub fn scroll_by(&mut self, how: Scrolled) -> Intent {
        match how {
            Scrolled::Up(n) => self.scroll_up(n),
            Scrolled::Down(n) => self.scroll_down(n),
            Scrolled::Home => self.scroll.home(),
            Scrolled::End => {
                self.select_last();
                return self.show_selected();
            }
        }
        Intent::Handled
    }

    fn select_row(&mut self, delta: isize) -> Intent {
        self.select_next(delta);
        self.show_selected()
    }

    /// The selected call, for the conversation to select its line too.
    fn show_selected(&self) -> Intent {
        match self.selected_id() {
            Some(id) => Intent::ShowCall(id.to_string()),
            None => Intent::Handled,
        }
    }

    /// Scrolls so row `i` is visible.
    fn reveal(&mut self, i: usize) {
        let start = self.index.start_of(i);
        let view = self.view_rows.max(1);
        if start < self.scroll.top {
            self.scroll.top = start;
            self.scroll.follow = false;
        } else if start >= self.scroll.top + view {
            self.scroll.top = start + 1 - view;
            self.scroll.follow = false;
        }
    }

    pub fn scroll_up(&mut self, rows: usize) {
        self.scroll.up(rows, self.index.total(), self.view_rows);
    }

    pub fn scroll_down(&mut self, rows: usize) {
        self.scroll.down(rows, self.index.total(), self.view_rows);
        if self.scroll.follow {
            self.unseen = 0;
        }
    }

    pub fn view_rows(&self) -> usize {
        self.view_rows
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool, now: Instant) {
        // A call waiting for the user's answer is not running yet: the title says which.
        let open = self.rows.iter().rev().take_while(|r| r.result.is_none());
        let waiting = open.filter(|r| r.waiting_since.is_some()).count();
        let mut title = match (self.running() - waiting, waiting) {
            (0, 0) => format!("tools · {}", self.rows.len()),
            (running, 0) => format!("tools · {running} running"),
            (0, waiting) => format!("tools · {waiting} to approve"),
            (running, waiting) => format!("tools · {running} running · {waiting} to approve"),
        };
        // A strip (the stacked layout) has no bottom border for the badge: it joins the title.
        let strip = area.height <= crate::tui::regions::STRIP;
        let inner = theme.draw_pane_cached(&mut self.frame, area, buf, &title, focused, strip);
        self.inner = inner;
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let (width, view) = (inner.width, usize::from(inner.height));
        self.view_rows = view;
        if self.rows.is_empty() {
            buf.set_string(inner.x, inner.y, truncate("no tool calls yet", usize::from(width)), theme.dim());
            return;
        }
        let rows = &mut self.rows;
        self.index.update(rows.len(), width, |i| rows[i].height(width, theme));
        let top = self.scroll.resolve(self.index.total(), view);
        let unseen = self.new_below(top, view);
        if strip && unseen > 0 {
            title.push_str(&format!(" · ↓ {unseen} new (End)"));
            theme.draw_pane_cached(&mut self.frame, area, buf, &title, focused, strip);
        }
        let Some((mut i, mut offset)) = self.index.locate(top) else { return };
        let mut y = 0usize;
        while y < view && i < self.rows.len() {
            let selected = focused && self.selected == Some(i);
            for line in self.rows[i].lines(width, theme, selected, now).into_iter().skip(offset) {
                if y >= view {
                    break;
                }
                crate::tui::text::line_out::set_line(buf, inner.x, inner.y + y as u16, &line, width);
                y += 1;
            }
            offset = 0;
            i += 1;
        }
        if !strip && unseen > 0 {
            theme.draw_badge(area, buf, &format!(" ↓ {unseen} new (End) "));
        }
    }
}
