//! The `Recorder`: an `Output` in front of the real one that appends every event of a
//! session to its JSONL file, flushed per record. Streamed text is merged and written when
//! another event arrives or when it passes `DELTA_FLUSH` bytes, so a crash or `kill -9`
//! mid-reply loses at most that much of it. The conversation is recorded as it changes:
//! the part kept since the last record plus the messages appended.

use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::protocol::Message;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Streamed text is written in pieces of at least this many bytes.
const DELTA_FLUSH: usize = 1024;

struct State {
    file: std::fs::File,
    /// Merged deltas not yet written.
    pending: Option<(&'static str, String)>,
    /// The conversation as last recorded.
    messages: Vec<Message>,
    /// Set after a write failed: recording stops, the session goes on.
    broken: bool,
    /// The line being written, reused (records are serialised straight into it).
    line: Vec<u8>,
}

/// Records a session's events, then passes each on to `inner`.
pub struct Recorder {
    inner: Arc<dyn Output>,
    state: Mutex<State>,
}

impl Recorder {
    /// Records into `file` (opened for appending); `messages` is the conversation the file
    /// already holds (empty for a new session).
    pub fn new(inner: Arc<dyn Output>, file: std::fs::File, messages: Vec<Message>) -> Self {
        Recorder { inner, state: Mutex::new(State { file, pending: None, messages, broken: false, line: Vec::new() }) }
    }

    /// Writes the header of a new session file.
    pub fn header(&self, id: &str, cwd: &str) {
        let started =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
        self.write(json!({"type": "session", "version": 1, "id": id, "cwd": cwd, "started": started}));
    }

    /// Appends a record of the session's own (a plugin's, e.g. a file checkpoint), in
    /// order with the events around it.
    pub fn append(&self, record: Value) {
        self.write(record);
    }

    fn write(&self, record: Value) {
        let Ok(mut state) = self.state.lock() else { return };
        state.flush_pending();
        state.write_line(&record);
    }
}

impl State {
    fn write_line(&mut self, record: &impl Serialize) {
        if self.broken {
            return;
        }
        self.line.clear();
        if serde_json::to_writer(&mut self.line, record).is_err() {
            return;
        }
        self.line.push(b'\n');
        if self.file.write_all(&self.line).and_then(|_| self.file.flush()).is_err() {
            self.broken = true;
        }
        // A long reply's line is not kept for the rest of the session.
        if self.line.capacity() > 64 * 1024 {
            self.line = Vec::new();
        }
    }

    fn flush_pending(&mut self) {
        if let Some((kind, text)) = self.pending.take() {
            self.write_line(&Text { kind, text: &text });
        }
    }

    fn delta(&mut self, kind: &'static str, text: &str) {
        match &mut self.pending {
            Some((k, pending)) if *k == kind => pending.push_str(text),
            _ => {
                self.flush_pending();
                self.pending = Some((kind, text.to_string()));
            }
        }
        if self.pending.as_ref().is_some_and(|(_, t)| t.len() >= DELTA_FLUSH) {
            self.flush_pending();
        }
    }

    /// Records how the conversation changed: how many recorded messages are kept, and the
    /// messages after them.
    fn messages(&mut self, now: &[Message]) {
        let keep = self.messages.iter().zip(now).take_while(|(a, b)| a == b).count();
        if keep == self.messages.len() && keep == now.len() {
            return;
        }
        let append = &now[keep..];
        self.flush_pending();
        self.write_line(&Messages { kind: "messages", keep, append });
        self.messages = now.to_vec();
    }
}

/// Records written without building a JSON tree (they can hold a whole long reply).
#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Messages<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    keep: usize,
    append: &'a [Message],
}

#[derive(Serialize)]
struct TurnFinished<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    reply: &'a str,
    end: &'static str,
}

fn end_name(end: TurnEnd) -> &'static str {
    match end {
        TurnEnd::Done => "done",
        TurnEnd::Failed => "failed",
        TurnEnd::Interrupted => "interrupted",
    }
}

impl Output for Recorder {
    fn pace(&self) -> Option<std::time::Duration> {
        self.inner.pace()
    }

    fn emit(&self, event: AgentEvent) {
        if let Ok(mut state) = self.state.lock() {
            match &event {
                AgentEvent::Delta(Delta::Saying(text)) => state.delta("saying", text),
                AgentEvent::Delta(Delta::Thinking(text)) => state.delta("thinking", text),
                AgentEvent::Delta(Delta::ToolOutput { .. }) => {}
                AgentEvent::TurnStarted { prompt } => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "prompt", "text": prompt}));
                }
                AgentEvent::ToolStarted { call, summary } => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "tool_started", "call": call, "summary": summary}));
                }
                AgentEvent::ToolFinished { call, result } => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "tool_finished", "call": call, "result": result}));
                }
                AgentEvent::Usage(usage) => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "usage", "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}));
                }
                AgentEvent::ProviderChanged { provider, model } => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "provider", "provider": provider, "model": model}));
                }
                AgentEvent::Error(message) => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "error", "message": message}));
                }
                AgentEvent::Context(snapshot) => state.messages(&snapshot.messages),
                AgentEvent::TurnFinished { reply, end } => {
                    state.flush_pending();
                    state.write_line(&TurnFinished { kind: "turn_finished", reply, end: end_name(*end) });
                }
                AgentEvent::Cleared => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "cleared"}));
                }
                _ => {}
            }
        }
        self.inner.emit(event);
    }
}
