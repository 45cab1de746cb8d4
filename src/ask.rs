//! `elelem ask [PROMPT]`: one turn without a prompt. The final reply goes to stdout and
//! progress to stderr; with `--json` every event is one JSON object per line on stdout.

use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use serde::Serialize;
use serde_json::json;
use std::io::Write;
use std::sync::Mutex;

/// Writes events as JSON lines, merging consecutive text deltas of the same kind into one
/// line so the output does not depend on how the provider chunked its stream.
#[derive(Default)]
pub struct JsonOutput {
    pending: Mutex<Option<(&'static str, String)>>,
}

impl JsonOutput {
    fn line(value: &impl Serialize) {
        let Ok(text) = serde_json::to_string(value) else { return };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", crate::sanitize::escape_json_line(&text));
        let _ = out.flush();
    }

    fn flush(&self) {
        if let Some((kind, text)) = self.pending.lock().ok().and_then(|mut p| p.take()) {
            Self::line(&Text { kind, text: &text, interrupted: false });
        }
    }

    fn text(&self, kind: &'static str, delta: String) {
        let Ok(mut pending) = self.pending.lock() else { return };
        match pending.as_mut() {
            Some((k, text)) if *k == kind => text.push_str(&delta),
            _ => {
                if let Some((k, text)) = pending.take() {
                    Self::line(&Text { kind: k, text: &text, interrupted: false });
                }
                *pending = Some((kind, delta));
            }
        }
    }
}

impl Output for JsonOutput {
    fn emit(&self, event: AgentEvent) {
        match event {
            AgentEvent::Delta(Delta::Thinking(text)) => return self.text("thinking", text),
            AgentEvent::Delta(Delta::Saying(text)) => return self.text("saying", text),
            AgentEvent::Delta(Delta::ToolOutput { .. }) | AgentEvent::Context(_) | AgentEvent::TurnStarted { .. } => {
                return
            }
            _ => {}
        }
        self.flush();
        let value = match event {
            AgentEvent::ToolStarted { call, .. } => {
                json!({"type": "doing", "id": call.id, "name": call.name, "arguments": call.arguments})
            }
            AgentEvent::ToolFinished { call, result } => {
                json!({"type": "result", "id": call.id, "name": call.name, "result": result.to_value()})
            }
            AgentEvent::Usage(u) => {
                json!({"type": "usage", "input_tokens": u.input_tokens, "output_tokens": u.output_tokens})
            }
            AgentEvent::Retrying { attempt, max, delay, reason } => json!({
                "type": "retrying", "attempt": attempt, "max": max,
                "delay_ms": delay.as_millis() as u64, "reason": reason
            }),
            AgentEvent::Error(message) => json!({"type": "error", "message": message}),
            AgentEvent::Warning(message) => json!({"type": "warning", "message": message}),
            AgentEvent::Info(text) => json!({"type": "info", "text": text}),
            AgentEvent::TurnFinished { reply, end } => {
                // Written as it is: a long reply is not copied into a JSON tree.
                let interrupted = end == TurnEnd::Interrupted;
                return Self::line(&Text { kind: "reply", text: &reply, interrupted });
            }
            _ => return,
        };
        Self::line(&value);
    }
}

/// A text line (`saying`, `thinking`, `reply`), serialised without a JSON tree.
#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
}

/// The prompt with piped stdin appended as a fenced block.
pub fn prompt_with_stdin(prompt: &str, stdin: &str) -> String {
    if stdin.trim().is_empty() {
        return prompt.to_string();
    }
    let fence = if stdin.contains("```") { "````" } else { "```" };
    let body = stdin.strip_suffix('\n').unwrap_or(stdin);
    if prompt.is_empty() {
        format!("{fence}\n{body}\n{fence}")
    } else {
        format!("{prompt}\n\n{fence}\n{body}\n{fence}")
    }
}
