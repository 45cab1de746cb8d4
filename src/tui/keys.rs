//! Key, paste and mouse handling for `App`: who gets a key, and applying the `Intent` the
//! pane or popup returns. Returns `Action`s; never blocks. Here: the routing and `apply`;
//! `keys/global.rs` the global bindings, `keys/commands.rs` the lines the UI answers itself
//! (`/clear`, `/theme`, `/rewind`, …), `keys/mouse.rs` pastes and the mouse.
//!
//! A key goes first to the popups, top first (`popups/stack.rs`): a dialog (approval,
//! accept plan) passes on a key it does not take (typing, or any key before it is armed),
//! every other popup takes every key. Then to the `@` file picker; then the global
//! bindings (Ctrl+C, Ctrl+O, Tab, scrolling, …); then the focused pane.
//!
//! Bindings: Enter sends, Shift+Enter / Alt+Enter / Ctrl+J insert a newline, Up/Down
//! recall prompts, Tab moves focus (or completes a command), Shift+Tab switches mode
//! (ask → accept edits → plan), PgUp/PgDn/Home/End
//! scroll the focused pane (Home/End on an empty prompt: the conversation), Esc from a
//! pane goes back to the prompt and from the prompt always interrupts the running turn
//! (twice on an empty prompt while idle: the rewind picker), Ctrl+C clears (twice quits,
//! asked above the prompt), Ctrl+D on an
//! empty composer quits (while a turn runs it asks first, as `/quit` does: Enter quits), Ctrl+O toggles the context panel, Ctrl+T expands thinking, `?`
//! opens the help overlay. `popups/help.rs`'s `KEYS` lists them all for the user.
//!
//! The queue (prompts typed while a turn runs, `panes/queue.rs`): on an empty prompt with
//! prompts queued, Up takes the newest back into the prompt; Ctrl+X drops it. An interrupt
//! (Esc, Ctrl+C) keeps the queue but holds it: nothing in it runs until the next Enter,
//! which sends the prompt typed before the queued ones, or on an empty prompt the queue.
//!
//! A digit pressed while a dialog (approval, accept plan) is not armed yet and the user was
//! not typing is not an answer and not text either: it is dropped, and the dialog says to
//! press it again (`PendingApproval::early`).

mod commands;
mod global;
mod mouse;

use crate::tui::app::{Action, App, APPROVAL_PAUSE};
use crate::tui::intent::{Focus, Intent};
use crate::tui::popups::help::HelpOverlay;
use crate::tui::popups::plan_accept::PlanAccept;
use crate::tui::popups::stack::{Around, Popup};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::time::{Duration, Instant};

