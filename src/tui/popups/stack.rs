//! The popups open over the panes, as one stack (issue 39): `App` holds a `PopupStack` and
//! `keys.rs` gives a key to the top popup first, before the global keys and the focused
//! pane. A popup is one of the `Popup` variants; each says what it is (`Kind`, `title`),
//! whether it takes every key (`modal`) or passes typing on (the dialogs, which take keys
//! only once armed), handles its keys (returning an `Intent`), pastes, and draws itself.
//!
//! The stack is ordered by `Kind`, the priority each popup had in the old hand-ordered
//! chain: the approval dialog above the accept-plan dialog, above the help overlay, the
//! model picker (the jobs popup just under it), the rewind picker, the resume picker and the history search. A popup that
//! opens goes above every popup of its own or a lower kind and below any of a higher one,
//! so an approval that arrives while the help is open takes the keys, while a model list
//! that arrives then waits under the help. One popup of each kind at most: a new one
//! replaces the old.
//!
//! The `@` file picker and the questions asked above the prompt (`confirm.rs`) are not on
//! the stack: the picker serves the prompt's mention while the prompt has the keys, the
//! questions leave the keys to the prompt.

use crate::tui::intent::Intent;
use crate::tui::popups::approval::PendingApproval;
use crate::tui::popups::help::HelpOverlay;
use crate::tui::popups::jobs::JobsPopup;
use crate::tui::popups::model_picker::ModelPicker;
use crate::tui::popups::plan_accept::PlanAccept;
use crate::tui::popups::resume_picker::ResumePicker;
use crate::tui::popups::reverse_search::ReverseSearch;
use crate::tui::popups::rewind::RewindPicker;
use crate::tui::text::theme::Theme;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::Instant;

/// What a popup is, lowest priority first (the stack's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Search,
    Resume,
    Rewind,
    Jobs,
    Models,
    Help,
    PlanAccept,
    Approval,
}

/// One open popup.
pub enum Popup {
    /// Ctrl+R's history search.
    Search(ReverseSearch),
    Resume(ResumePicker),
    Rewind(RewindPicker),
    /// `/jobs`: the background jobs, to stop one.
    Jobs(JobsPopup),
    Models(ModelPicker),
    Help(HelpOverlay),
    /// The accept-plan dialog, after a plan-mode turn ended with a plan.
    PlanAccept(PlanAccept),
    Approval(PendingApproval),
}

/// What a popup may look at from the app while it takes a key or draws.
#[derive(Clone, Copy)]
pub struct Around<'a> {
    pub now: Instant,
    /// When the user last typed into the prompt (a dialog is not armed while they type).
    pub last_typed: Option<Instant>,
    /// The prompt history, oldest first (the history search looks through it).
    pub history: &'a [String],
    /// The slash commands and what they do (the help lists them).
    pub commands: &'a [(String, String)],
}

/// Where popups draw: the whole screen, the prompt's box, and the plan strip above it.
#[derive(Clone, Copy)]
pub struct Areas {
    pub screen: Rect,
    pub prompt: Rect,
    pub plan: Rect,
}

impl Popup {
    pub fn kind(&self) -> Kind {
        match self {
            Popup::Search(_) => Kind::Search,
            Popup::Resume(_) => Kind::Resume,
            Popup::Rewind(_) => Kind::Rewind,
            Popup::Jobs(_) => Kind::Jobs,
            Popup::Models(_) => Kind::Models,
            Popup::Help(_) => Kind::Help,
            Popup::PlanAccept(_) => Kind::PlanAccept,
            Popup::Approval(_) => Kind::Approval,
        }
    }

