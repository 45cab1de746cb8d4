//! Key, paste and mouse handling for `App`. Returns `Action`s; never blocks.
//!
//! Bindings: Enter sends, Shift+Enter / Alt+Enter / Ctrl+J insert a newline, Up/Down
//! recall prompts, Tab / Shift+Tab move focus (or complete a command), PgUp/PgDn/Home/End
//! scroll the focused pane, Esc from a pane goes back to the prompt and from the prompt
//! interrupts the running turn, Ctrl+C clears (twice quits), Ctrl+D on an
//! empty composer quits, Ctrl+O toggles the context panel, Ctrl+T expands thinking, `?`
//! opens the help overlay. `help::KEYS` lists them all for the user.

use super::app::{Action, App, Focus, DOUBLE_CTRL_C};
use super::help::HelpOverlay;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use std::time::Instant;

/// Whether `key` is part of typing text: what a dialog must never take as an answer.
fn is_typing(key: &KeyEvent) -> bool {
    let plain = !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(_) => plain,
        KeyCode::Backspace | KeyCode::Delete | KeyCode::Enter | KeyCode::Left | KeyCode::Right => true,
        _ => false,
    }
}

impl App {
    pub fn handle_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return vec![];
        }
        let key = match self.approval.is_some() {
            true => match self.approval_key(key) {
                Some(typing) => typing,
                None => return vec![],
            },
            false => key,
        };
        if is_typing(&key) {
            self.last_typed = Some(self.clock.now());
        }
        if self.help.is_some() {
            self.help_key(key);
            return vec![];
        }
        if self.search.is_some() {
            self.search_key(key);
            return vec![];
        }
        if self.file_picker_key(key) {
            return vec![];
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => return vec![Action::Quit],
            KeyCode::Char('o') if ctrl => self.toggle_context(),
            KeyCode::Char('r') if ctrl => self.open_search(),
            KeyCode::Char('t') if ctrl => self.history.toggle_thinking(),
            KeyCode::Char('z') if ctrl => self.toggle_zoom(),
            KeyCode::Left if ctrl && self.focus != Focus::Composer => self.resize_split(1),
            KeyCode::Right if ctrl && self.focus != Focus::Composer => self.resize_split(-1),
            KeyCode::Char('j') if ctrl => self.composer.insert_newline(),
            KeyCode::Enter if shift || alt => self.composer.insert_newline(),
            KeyCode::Esc => {
                if self.confirm_clear {
                    self.confirm_clear = false;
                    self.composer.clear();
                    self.notify("not cleared");
                } else if !self.composer.popup().is_empty() {
                    self.composer.dismiss_popup();
                } else if self.focus != Focus::Composer {
                    // From a pane, Esc only goes back to the prompt: it never interrupts.
                    self.focus = Focus::Composer;
                } else if self.busy {
                    return vec![Action::Interrupt];
                }
            }
            KeyCode::Tab if self.focus == Focus::Composer && !self.composer.popup().is_empty() => {
                self.composer.complete();
            }
            KeyCode::Tab => self.cycle_focus(1),
            KeyCode::BackTab => self.cycle_focus(-1),
            KeyCode::PageUp => self.scroll(Scrolled::Up(self.page())),
            KeyCode::PageDown => self.scroll(Scrolled::Down(self.page())),
            KeyCode::Home if ctrl || self.focus != Focus::Composer => self.scroll(Scrolled::Home),
            KeyCode::End if ctrl || self.focus != Focus::Composer || self.composer.cursor_at_end() => {
                self.scroll(Scrolled::End)
            }
            _ => return self.focused_key(key),
        }
        vec![]
    }

    fn focused_key(&mut self, key: KeyEvent) -> Vec<Action> {
        match (self.focus, key.code) {
            (Focus::Tools, KeyCode::Up) => self.select_tool_row(-1),
            (Focus::Tools, KeyCode::Down) => self.select_tool_row(1),
            (Focus::Tools, KeyCode::Enter) => self.tools.toggle_selected(),
            (Focus::Conversation, KeyCode::Up) if !self.history.select_step(-1) => self.scroll(Scrolled::Up(1)),
            (Focus::Conversation, KeyCode::Down) if !self.history.select_step(1) => self.scroll(Scrolled::Down(1)),
            (Focus::Conversation, KeyCode::Enter) => self.open_selected_call(),
            (Focus::Conversation, KeyCode::Char(' ')) if self.history.selected.is_some() => {
                self.history.toggle_selected();
            }
            (Focus::Tools | Focus::Context, KeyCode::Char('<')) => self.resize_split(1),
            (Focus::Tools | Focus::Context, KeyCode::Char('>')) => self.resize_split(-1),
            (Focus::Context, KeyCode::Up) => self.scroll(Scrolled::Up(1)),
            (Focus::Context, KeyCode::Down) => self.scroll(Scrolled::Down(1)),
            (Focus::Composer, KeyCode::Enter) => return self.submit(),
            (Focus::Composer, KeyCode::Up) => {
                if !self.composer.popup().is_empty() {
                    self.composer.popup_move(-1);
                } else if !self.composer.recall_prev() {
                    self.composer.input(key);
                }
            }
            (Focus::Composer, KeyCode::Down) => {
                if !self.composer.popup().is_empty() {
                    self.composer.popup_move(1);
                } else if !self.composer.recall_next() {
                    self.composer.input(key);
                }
            }
            (Focus::Composer, KeyCode::Char('?')) if self.composer.is_empty() => {
                self.help = Some(HelpOverlay::new());
            }
            (Focus::Composer, _) => self.composer.input(key),
            (_, KeyCode::Char(_)) => {
                // Typing anywhere goes to the prompt.
                self.focus = Focus::Composer;
                self.composer.input(key);
            }
            _ => {}
        }
        vec![]
    }

    /// Moves the tool log's selection and brings the call's line in the conversation into
    /// view.
    fn select_tool_row(&mut self, delta: isize) {
        self.tools.select_next(delta);
        self.link_selected_row();
    }

    fn link_selected_row(&mut self) {
        if let Some(id) = self.tools.selected_id().map(str::to_string) {
            self.history.select_tool(&id);
        }
    }

    /// Enter on a tool line in the conversation: its details in the tool log.
    fn open_selected_call(&mut self) {
        if let Some(id) = self.history.selected_tool().map(str::to_string) {
            self.tools.open(&id);
            self.focus = Focus::Tools;
        } else {
            self.history.toggle_selected();
        }
    }

    /// Keys while the help overlay is open: scroll, or close it.
    fn help_key(&mut self, key: KeyEvent) {
        let Some(help) = self.help.as_mut() else { return };
        match key.code {
            KeyCode::Esc | KeyCode::Char('q' | '?') | KeyCode::Enter => self.help = None,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => self.help = None,
            KeyCode::Up => help.scroll_up(1),
            KeyCode::Down => help.scroll_down(1),
            KeyCode::PageUp => help.scroll_up(help.page()),
            KeyCode::PageDown => help.scroll_down(help.page()),
            KeyCode::Home => help.scroll_up(usize::MAX),
            KeyCode::End => help.scroll_down(usize::MAX),
            _ => {}
        }
    }

    fn ctrl_c(&mut self) -> Vec<Action> {
        let now = Instant::now();
        if self.last_ctrl_c.is_some_and(|t| now.duration_since(t) < DOUBLE_CTRL_C) {
            return vec![Action::Quit];
        }
        self.last_ctrl_c = Some(now);
        if !self.composer.is_empty() {
            self.composer.clear();
            return vec![];
        }
        self.notify("Ctrl+C again to quit");
        if self.busy {
            return vec![Action::Interrupt];
        }
        vec![]
    }

    /// Enter in the composer: complete a command name, then send the line.
    fn submit(&mut self) -> Vec<Action> {
        if !self.composer.popup().is_empty() {
            self.composer.complete();
        }
        let shown = self.composer.has_pastes().then(|| self.composer.text().trim_end().to_string());
        let line = self.composer.take();
        let line = line.trim_end().to_string();
        if let Some(shown) = shown.filter(|_| !line.starts_with('/')) {
            self.pasted_prompts.push_back((line.clone(), shown));
        }
        if line.trim().is_empty() {
            return vec![];
        }
        self.run_line(&line)
    }

    /// Handles UI-only commands here and sends everything else to the agent.
    pub fn run_line(&mut self, line: &str) -> Vec<Action> {
        self.history.scroll_end();
        let confirmed = std::mem::take(&mut self.confirm_clear);
        match line.trim() {
            "/clear" if !confirmed => {
                // Asks first: the composer keeps the line, so Enter again confirms.
                self.confirm_clear = true;
                self.composer.set_text("/clear");
                self.composer.dismiss_popup();
                vec![]
            }
            "/context" => {
                self.toggle_context();
                vec![]
            }
            "/mouse" => {
                self.mouse = !self.mouse;
                self.notify(if self.mouse { "mouse capture on" } else { "mouse capture off: select text freely" });
                vec![Action::SetMouse(self.mouse)]
            }
            "/exit" | "/quit" => vec![Action::Quit],
            "/help" | "?" => {
                self.help = Some(HelpOverlay::new());
                vec![]
            }
            _ => {
                if line.starts_with('/') {
                    self.history.push(super::cells::CellKind::Notice(format!("› {line}")));
                } else if self.busy {
                    self.queued += 1;
                    self.notify("queued: it runs when this turn ends");
                }
                vec![Action::Submit(line.to_string())]
            }
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        if self.approval.is_some() {
            self.approval_paste(text);
        } else {
            self.focus = Focus::Composer;
            self.composer.paste(text);
        }
    }

    pub fn handle_mouse(&mut self, mouse: MouseEvent) {
        let at = Position { x: mouse.column, y: mouse.row };
        let hit = |r: Rect| r.contains(at);
        let pane = if self.rects.context.is_some_and(hit) {
            Some(Focus::Context)
        } else if hit(self.rects.tools) {
            Some(Focus::Tools)
        } else if hit(self.rects.conversation) {
            Some(Focus::Conversation)
        } else if hit(self.rects.composer) {
            Some(Focus::Composer)
        } else {
            None
        };
        let Some(pane) = pane else { return };
        match mouse.kind {
            MouseEventKind::ScrollUp => self.scroll_pane(pane, Scrolled::Up(3)),
            MouseEventKind::ScrollDown => self.scroll_pane(pane, Scrolled::Down(3)),
            MouseEventKind::Down(_) => {
                self.focus = pane;
                // A click on a row selects it.
                match pane {
                    Focus::Tools if self.tools.click(at) => self.link_selected_row(),
                    Focus::Conversation => self.history.click(at),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn toggle_context(&mut self) {
        self.show_context = !self.show_context;
        if !self.show_context && self.focus == Focus::Context {
            self.focus = Focus::Composer;
        }
    }

    fn cycle_focus(&mut self, step: isize) {
        let mut order = vec![Focus::Composer, Focus::Conversation, Focus::Tools];
        if self.show_context {
            order.push(Focus::Context);
        }
        if let Some(zoom) = self.zoomed() {
            // Only the zoomed pane is on screen.
            let pane = match zoom {
                super::prefs::Zoom::Conversation => Focus::Conversation,
                super::prefs::Zoom::Tools => Focus::Tools,
                super::prefs::Zoom::Context => Focus::Context,
            };
            order = vec![Focus::Composer, pane];
        }
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0) as isize;
        self.focus = order[(i + step).rem_euclid(order.len() as isize) as usize];
    }

    fn page(&self) -> usize {
        let rows = match self.focus {
            Focus::Tools => self.tools.view_rows(),
            Focus::Context => self.context.view_rows(),
            _ => self.history.view_rows,
        };
        rows.saturating_sub(2).max(1)
    }

    fn scroll(&mut self, how: Scrolled) {
        let pane = if self.focus == Focus::Composer { Focus::Conversation } else { self.focus };
        self.scroll_pane(pane, how);
    }

    fn scroll_pane(&mut self, pane: Focus, how: Scrolled) {
        match (pane, how) {
            (Focus::Tools, Scrolled::Up(n)) => self.tools.scroll_up(n),
            (Focus::Tools, Scrolled::Down(n)) => self.tools.scroll_down(n),
            (Focus::Tools, Scrolled::Home) => self.tools.scroll.home(),
            (Focus::Tools, Scrolled::End) => {
                self.tools.select_last();
                self.link_selected_row();
            }
            (Focus::Context, Scrolled::Up(n)) => self.context.scroll_up(n),
            (Focus::Context, Scrolled::Down(n)) => self.context.scroll_down(n),
            (Focus::Context, Scrolled::Home) => self.context.scroll.home(),
            (Focus::Context, Scrolled::End) => self.context.scroll.end(),
            (_, Scrolled::Up(n)) => self.history.scroll_up(n),
            (_, Scrolled::Down(n)) => self.history.scroll_down(n),
            (_, Scrolled::Home) => self.history.scroll.home(),
            (_, Scrolled::End) => self.history.scroll_end(),
        }
    }
}

#[derive(Clone, Copy)]
enum Scrolled {
    Up(usize),
    Down(usize),
    Home,
    End,
}
