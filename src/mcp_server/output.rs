//! The `Output` of an `elelem mcp` session: what one turn shows, kept for the call's
//! result (the tool calls made, each as one summary line) and the reply text streamed to
//! the caller as it arrives (handed to `Stream`, which the call turns into progress
//! notifications when the client sent a progress token). Warnings and errors go to
//! stderr, which MCP clients keep as the server's log.

use crate::agent::output::{AgentEvent, Delta, Output};
use serde_json::{json, Value};
use std::sync::Mutex;
use tokio::sync::mpsc::UnboundedSender;

/// The longest error kept in a tool call's summary line.
const ERROR_CHARS: usize = 200;

/// One tool call of the turn, as the result lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSummary {
    pub tool: String,
    /// The tool's own one-line description of the call (`README.md`, `cargo test`).
    pub summary: String,
    /// `None` while it runs (an interrupted turn leaves it so), then whether it succeeded.
    pub ok: Option<bool>,
    /// The first line of its error, shortened.
    pub error: Option<String>,
    id: String,
}

impl CallSummary {
    /// `read README.md: ok`, `execute rm -rf x: refused: Permission denied: …`.
    pub fn line(&self) -> String {
        let what = if self.summary.is_empty() { self.tool.clone() } else { format!("{} {}", self.tool, self.summary) };
        match (self.ok, &self.error) {
            (Some(true), _) => format!("{what}: ok"),
            (Some(false), Some(error)) => format!("{what}: failed: {error}"),
            (Some(false), None) => format!("{what}: failed"),
            (None, _) => format!("{what}: stopped"),
        }
    }

    pub fn to_value(&self) -> Value {
        json!({"tool": self.tool, "summary": self.summary, "ok": self.ok, "error": self.error})
    }
}

/// The turn being shown: its calls and where its reply text streams to.
#[derive(Default)]
struct Turn {
    calls: Vec<CallSummary>,
    stream: Option<UnboundedSender<String>>,
}

/// The output of one MCP session (one turn at a time).
#[derive(Default)]
pub struct McpOutput {
    turn: Mutex<Turn>,
}

impl McpOutput {
    /// A turn begins: its calls are collected afresh, and its reply text goes to `stream`.
    pub fn begin(&self, stream: Option<UnboundedSender<String>>) {
        if let Ok(mut turn) = self.turn.lock() {
            *turn = Turn { calls: Vec::new(), stream };
        }
    }

    /// The turn ended: the calls it made, and the stream closed.
    pub fn finish(&self) -> Vec<CallSummary> {
        self.turn.lock().map(|mut turn| std::mem::take(&mut *turn).calls).unwrap_or_default()
    }
}

/// The first line of an error, at most `ERROR_CHARS` characters.
fn short(error: &str) -> String {
    let line = error.lines().next().unwrap_or_default();
    let mut shown: String = line.chars().take(ERROR_CHARS).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    shown
}

/// A line on stderr, the server's log: sanitised, since model and tool text reach it.
pub fn log(line: &str) {
    eprintln!("elelem mcp: {}", crate::sanitize::sanitize(line));
}

impl Output for McpOutput {
    fn emit(&self, event: AgentEvent) {
        match event {
            AgentEvent::Delta(Delta::Saying(chunk)) => {
                if let Some(stream) = self.turn.lock().ok().and_then(|turn| turn.stream.clone()) {
                    // The call may have ended already (a closed stream): nothing to tell.
                    let _ = stream.send(chunk);
                }
            }
            AgentEvent::ToolStarted { call, summary } => {
                if let Ok(mut turn) = self.turn.lock() {
                    let summary = crate::sanitize::sanitize(&summary).into_owned();
                    turn.calls.push(CallSummary { tool: call.name, summary, ok: None, error: None, id: call.id });
                }
            }
            AgentEvent::ToolFinished { call, result } => {
                if let Ok(mut turn) = self.turn.lock() {
                    if let Some(entry) = turn.calls.iter_mut().rev().find(|entry| entry.id == call.id) {
                        entry.ok = Some(result.is_ok());
                        entry.error = result.error().map(|error| crate::sanitize::sanitize(&short(error)).into_owned());
                    }
                }
            }
            AgentEvent::Warning(message) => log(&format!("warning: {message}")),
            AgentEvent::Error(message) => log(&format!("error: {message}")),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_line_says_how_the_call_ended() {
        let call = |ok, error: Option<&str>| CallSummary {
            tool: "execute".into(),
            summary: "cargo test".into(),
            ok,
            error: error.map(str::to_string),
            id: "c1".into(),
        };
        assert_eq!(call(Some(true), None).line(), "execute cargo test: ok");
        assert_eq!(call(Some(false), Some("denied")).line(), "execute cargo test: failed: denied");
        assert_eq!(call(None, None).line(), "execute cargo test: stopped");
        assert_eq!(short(&format!("{}\nmore", "x".repeat(300))), format!("{}…", "x".repeat(ERROR_CHARS)));
    }
}
