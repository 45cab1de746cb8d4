//! Pastes and the mouse: a paste goes to the approval dialog or the prompt; the wheel
//! scrolls the pane under it, a click focuses and selects, a drag in the conversation
//! selects text that the release copies (OSC 52, and tmux's buffer under tmux).

use crate::tui::app::{Action, App};
use crate::tui::intent::{Focus, Scrolled};
use crate::tui::panes::conversation::history::Copied;
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

impl App {
    /// Pasted text: into the open approval dialog (`Popup::paste`), else the prompt.
    pub fn handle_paste(&mut self, text: &str) {
        if !self.popups.iter_mut().rev().any(|popup| popup.paste(text)) {
            self.focus = Focus::Composer;
            self.composer.paste(text);
        }
    }

    /// A mouse event: the wheel scrolls the pane under it, a click focuses a pane and selects
    /// the row there, a drag in the conversation selects text (`history/selection.rs`), which
    /// the release copies, as does a click on a code block's label.
    pub fn handle_mouse(&mut self, mouse: MouseEvent) -> Vec<Action> {
        let at = Position { x: mouse.column, y: mouse.row };
        // A drag that began in the conversation stays its own wherever the mouse goes.
        match mouse.kind {
            MouseEventKind::Drag(MouseButton::Left) if self.history.selecting() => {
                self.history.drag(at);
                return vec![];
            }
            MouseEventKind::Up(MouseButton::Left) if self.history.selecting() => {
                return self.history.release(at).map(|copied| self.copied(copied)).unwrap_or_default();
            }
            MouseEventKind::Down(MouseButton::Left) => self.history.press(at),
            _ => {}
        }
        let Some(pane) = self.regions.pane_at(at) else { return vec![] };
        match mouse.kind {
            MouseEventKind::ScrollUp => {
                self.scroll_pane(pane, Scrolled::Up(3));
            }
            MouseEventKind::ScrollDown => {
                self.scroll_pane(pane, Scrolled::Down(3));
            }
            MouseEventKind::Down(_) => {
                self.focus = pane;
                // A click on a row selects it.
                match pane {
                    Focus::Tools => {
                        let intent = self.tools.click(at);
                        return self.apply(intent);
                    }
                    Focus::Conversation => self.history.click(at),
                    _ => {}
                }
            }
            _ => {}
        }
        vec![]
    }

    /// Text selected in the conversation (or a code block's) goes to the clipboard: OSC 52
    /// through the terminal, and tmux's paste buffer under tmux (`Action::TmuxBuffer`).
    fn copied(&mut self, copied: Copied) -> Vec<Action> {
        let text = copied.text().to_string();
        let lines = text.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        self.notify(match copied {
            Copied::Text(_) => format!("copied {lines} line{plural} to the clipboard"),
            Copied::Code(_) => format!("copied the code block ({lines} line{plural}) to the clipboard"),
        });
        self.terminal_writes.push(crate::clipboard::osc52(&text));
        vec![Action::TmuxBuffer(text)]
    }
}
