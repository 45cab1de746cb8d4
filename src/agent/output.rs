//! The `Output` trait that receives what the agent shows (the `AgentEvent`s of a turn,
//! defined with the shared vocabulary in `protocol/events.rs` and re-exported here).
//!
//! Front ends implement `Output`: the TUI forwards events over a channel, the line REPL
//! prints them, `ask --json` writes them as JSON lines.

pub use crate::protocol::events::{AgentEvent, ContextSnapshot, Delta, TurnEnd};

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