    /// What the popup is called (the help's words for it).
    pub fn title(&self) -> &'static str {
        match self {
            Popup::Search(_) => "history search",
            Popup::Resume(_) => "resume picker",
            Popup::Rewind(_) => "rewind picker",
            Popup::Jobs(_) => "jobs",
            Popup::Models(_) => "model picker",
            Popup::Help(_) => "help",
            Popup::PlanAccept(_) => "accept plan",
            Popup::Approval(_) => "approval",
        }
    }

    /// Whether it takes every key. The dialogs do not: a key they ignore (typing, or any
    /// key before they are armed) goes on down as if they were not open.
    pub fn modal(&self) -> bool {
        !self.is_dialog()
    }

    /// A question answered with digits once armed (approval, accept plan): it sees a key
    /// before the app notes it as typing.
    pub fn is_dialog(&self) -> bool {
        matches!(self, Popup::Approval(_) | Popup::PlanAccept(_))
    }

    /// Whether it takes answers at `now`: a dialog once armed (`popups/approval.rs`); the
    /// others always.
    pub fn armed(&self, now: Instant, last_typed: Option<Instant>) -> bool {
        match self {
            Popup::Approval(pending) => pending.armed(now, last_typed),
            Popup::PlanAccept(dialog) => dialog.armed(now, last_typed),
            _ => true,
        }
    }

    /// A key for this popup.
    pub fn handle_key(&mut self, key: KeyEvent, around: &Around) -> Intent {
        let armed = self.armed(around.now, around.last_typed);
        match self {
            Popup::Search(search) => search.handle_key(key, around.history),
            Popup::Resume(picker) => picker.handle_key(key),
            Popup::Rewind(picker) => picker.handle_key(key),
            Popup::Jobs(jobs) => jobs.handle_key(key),
            Popup::Models(picker) => picker.handle_key(key),
            Popup::Help(help) => help.handle_key(key),
            Popup::PlanAccept(dialog) => dialog.handle_key(key, armed),
            Popup::Approval(pending) => pending.handle_key(key, armed),
        }
    }

    /// Whether `intent`, returned by this popup, is its last: it leaves the stack.
    pub fn closes_on(&self, intent: &Intent) -> bool {
        match self {
            Popup::Search(_) | Popup::Help(_) => matches!(intent, Intent::Close(_)),
            Popup::Models(_) | Popup::Jobs(_) => matches!(intent, Intent::Close(_) | Intent::Send { .. }),
            Popup::Rewind(_) => matches!(intent, Intent::Rewind(_)),
            Popup::Resume(_) => matches!(intent, Intent::Resume(_)),
            Popup::PlanAccept(_) => matches!(intent, Intent::AcceptPlan(_)),
            Popup::Approval(_) => matches!(intent, Intent::Answer(_)),
        }
    }

    /// A digit pressed while this dialog is not armed yet (and the user was not typing):
    /// kept to say "press it again", and taken (`true`). Only a dialog not armed takes it
    /// (an approval not while a reason is typed).
    pub fn early_digit(&mut self, digit: char, now: Instant, last_typed: Option<Instant>) -> bool {
        if self.armed(now, last_typed) {
            return false;
        }
        match self {
            Popup::Approval(pending) if pending.reason.is_none() => pending.early = Some(digit),
            Popup::PlanAccept(dialog) => dialog.early = Some(digit),
            _ => return false,
        }
        true
    }

    /// Pasted text: the approval dialog takes it (into a reason being typed, else nowhere);
    /// `false` for the others (it goes to the prompt).
    pub fn paste(&mut self, text: &str) -> bool {
        match self {
            Popup::Approval(pending) => {
                pending.paste(text);
                true
            }
            _ => false,
        }
    }

    /// Drawn over the prompt's own popups (command completion, `@` files), which are then
    /// not drawn.
    pub fn covers_prompt(&self) -> bool {
        matches!(self, Popup::Models(_) | Popup::Jobs(_) | Popup::Search(_))
    }

    pub fn render(&mut self, areas: Areas, buf: &mut Buffer, theme: &Theme, around: &Around) {
        let armed = self.armed(around.now, around.last_typed);
        match self {
            Popup::Search(search) => search.render(areas.prompt, buf, theme, around.history),
            Popup::Resume(picker) => picker.render(areas.screen, areas.prompt, buf, theme),
            Popup::Rewind(picker) => picker.render(areas.prompt, buf, theme),
            Popup::Jobs(jobs) => jobs.render(areas.prompt, buf, theme),
            Popup::Models(picker) => picker.render(areas.prompt, buf, theme),
            Popup::Help(help) => help.render(areas.screen, buf, theme, around.commands),
            // Above the plan strip, which shows the plan it is about.
            Popup::PlanAccept(dialog) => dialog.render(Rect { y: areas.plan.y, ..areas.prompt }, buf, theme, armed),
            Popup::Approval(pending) => pending.render(areas.screen, buf, theme, armed),
        }
    }
}

