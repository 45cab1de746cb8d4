//! What a turn shows, as data: the `AgentEvent`s the kernel emits (and a session's plugins
//! and front ends receive), the streamed `Delta`s among them, how a turn ended and the
//! context it leaves. Shared vocabulary, so front ends, session files and plugins read the
//! same events the kernel sends. Delivery rule, in the types: a `Delta` (reply text,
//! thinking, live tool output) is a piece of a text that may come in any number of pieces;
//! every other `AgentEvent` must be delivered as sent.

use super::{Message, ToolCall, ToolResult, ToolSpec, Usage};
use std::time::Duration;

/// A piece of streamed text. Consecutive deltas of the same kind (and tool) show as one text,
/// however it was cut.
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    /// Reasoning text.
    Thinking(String),
    /// Reply text.
    Saying(String),
    /// Live output of a running tool.
    ToolOutput { id: String, chunk: String },
}

/// How a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model asked for nothing more.
    Done,
    /// The provider failed; the reply is `Error: <message>`.
    Failed,
    /// The user cancelled; a trace was saved (the reply shown so far, a marker, the tool
    /// calls that ran), which is not a reply.
    Interrupted,
}

/// Exactly what the model sees on its next call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextSnapshot {
    pub system_prompt: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    /// The model's context window in tokens, when known.
    pub window: Option<u64>,
    /// This turn's tool traffic so far (assistant tool calls and tool results): sent with
    /// the next call of this turn, dropped when the turn ends.
    pub turn: Vec<Message>,
}

impl ContextSnapshot {
    /// A rough token count of everything the next call carries.
    pub fn estimated_tokens(&self) -> u64 {
        use super::models::estimate_tokens;
        let messages: u64 = self.messages.iter().chain(&self.turn).map(|m| estimate_tokens(&m.text()) + 4).sum();
        let tools: u64 = self
            .tools
            .iter()
            .map(|t| {
                estimate_tokens(&t.name) + estimate_tokens(&t.description) + estimate_tokens(&t.parameters.to_string())
            })
            .sum();
        estimate_tokens(&self.system_prompt) + messages + tools
    }
}

/// One thing the agent (or a slash command) has to show.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// A turn began with this prompt.
    TurnStarted {
        prompt: String,
    },
    /// Streamed text: the only kind of event a front end may merge.
    Delta(Delta),
    /// A tool call is about to run; `call.name` is resolved (canonical, or `name?`) and
    /// `summary` is the tool's own one-line description of the call (`read README.md`'s
    /// `README.md`).
    ToolStarted {
        call: ToolCall,
        summary: String,
    },
    /// A tool call finished with the exact result sent back to the model.
    ToolFinished {
        call: ToolCall,
        result: ToolResult,
    },
    /// The whole texts of a change to one file that call `call_id` would make (its
    /// permission preview) or made (after writing), for front ends that show changes their
    /// own way (an editor's diff view; the others show the unified diff of the result).
    /// `old` is `None` for a new file.
    FileChange {
        call_id: String,
        path: std::path::PathBuf,
        old: Option<String>,
        new: String,
    },
    /// Token usage of one model call.
    Usage(Usage),
    /// The provider is waiting before retrying.
    Retrying {
        attempt: u32,
        max: u32,
        delay: Duration,
        reason: String,
    },
    /// Provider or model changed (name, model): switched, or the server says another
    /// model answered than the one asked for (`ProviderEvent::Model`).
    ProviderChanged {
        provider: String,
        model: String,
    },
    /// What the model will see next changed.
    Context(ContextSnapshot),
    /// Text a command printed.
    Info(String),
    Warning(String),
    Error(String),
    /// The turn is over; `reply` is what was saved (empty when interrupted: the trace saved
    /// then is not a reply).
    TurnFinished {
        reply: String,
        end: TurnEnd,
    },
    /// The conversation was cleared.
    Cleared,
    /// Put this text on the user's clipboard (`/copy`); a terminal front end writes OSC 52.
    Clipboard(String),
    /// The model's plan changed (the whole plan; it replaces the one before).
    Plan(super::plan::Plan),
    /// Something a sub-agent run by call `call_id` showed (`startup/sub_agents.rs`): its tool
    /// calls, usage, warnings and errors; front ends nest it under that call.
    SubAgent {
        call_id: String,
        event: Box<AgentEvent>,
    },
    /// The provider's models (`/models`, `/model` without a name): a front end lists them or
    /// opens its picker. `listed` is the error's text when the listing failed.
    Models {
        provider: String,
        current: String,
        listed: Result<Vec<super::ModelInfo>, String>,
    },
    /// The session's background jobs (`/jobs`): `text` is the listing as the line REPL
    /// prints it, `rows` the same jobs for a front end that lists them itself (the TUI's
    /// jobs popup).
    Jobs {
        text: String,
        rows: Vec<JobRow>,
    },
    /// The conversation was rewound: the last `turns` turns are gone (`/rewind`).
    Rewound {
        turns: usize,
    },
    /// The session's mode changed (`/mode`, Shift+Tab).
    Mode(super::mode::Mode),
    /// The session asks the front end to quit.
    Exit,
}

/// One background job as `/jobs` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRow {
    pub id: u32,
    /// The command, on one line.
    pub command: String,
    pub running: bool,
    /// `running`, `exited N` or `stopped`.
    pub state: String,
    /// How much output it wrote, in a few characters (`3.2 KiB`).
    pub output: String,
    /// It runs in a pseudo-terminal of its own.
    pub terminal: bool,
}

impl AgentEvent {
    /// Reply text, as a delta.
    pub fn saying(text: impl Into<String>) -> Self {
        AgentEvent::Delta(Delta::Saying(text.into()))
    }
    /// Reasoning text, as a delta.
    pub fn thinking(text: impl Into<String>) -> Self {
        AgentEvent::Delta(Delta::Thinking(text.into()))
    }
    /// The tokens this event bills, the agent's own or a sub-agent's (cost totals count both).
    pub fn billed_usage(&self) -> Option<&Usage> {
        match self {
            AgentEvent::Usage(usage) => Some(usage),
            AgentEvent::SubAgent { event, .. } => event.billed_usage(),
            _ => None,
        }
    }
}
