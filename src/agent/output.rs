//! What the agent shows: the `AgentEvent`s of a turn and the `Output` trait that receives them.
//!
//! Front ends implement `Output`: the TUI forwards events over a channel, the line REPL
//! prints them, `ask --json` writes them as JSON lines. Delivery rule: `Saying`, `Thinking`
//! and `ToolOutput` are deltas a slow UI may merge; every other event must be delivered.

use crate::agent::conversation::{Message, ToolCall};
use crate::agent::toolbox::ToolSpec;
use serde_json::Value;
use std::time::Duration;

/// Tokens a provider reported for one model call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// How a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model asked for nothing more.
    Done,
    /// The provider failed; the reply is `Error: <message>`.
    Failed,
    /// The user cancelled; nothing was saved as a reply.
    Interrupted,
}

/// Exactly what the model sees on its next call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextSnapshot {
    pub system_prompt: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
}

/// One thing the agent (or a slash command) has to show.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// A turn began with this prompt.
    TurnStarted {
        prompt: String,
    },
    /// Reasoning text (a delta).
    Thinking(String),
    /// Reply text (a delta).
    Saying(String),
    /// A tool call is about to run; `call.name` is resolved (canonical, or `name?`).
    ToolStarted {
        call: ToolCall,
    },
    /// Live output of a running tool (a delta).
    ToolOutput {
        id: String,
        chunk: String,
    },
    /// A tool call finished with the exact result sent back to the model.
    ToolFinished {
        call: ToolCall,
        result: Value,
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
    /// Provider or model changed (name, model).
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
    /// The turn is over; `reply` is what was saved (empty when interrupted).
    TurnFinished {
        reply: String,
        end: TurnEnd,
    },
    /// The conversation was cleared.
    Cleared,
    /// The session asks the front end to quit.
    Exit,
}

/// Receives what the agent shows.
pub trait Output: Send + Sync {
    fn emit(&self, event: AgentEvent);
}

/// An output that keeps every event; for tests and scripted runs.
#[derive(Default)]
pub struct RecordingOutput {
    events: std::sync::Mutex<Vec<AgentEvent>>,
}

impl RecordingOutput {
    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl Output for RecordingOutput {
    fn emit(&self, event: AgentEvent) {
        if let Ok(mut events) = self.events.lock() {
            events.push(event);
        }
    }
}