/// How soon a second Esc on an empty prompt opens the rewind picker.
pub const DOUBLE_ESC: Duration = Duration::from_millis(600);

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
        let now = self.clock.now();
        if self.early_digit(&key, now) {
            return vec![];
        }
        // The popups, top first. The dialogs see the key before it counts as typing.
        let mut noted = false;
        for index in (0..self.popups.len()).rev() {
            if !noted && self.popups.get_mut(index).is_some_and(|popup| !popup.is_dialog()) {
                self.note_key(&key);
                noted = true;
            }
            let around = Around {
                now,
                last_typed: self.last_typed,
                history: self.composer.history_entries(),
                commands: self.composer.commands(),
            };
            let Some(popup) = self.popups.get_mut(index) else { break };
            let intent = popup.handle_key(key, &around);
            let modal = popup.modal();
            if popup.closes_on(&intent) {
                let closed = self.popups.remove_at(index);
                return self.closed(closed, intent);
            }
            if intent != Intent::Ignored || modal {
                return self.apply(intent);
            }
        }
        if !noted {
            self.note_key(&key);
        }
        let mention = self.mention();
        match self.files.handle_key(key, mention) {
            Intent::Ignored => {}
            intent => return self.apply(intent),
        }
        self.global_key(key, now)
    }

    /// What every key past the dialogs does: typing delays their arming, any key but Esc
    /// ends a double Esc.
    fn note_key(&mut self, key: &KeyEvent) {
        if is_typing(key) {
            self.last_typed = Some(self.clock.now());
        }
        if key.code != KeyCode::Esc {
            self.last_esc = None;
        }
    }

    /// `popup` gave its last `intent` and is closed: a dialog's answer goes out.
    fn closed(&mut self, popup: Popup, intent: Intent) -> Vec<Action> {
        match (popup, intent) {
            (Popup::Approval(pending), Intent::Answer(approval)) => {
                self.answered(pending, approval);
                vec![]
            }
            (Popup::PlanAccept(dialog), Intent::AcceptPlan(mode)) => self.accept_plan(dialog, mode),
            // Closing the model picker or the jobs popup puts nothing in the prompt.
            (Popup::Models(_) | Popup::Jobs(_), Intent::Close(_)) => vec![],
            (_, intent) => self.apply(intent),
        }
    }

    /// The accept-plan dialog's answer: switch to `mode` and go ahead, or keep planning.
    fn accept_plan(&mut self, dialog: PlanAccept, mode: Option<crate::protocol::mode::Mode>) -> Vec<Action> {
        let Some(mode) = mode else {
            self.notify("still planning: say what to change");
            return vec![];
        };
        let mut actions = vec![Action::Submit(format!("/mode {}", mode.word()))];
        actions.extend(self.run_line(&dialog.go_ahead()));
        actions
    }

    /// The focused pane's key; typing in another pane goes to the prompt.
    fn focused_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let intent = match self.focus {
            Focus::Composer => self.composer.handle_key(key),
            Focus::Conversation => self.history.handle_key(key),
            Focus::Tools => self.tools.handle_key(key),
            Focus::Context => self.context.handle_key(key),
        };
        if intent == Intent::Ignored && matches!(key.code, KeyCode::Char(_)) {
            self.focus = Focus::Composer;
            self.composer.input(key);
            return vec![];
        }
        self.apply(intent)
    }

    /// Does what a pane or popup asked for (a popup that asked to close is closed already).
    fn apply(&mut self, intent: Intent) -> Vec<Action> {
        match intent {
            Intent::Handled | Intent::Ignored => {}
            Intent::Close(text) => {
                if let Some(text) = text {
                    self.composer.set_text(&text);
                }
            }
            Intent::SetPrompt(text) => self.composer.set_text(&text),
            Intent::InsertMention(path) => self.composer.replace_mention(&path),
            Intent::Answer(approval) => self.answer(approval),
            Intent::Notify(text) => self.notify(text),
            Intent::Send { line, shown } => {
                if let Some(shown) = shown.filter(|_| !line.starts_with('/')) {
                    self.pasted_prompts.push_back((line.clone(), shown));
                }
                if !line.trim().is_empty() {
                    return self.run_line(&line);
                }
            }
            Intent::OpenHelp => {
                self.popups.push(Popup::Help(HelpOverlay::new()));
            }
            Intent::ShowCall(id) => self.history.select_tool(&id),
            Intent::OpenCall(id) => {
                self.tools.open(&id);
                self.focus = Focus::Tools;
            }
            Intent::Resume(id) => {
                if let Some(id) = id {
                    // The event loop stops this session and starts the chosen one.
                    self.resume_to = Some(id);
                    return vec![Action::Quit];
                }
            }
            Intent::Rewind(turns) => {
                if let Some(turns) = turns {
                    return self.run_line(&format!("/rewind {turns}"));
                }
            }
            Intent::AcceptPlan(mode) => {
                let Some(dialog) = self.popups.take_plan_accept() else { return vec![] };
                return self.accept_plan(dialog, mode);
            }
            Intent::ResizeSplit(steps) => {
                let saved = self.regions.resize_split(steps);
                self.saved(saved);
            }
        }
        vec![]
    }

    /// Says a failed save of the layout on the status line.
    fn saved(&mut self, saved: Result<(), String>) {
        if let Err(error) = saved {
            self.notify(error);
        }
    }

    /// A digit pressed while a dialog is not armed yet and the user was not typing (the
    /// prompt is empty — the Enter that sent the last one does not count — or they paused):
    /// neither an answer nor text. It is dropped, and the dialog says so (the top dialog
    /// not armed takes it).
    fn early_digit(&mut self, key: &KeyEvent, now: Instant) -> bool {
        let KeyCode::Char(digit @ '0'..='9') = key.code else { return false };
        if key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
            return false;
        }
        let paused = self.last_typed.is_none_or(|typed| now.saturating_duration_since(typed) >= APPROVAL_PAUSE);
        let typing = !paused && self.focus == Focus::Composer && !self.composer.is_empty();
        if typing {
            return false;
        }
        let last_typed = self.last_typed;
        self.popups.iter_mut().rev().any(|popup| popup.early_digit(digit, now, last_typed))
    }
}

/// Typing in runs (`typing.rs` hands them over).
impl App {
    /// Puts `text`, characters typed in a row, into the prompt at once, when that is all
    /// `handle_key` would do with each of them: the prompt has the keys (no dialog or popup
    /// open) and the first is not a `?` on an empty prompt (the help). `false`:
    /// nothing done, the keys go one by one.
    pub fn type_text(&mut self, text: &str) -> bool {
        let prompt_has_keys = self.focus == Focus::Composer && self.popups.is_empty();
        if !prompt_has_keys || text.is_empty() || (text.starts_with('?') && self.composer.is_empty()) {
            return false;
        }
        // What `handle_key` does for every typing key before it reaches the prompt.
        self.last_typed = Some(self.clock.now());
        self.last_esc = None;
        self.composer.type_text(text);
        true
    }
}