/// The open popups, lowest first.
#[derive(Default)]
pub struct PopupStack {
    popups: Vec<Popup>,
}

impl PopupStack {
    /// Opens `popup` above every popup of its kind or a lower one (replacing one of its
    /// kind); it returns the popup it replaced.
    pub fn push(&mut self, popup: Popup) -> Option<Popup> {
        let replaced = self.remove(popup.kind());
        let at = self.popups.iter().position(|open| open.kind() > popup.kind()).unwrap_or(self.popups.len());
        self.popups.insert(at, popup);
        replaced
    }

    /// Closes the popup of `kind`, if one is open.
    pub fn remove(&mut self, kind: Kind) -> Option<Popup> {
        let at = self.popups.iter().position(|open| open.kind() == kind)?;
        Some(self.popups.remove(at))
    }

    /// Closes the popup at `index` (from the bottom).
    pub fn remove_at(&mut self, index: usize) -> Popup {
        self.popups.remove(index)
    }

    pub fn is_empty(&self) -> bool {
        self.popups.is_empty()
    }

    pub fn len(&self) -> usize {
        self.popups.len()
    }

    /// The jobs popup, if it is open.
    pub fn jobs_mut(&mut self) -> Option<&mut JobsPopup> {
        self.popups.iter_mut().find_map(|popup| match popup {
            Popup::Jobs(jobs) => Some(jobs),
            _ => None,
        })
    }

    pub fn contains(&self, kind: Kind) -> bool {
        self.popups.iter().any(|open| open.kind() == kind)
    }

    /// The popup at `index` (from the bottom).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Popup> {
        self.popups.get_mut(index)
    }

    /// The popup on top: the one that takes keys first.
    pub fn top(&self) -> Option<&Popup> {
        self.popups.last()
    }

    /// The open popups, lowest first (the order they are drawn in).
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Popup> {
        self.popups.iter_mut()
    }

    /// The open popups, lowest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Popup> {
        self.popups.iter()
    }

    /// The open approval dialog.
    pub fn approval(&self) -> Option<&PendingApproval> {
        self.popups.iter().find_map(|open| match open {
            Popup::Approval(pending) => Some(pending),
            _ => None,
        })
    }

    /// Closes the approval dialog, handing it back (to send its answer).
    pub fn take_approval(&mut self) -> Option<PendingApproval> {
        match self.remove(Kind::Approval)? {
            Popup::Approval(pending) => Some(pending),
            _ => None,
        }
    }

    /// Closes the accept-plan dialog, handing it back.
    pub fn take_plan_accept(&mut self) -> Option<PlanAccept> {
        match self.remove(Kind::PlanAccept)? {
            Popup::PlanAccept(dialog) => Some(dialog),
            _ => None,
        }
    }

    /// A dialog is open and not armed yet: the screen changes when it arms.
    pub fn arming(&self, now: Instant, last_typed: Option<Instant>) -> bool {
        self.popups.iter().any(|open| open.is_dialog() && !open.armed(now, last_typed))
    }

    /// The prompt's own popups are hidden under one of these.
    pub fn covers_prompt(&self) -> bool {
        self.popups.iter().any(Popup::covers_prompt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(stack: &PopupStack) -> Vec<Kind> {
        stack.iter().map(Popup::kind).collect()
    }

    #[test]
    fn a_popup_opens_by_priority_and_replaces_its_kind() {
        let mut stack = PopupStack::default();
        stack.push(Popup::Help(HelpOverlay::new()));
        // A model list arriving while the help is open waits under it.
        stack.push(Popup::Models(ModelPicker::new("p".into(), "m".into(), Ok(vec![]))));
        stack.push(Popup::Search(ReverseSearch::open(String::new())));
        assert_eq!(kinds(&stack), [Kind::Search, Kind::Models, Kind::Help]);
        assert!(stack.push(Popup::Help(HelpOverlay::new())).is_some(), "one help at most");
        assert_eq!(kinds(&stack), [Kind::Search, Kind::Models, Kind::Help]);
        assert_eq!(stack.top().map(Popup::title), Some("help"));
        assert!(stack.remove(Kind::Models).is_some());
        assert_eq!(kinds(&stack), [Kind::Search, Kind::Help]);
        assert!(stack.covers_prompt(), "the search hides the prompt's popups");
    }
}
