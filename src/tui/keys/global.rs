//! The global key bindings: what a key does when no popup took it (Ctrl+C, Ctrl+D,
//! Ctrl+O, Ctrl+R, Esc, Tab, Shift+Tab, the queue's keys, scrolling), and the moves they
//! make (focus, scroll, mode, interrupt, quit). Anything else goes to the focused pane.

use super::DOUBLE_ESC;
use crate::tui::app::{Action, App, Confirm, DOUBLE_CTRL_C};
use crate::tui::intent::{Focus, Intent, Scrolled};
use crate::tui::popups::reverse_search::ReverseSearch;
use crate::tui::popups::stack::Popup;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::time::Instant;

impl App {
    /// A key no popup took, at `now`: a global binding, else the focused pane's.
    pub(super) fn global_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => return self.quit(),
            KeyCode::Char('o') if ctrl => self.toggle_context(),
            KeyCode::Char('r') if ctrl => {
                self.focus = Focus::Composer;
                self.popups.push(Popup::Search(ReverseSearch::open(self.composer.text())));
            }
            KeyCode::Char('t') if ctrl => self.history.toggle_thinking(),
            KeyCode::Char('z') if ctrl => {
                let saved = self.regions.toggle_zoom(self.focus);
                self.saved(saved);
            }
            KeyCode::Left if ctrl && self.focus != Focus::Composer => return self.apply(Intent::ResizeSplit(1)),
            KeyCode::Right if ctrl && self.focus != Focus::Composer => return self.apply(Intent::ResizeSplit(-1)),
            KeyCode::Char('j') if ctrl => self.composer.insert_newline(),
            KeyCode::Enter if shift || alt => self.composer.insert_newline(),
            KeyCode::Esc => {
                let asked = self.confirm.take();
                if asked == Some(Confirm::Clear) {
                    self.composer.clear();
                    self.notify("not cleared");
                } else if asked == Some(Confirm::QuitRunning) {
                    self.notify("not quitting: the turn goes on");
                } else if !self.composer.popup().is_empty() {
                    self.composer.dismiss_popup();
                } else if self.focus != Focus::Composer {
                    // From a pane, Esc only goes back to the prompt: it never interrupts.
                    self.focus = Focus::Composer;
                } else if self.status.busy() {
                    // Always the interrupt; queued prompts stay, held until the next Enter.
                    return self.interrupt_turn();
                } else if self.composer.is_empty() {
                    // Esc Esc on an empty prompt while idle: the rewind picker.
                    if self.last_esc.is_some_and(|t| now.duration_since(t) <= DOUBLE_ESC) {
                        self.last_esc = None;
                        self.open_rewind();
                    } else {
                        self.last_esc = Some(now);
                    }
                }
            }
            KeyCode::Char('x') if ctrl && self.focus == Focus::Composer && !self.queue.is_empty() => {
                // The newest queued prompt leaves the queue.
                if let Some(dropped) = self.queue.pop_back() {
                    let left = if self.queue.is_empty() { String::new() } else { " (Ctrl+X again: the next)".into() };
                    self.notify(format!("dropped from the queue: {}{left}", crate::sanitize::sanitize(&dropped)));
                }
            }
            KeyCode::Enter
                if self.focus == Focus::Composer
                    && self.composer.is_empty()
                    && !shift
                    && !alt
                    && self.confirm == Some(Confirm::QuitRunning) =>
            {
                return vec![Action::Quit];
            }
            KeyCode::Enter
                if self.focus == Focus::Composer && self.composer.is_empty() && !shift && !alt && self.queue.held() =>
            {
                // The queue an interrupt held goes on.
                self.queue.release();
                return self.send_queued();
            }
            KeyCode::Up
                if self.focus == Focus::Composer
                    && self.composer.is_empty()
                    && self.composer.popup().is_empty()
                    && !self.queue.is_empty() =>
            {
                // The newest queued prompt comes back to be edited (sent again with Enter).
                if let Some(line) = self.queue.pop_back() {
                    self.composer.set_text(&line);
                }
            }
            KeyCode::Tab if self.focus == Focus::Composer && !self.composer.popup().is_empty() => {
                self.composer.complete();
            }
            KeyCode::Tab => self.cycle_focus(1),
            KeyCode::BackTab => return self.next_mode(),
            KeyCode::PageUp => return self.scroll(Scrolled::Up(self.page())),
            KeyCode::PageDown => return self.scroll(Scrolled::Down(self.page())),
            KeyCode::Home if ctrl || self.focus != Focus::Composer || self.composer.is_empty() => {
                return self.scroll(Scrolled::Home)
            }
            KeyCode::End if ctrl || self.focus != Focus::Composer || self.composer.cursor_at_end() => {
                return self.scroll(Scrolled::End)
            }
            _ => return self.focused_key(key),
        }
        vec![]
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
        let interrupted = self.status.busy();
        self.confirm = Some(Confirm::Quit { until: now + DOUBLE_CTRL_C, interrupted });
        if interrupted {
            return self.interrupt_turn();
        }
        vec![]
    }

    /// Ctrl+D on an empty prompt or `/quit`: quits at once while idle; while a turn runs
    /// it asks first above the prompt (the same key or command again, or Enter, quits).
    pub(super) fn quit(&mut self) -> Vec<Action> {
        if !self.status.busy() || self.confirm.take() == Some(Confirm::QuitRunning) {
            return vec![Action::Quit];
        }
        self.focus = Focus::Composer;
        self.confirm = Some(Confirm::QuitRunning);
        vec![]
    }

    /// Interrupts the running turn; the queued prompts stay, held until the next Enter.
    fn interrupt_turn(&mut self) -> Vec<Action> {
        self.queue.hold();
        vec![Action::Interrupt]
    }

    /// Shift+Tab: the next mode (ask → accept edits → plan). Set at once in the session's
    /// shared mode, so the gate applies it to a running turn's next call; `/mode WORD`
    /// (run when the session next reads a line) tells the model and the front end.
    fn next_mode(&mut self) -> Vec<Action> {
        let next = self.status.mode().next();
        if let Some(shared) = &self.mode {
            shared.set(next);
        }
        self.status.set_mode(next);
        self.waiting = false;
        vec![Action::Submit(format!("/mode {}", next.word()))]
    }

    pub(super) fn toggle_context(&mut self) {
        let show = !self.regions.show_context();
        self.regions.set_show_context(show);
        if !show && self.focus == Focus::Context {
            self.focus = Focus::Composer;
        }
    }

    fn cycle_focus(&mut self, step: isize) {
        let order = self.regions.focus_order();
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

    /// Scrolls the focused pane (from the prompt: the conversation).
    fn scroll(&mut self, how: Scrolled) -> Vec<Action> {
        let pane = if self.focus == Focus::Composer { Focus::Conversation } else { self.focus };
        self.scroll_pane(pane, how)
    }

    pub(super) fn scroll_pane(&mut self, pane: Focus, how: Scrolled) -> Vec<Action> {
        let intent = match pane {
            Focus::Tools => self.tools.scroll_by(how),
            Focus::Context => self.context.scroll_by(how),
            Focus::Conversation | Focus::Composer => {
                self.history.scroll_by(how);
                Intent::Handled
            }
        };
        self.apply(intent)
    }
}
