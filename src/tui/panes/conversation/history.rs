//! The conversation pane: the list of history cells, which of them are still streaming,
//! and the scrolled viewport over them. Drawing measures only cells that changed (via
//! `RowIndex`) and lays out only the visible rows, so a frame costs the same with 10 or
//! 10,000 cells. A big reply may hold estimated heights for what nobody looked at yet: each
//! frame first settles its window (lays out exactly the rows it shows; see
//! `MarkdownDoc::settle`), keeping the top row's line in place, and scrolling settles the rows
//! it passes before it moves. The pane owns the code highlighter its replies share
//! (`highlight::Highlighter`: caches that outlive a reply, never global state). Feeding
//! cells in is here; the viewport (measuring, settling,
//! scrolling, keys, drawing) is `history/viewport.rs`, the mouse's text selection and what
//! it copies `history/selection.rs`.

mod selection;
mod viewport;

pub use selection::Copied;

use crate::protocol::ToolResult;
use crate::tui::highlight::Highlighter;
use crate::tui::markdown::{MarkdownDoc, RenderOptions};
use crate::tui::panes::conversation::cells::{CellKind, HistoryCell};
use crate::tui::panes::conversation::hook_rows::{HookRows, HookShown};
use crate::tui::panes::conversation::tool_group;
use crate::tui::panes::conversation::tool_line::{ToolLine, ToolMark};
use crate::tui::text::hints::{paste_chip, PASTE_LINES};
use crate::tui::text::rows::{RowIndex, Scroll};
use crate::tui::text::theme::{PaneFrame, Theme};
use ratatui::layout::Rect;
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
    /// Highlights the code of every reply (its caches serve them all).
    highlighter: Highlighter,
    /// Width and theme of the last draw, so scrolling can lay out what it scrolls over.
    drawn: Option<(u16, Theme)>,
    /// The pane's frame as last drawn.
    frame: PaneFrame,
    /// The welcome's cell, until the first prompt takes it away.
    welcome: Option<usize>,
    /// The banner's cell (version, sandbox, provider, model) and the sandbox it says.
    banner: Option<(usize, String)>,
    /// Hook runs: shown only when they did not pass (`hook_rows.rs`).
    hooks: HookRows,
    /// Text selected with the mouse (`selection.rs`).
    selection: selection::Selection,
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

    /// The banner: what elelem runs with (version, `sandbox` as its text says it, provider,
    /// model).
    pub fn banner(&mut self, text: String, sandbox: String) {
        self.banner = Some((self.push(CellKind::Banner(text)), sandbox));
    }

    /// The banner says the sandbox mode that holds `now` (`/sandbox` may have switched it),
    /// not the one the app started with.
    pub fn set_banner_sandbox(&mut self, now: String) {
        let Some((i, said)) = &mut self.banner else { return };
        if now == *said {
            return;
        }
        if let Some(CellKind::Banner(text)) = self.cells.get_mut(*i).map(|c| &mut c.kind) {
            *text = text.replacen(said.as_str(), &now, 1);
            self.cells[*i].touch();
            self.index.invalidate(*i);
        }
        *said = now;
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
                let options = RenderOptions { color: self.color, light: self.light };
                let doc = MarkdownDoc::with_highlighter(options, self.highlighter.clone());
                let i = self.push(CellKind::Reply(Box::new(doc)));
                self.open_reply = Some(i);
                i
            }
        };
        self.cells[i].push_reply(delta);
        self.changed(i);
    }

    pub fn tool_started(&mut self, id: &str, tool: &str, label: &str) {
        if HookRows::is_hook(id, tool) {
            return self.hooks.started(id, label);
        }
        self.close();
        let mut line = ToolLine::new(id, tool, label);
        let hooks = self.hooks.take_for_call();
        (line.hook_ran, line.hook_notes) = (hooks.ran, hooks.notes);
        let i = self.push(CellKind::Tool(line));
        self.tools.insert(id.to_string(), i);
    }

    /// A hook run ended: a line of its own or a note on the running call when it did not
    /// pass, else nothing.
    fn hook_finished(&mut self, shown: HookShown) {
        match shown {
            HookShown::Quiet => {}
            HookShown::OwnLine(note) => {
                self.close();
                self.push(CellKind::Error(note));
            }
            HookShown::OnRunningCall(note) => {
                // The calls of this step only: a hook after a call runs before its row closes.
                let step = self.cells.iter_mut().enumerate().skip(self.step_start);
                let running = step.rev().find_map(|(i, cell)| match &mut cell.kind {
                    CellKind::Tool(line) if line.mark == ToolMark::Running => Some((i, line)),
                    _ => None,
                });
                match running {
                    Some((i, line)) => {
                        line.hook_notes.push(note);
                        self.cells[i].touch();
                        self.changed(i);
                    }
                    None => {
                        self.push(CellKind::Error(note));
                    }
                }
            }
        }
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

    /// Call `id` changed a file (or would: its preview): its line is never folded into a
    /// group; `created` is the text of a file it creates, shown as its diff if it succeeds.
    pub fn file_changed(&mut self, id: &str, created: Option<String>) {
        let Some(&i) = self.tools.get(id) else { return };
        if let Some(CellKind::Tool(line)) = self.cells.get_mut(i).map(|c| &mut c.kind) {
            line.changed_files = true;
            line.created = created;
        }
    }

    pub fn tool_finished(&mut self, id: &str, result: &ToolResult) {
        if let Some(shown) = self.hooks.finished(id, result) {
            return self.hook_finished(shown);
        }
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
        self.drop_selection();
    }

    pub fn clear(&mut self) {
        *self = History {
            expand_thinking: self.expand_thinking,
            color: self.color,
            light: self.light,
            highlighter: self.highlighter.clone(),
            ..History::default()
        };
    }

    /// Markdown coloured for a light (or dark) background from now on, replies already
    /// shown included (laid out again from their text).
    pub fn set_light(&mut self, light: bool) {
        self.light = light;
        let options = RenderOptions { color: self.color, light };
        for cell in &mut self.cells {
            cell.restyle(options);
        }
        self.index.invalidate(0);
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
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
