//! The channels between the UI task and the agent task: `ChannelOutput` forwards agent
//! events, `ChannelApprover` forwards approval questions (with a reply slot), and
//! `ChannelInput` feeds submitted lines to the session loop (and says when it waits for one). The UI → agent direction
//! carries lines only; interrupts go through the session's `Interrupter`.

use crate::agent::input::{Approval, ApprovalRequest, Approver, Input};
use crate::agent::output::{AgentEvent, Output};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

/// Everything the agent task tells the UI. Unbounded: nothing is ever dropped; the UI
/// merges deltas by draining the queue before each frame.
pub enum UiMessage {
    Agent(AgentEvent),
    Approval(ApprovalRequest, oneshot::Sender<Approval>),
    /// The session is built (after the first frame): who to interrupt, what it runs on,
    /// its slash commands and the saved input history.
    Ready(Box<Ready>),
    /// The session could not be built; the app stops and reports this.
    Failed(anyhow::Error),
    /// Open this text in the user's editor (the screen is suspended meanwhile) and send
    /// back what was saved.
    Edit(String, std::sync::mpsc::Sender<anyhow::Result<String>>),
    /// The session is idle and asks for its next line: the first queued prompt goes.
    Waiting,
}

#[derive(Default)]
pub struct Ready {
    pub interrupter: crate::agent::Interrupter,
    pub provider: String,
    pub model: String,
    pub commands: Vec<(String, String)>,
    pub history: Vec<String>,
    /// What the first screen's welcome says.
    pub welcome: crate::tui::runtime::welcome::Welcome,
    /// The session's mode, which Shift+Tab sets at once (the gate reads it per call).
    pub mode: crate::protocol::mode::SharedMode,
    /// The session's background jobs, which the jobs popup shows live while it is open.
    pub jobs: crate::startup::JobsView,
}

pub struct ChannelOutput(pub mpsc::UnboundedSender<UiMessage>);

impl Output for ChannelOutput {
    fn emit(&self, event: AgentEvent) {
        let _ = self.0.send(UiMessage::Agent(event));
    }
}

pub struct ChannelApprover(pub mpsc::UnboundedSender<UiMessage>);

impl Approver for ChannelApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let (tx, rx) = oneshot::channel();
        let sent = self.0.send(UiMessage::Approval(request, tx)).is_ok();
        Box::pin(async move {
            if !sent {
                return Approval::No;
            }
            rx.await.unwrap_or(Approval::No)
        })
    }
}

/// The user's editor from the agent task: the UI suspends the screen, runs it and answers.
pub struct ChannelEditor(pub mpsc::UnboundedSender<UiMessage>);

impl crate::agent::TextEditor for ChannelEditor {
    fn edit(&self, text: &str) -> anyhow::Result<String> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.0.send(UiMessage::Edit(text.to_string(), tx)).map_err(|_| anyhow::anyhow!("the screen is gone"))?;
        crate::editor::block(|| rx.recv()).map_err(|_| anyhow::anyhow!("the editor did not answer"))?
    }
}

/// The session's lines. When none is waiting it tells the UI (`UiMessage::Waiting`), which
/// holds the prompts typed during a turn until then (`panes/queue.rs`).
pub struct ChannelInput {
    pub lines: mpsc::UnboundedReceiver<String>,
    pub ui: mpsc::UnboundedSender<UiMessage>,
}

impl Input for ChannelInput {
    fn read_line(&mut self, _prompt: &str) -> BoxFuture<'_, Option<String>> {
        Box::pin(async move {
            if let Ok(line) = self.lines.try_recv() {
                return Some(line);
            }
            let _ = self.ui.send(UiMessage::Waiting);
            self.lines.recv().await
        })
    }
}
