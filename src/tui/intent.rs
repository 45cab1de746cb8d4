//! What a pane or popup asks for after a key (`Intent`), which pane has the keys (`Focus`)
//! and how a pane is scrolled (`Scrolled`). Panes and popups handle their own keys and
//! return an `Intent`; `App` applies it (`keys.rs`), so no pane reaches into another.

use crate::agent::input::Approval;
use crate::protocol::mode::Mode;

/// The pane that has the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Composer,
    Conversation,
    Tools,
    Context,
}

/// What a pane or popup wants done after a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Intent {
    /// The key was used up; nothing more to do.
    Handled,
    /// Not this one's key: the router passes it on (typing in a pane goes to the prompt).
    Ignored,
    /// Close the popup that returned it; with text, put that text in the prompt.
    Close(Option<String>),
    /// Show this text in the prompt.
    SetPrompt(String),
    /// Replace the `@query` being typed with `@path `.
    InsertMention(String),
    /// Answer the open approval question.
    Answer(Approval),
    /// A short message on the status line.
    Notify(String),
    /// Send the prompt: the line, and the text shown for it when it holds long pastes.
    Send { line: String, shown: Option<String> },
    /// Open the help overlay.
    OpenHelp,
    /// The tool log selected this call: select its line in the conversation too.
    ShowCall(String),
    /// Open this call, expanded, in the tool log and focus it.
    OpenCall(String),
    /// Move the side column's edge (positive: wider).
    ResizeSplit(i32),
    /// The accept-plan dialog's answer: switch to this mode and go ahead, or keep planning.
    AcceptPlan(Option<Mode>),
    /// The rewind picker's answer: rewind this many prompts back, or close.
    Rewind(Option<usize>),
    /// The resume picker's answer: resume this session, or close.
    Resume(Option<String>),
}

/// How a pane is scrolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scrolled {
    Up(usize),
    Down(usize),
    Home,
    End,
}
