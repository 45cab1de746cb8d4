//! The `Output` of an ACP session: the agent's events as `session/update` notifications
//! (`agent_message_chunk`, `agent_thought_chunk`, `tool_call`, `tool_call_update`, `plan`;
//! `user_message_chunk` while a loaded session's history is replayed). What a tool call
//! is (its kind, the files it touches) comes from the tool's own description, never from
//! its name. A change to a file (`AgentEvent::FileChange`, reported by the tool's preview
//! and again once written) is ACP's `diff` content, its whole old and new text, both in
//! the permission request and in the finished call. Warnings and errors go to stderr,
//! which editors keep as the agent's log. A running call's live output (`execute`'s) is
//! sent as its content: the tail (`LIVE_TAIL`), at most every `LIVE_EVERY`.

use super::rpc::Peer;
use crate::agent::output::{AgentEvent, Delta, Output};
use crate::agent::Tool;
use crate::protocol::plan::{Plan, StepStatus};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The client and the session id the notifications carry (known once the session file
/// is; updates before it are held and sent when it is set).
pub struct Link {
    pub peer: Peer,
    id: Mutex<(Option<String>, Vec<Value>)>,
}

impl Link {
    pub fn new(peer: Peer, id: Option<String>) -> Arc<Link> {
        Arc::new(Link { peer, id: Mutex::new((id, Vec::new())) })
    }

    pub fn id(&self) -> Option<String> {
        self.id.lock().ok().and_then(|id| id.0.clone())
    }

    /// Names the session and sends what waited for its name.
    pub fn set_id(&self, id: &str) {
        let held = match self.id.lock() {
            Ok(mut state) => {
                state.0 = Some(id.to_string());
                std::mem::take(&mut state.1)
            }
            Err(_) => return,
        };
        for update in held {
            self.send_to(id, update);
        }
    }

    /// Sends one `session/update`.
    pub fn update(&self, update: Value) {
        let id = match self.id.lock() {
            Ok(mut state) => match state.0.clone() {
                Some(id) => id,
                None => return state.1.push(update),
            },
            Err(_) => return,
        };
        self.send_to(&id, update);
    }

    fn send_to(&self, id: &str, update: Value) {
        self.peer.notify("session/update", json!({"sessionId": id, "update": update}));
    }
}

/// ACP's `ToolKind` (the kinds elelem's tools fall into), serialised as the schema spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Execute,
    Fetch,
    Other,
}

/// A call's ACP kind, from the tool's own description: runs commands, reaches URLs,
/// read-only, or changes the files its arguments name.
pub fn kind_of(tool: Option<&Tool>, args: &Value) -> ToolKind {
    match tool {
        Some(tool) if tool.takes_commands() => ToolKind::Execute,
        Some(tool) if tool.takes_hosts() => ToolKind::Fetch,
        Some(tool) if tool.read_only => ToolKind::Read,
        Some(tool) if !tool.paths(args).is_empty() => ToolKind::Edit,
        _ => ToolKind::Other,
    }
}

/// The output of one ACP session.
pub struct AcpOutput {
    link: Arc<Link>,
    cwd: PathBuf,
    /// The session's tools by name, refreshed before each turn.
    tools: Mutex<HashMap<String, Arc<Tool>>>,
    /// A loaded session's history is being shown: prompts are sent as the user's.
    replaying: AtomicBool,
    /// The change each running call would make or made, as ACP `diff` content, by call id
    /// (taken when the call finishes, so only running calls' are kept).
    changes: Mutex<HashMap<String, Value>>,
    /// A slash command runs: what it shows (and its errors) is the reply.
    commanding: AtomicBool,
    /// The running calls' live output (`execute`'s), by call id.
    live: Mutex<HashMap<String, Live>>,
}

/// The tail of a running call's output, and when it was last sent.
#[derive(Default)]
struct Live {
    tail: String,
    sent: Option<Instant>,
}

/// The most of a running call's output sent to the editor: its tail.
pub const LIVE_TAIL: usize = 8 * 1024;
/// Live output is sent at most this often.
pub const LIVE_EVERY: Duration = Duration::from_millis(200);

impl Live {
    /// Adds a chunk, keeping the last `LIVE_TAIL` bytes (on a character boundary).
    fn push(&mut self, chunk: &str) {
        self.tail.push_str(chunk);
        if self.tail.len() > LIVE_TAIL {
            let mut cut = self.tail.len() - LIVE_TAIL;
            while !self.tail.is_char_boundary(cut) {
                cut += 1;
            }
            self.tail.drain(..cut);
        }
    }
}

impl AcpOutput {
    pub fn new(link: Arc<Link>, cwd: PathBuf) -> AcpOutput {
        AcpOutput {
            link,
            cwd,
            tools: Mutex::default(),
            replaying: AtomicBool::new(false),
            changes: Mutex::default(),
            commanding: AtomicBool::new(false),
            live: Mutex::default(),
        }
    }

    pub fn set_tools(&self, tools: &[Arc<Tool>]) {
        if let Ok(mut known) = self.tools.lock() {
            *known = tools.iter().map(|tool| (tool.name.clone(), tool.clone())).collect();
        }
    }

    pub fn set_commanding(&self, commanding: bool) {
        self.commanding.store(commanding, Ordering::Relaxed);
    }

    pub fn set_replaying(&self, replaying: bool) {
        self.replaying.store(replaying, Ordering::Relaxed);
    }

    /// The change call `call_id` would make, as ACP `diff` content, if it reported one.
    pub fn change_of(&self, call_id: &str) -> Option<Value> {
        self.changes.lock().ok().and_then(|changes| changes.get(call_id).cloned())
    }

    /// A piece of a running call's output: the tail so far goes to the editor as the call's
    /// content, at most every `LIVE_EVERY` (the finished call's result replaces it).
    fn live_output(&self, id: String, chunk: &str) -> Option<Value> {
        let mut live = self.live.lock().ok()?;
        let call = live.entry(id.clone()).or_default();
        call.push(chunk);
        let now = Instant::now();
        if call.sent.is_some_and(|sent| now.duration_since(sent) < LIVE_EVERY) {
            return None;
        }
        call.sent = Some(now);
        let tail = crate::sanitize::sanitize(&call.tail);
        let fence = if tail.contains("```") { "````" } else { "```" };
        let shown = format!("{fence}\n{}\n{fence}", tail.trim_end());
        Some(json!({
            "sessionUpdate": "tool_call_update",
            "toolCallId": id,
            "status": "in_progress",
            "content": [{"type": "content", "content": text(&shown)}],
        }))
    }

    fn take_change(&self, call_id: &str) -> Option<Value> {
        self.changes.lock().ok().and_then(|mut changes| changes.remove(call_id))
    }

    fn tool(&self, name: &str) -> Option<Arc<Tool>> {
        self.tools.lock().ok().and_then(|tools| tools.get(name).cloned())
    }

    /// The start of a tool call: its title, kind, input and the files it touches.
    pub fn started(&self, call: &crate::protocol::ToolCall, summary: &str) -> Value {
        let tool = self.tool(&call.name);
        let locations: Vec<Value> = tool
            .as_deref()
            .map(|tool| tool.paths(&call.arguments))
            .unwrap_or_default()
            .into_iter()
            .map(|path| json!({"path": absolute(&self.cwd, path)}))
            .collect();
        json!({
            "sessionUpdate": "tool_call",
            "toolCallId": call.id,
            "title": title(&call.name, summary),
            "kind": kind_of(tool.as_deref(), &call.arguments),
            "status": "pending",
            "rawInput": call.arguments,
            "locations": locations,
        })
    }
}

/// `read README.md`: the tool and its one-line summary.
pub fn title(name: &str, summary: &str) -> String {
    if summary.is_empty() {
        name.to_string()
    } else {
        format!("{name} {summary}")
    }
}

/// A path as the client wants it: absolute (relative ones are the session's directory's).
fn absolute(cwd: &Path, path: &str) -> String {
    let path = Path::new(path);
    if path.is_absolute() {
        path.display().to_string()
    } else {
        cwd.join(path).display().to_string()
    }
}

/// `absolute` for a path the kernel holds.
fn absolute_path(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// A line on stderr, the agent's log in an editor (or a terminal, when run by hand):
/// sanitised, since model, tool and client text reach it.
pub fn log(line: &str) {
    eprintln!("elelem acp: {}", crate::sanitize::sanitize(line));
}

/// A text content block.
pub fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A plan as ACP's entries (elelem's steps carry no priority: all are `medium`).
fn plan(plan: &Plan) -> Value {
    let entries: Vec<Value> = plan
        .steps
        .iter()
        .map(|step| {
            let status = match step.status {
                StepStatus::Pending => "pending",
                StepStatus::InProgress => "in_progress",
                StepStatus::Completed => "completed",
            };
            json!({"content": step.step, "priority": "medium", "status": status})
        })
        .collect();
    json!({"sessionUpdate": "plan", "entries": entries})
}

/// ACP's `diff` tool call content: the file's absolute path, its whole old text (`null`
/// for a new file) and its new text.
pub fn diff(path: &Path, old: Option<&str>, new: &str) -> Value {
    json!({"type": "diff", "path": path.display().to_string(), "oldText": old, "newText": new})
}

/// What a finished call shows: its content, or its error; a change's diff, fenced (when
/// the tool did not report the change whole).
fn result_text(result: &crate::protocol::ToolResult) -> String {
    if let Some(error) = result.error() {
        return error.to_string();
    }
    let content = match result.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    match result.get("diff").and_then(Value::as_str).filter(|diff| !diff.is_empty()) {
        Some(diff) if content.is_empty() => format!("```diff\n{}\n```", diff.trim_end()),
        _ => content,
    }
}

impl Output for AcpOutput {
    fn emit(&self, event: AgentEvent) {
        let update = match event {
            AgentEvent::Delta(Delta::Saying(chunk)) => {
                json!({"sessionUpdate": "agent_message_chunk", "content": text(&chunk)})
            }
            AgentEvent::Delta(Delta::Thinking(chunk)) => {
                json!({"sessionUpdate": "agent_thought_chunk", "content": text(&chunk)})
            }
            AgentEvent::TurnStarted { prompt } if self.replaying.load(Ordering::Relaxed) => {
                json!({"sessionUpdate": "user_message_chunk", "content": text(&prompt)})
            }
            AgentEvent::ToolStarted { call, summary } => self.started(&call, &summary),
            AgentEvent::FileChange { call_id, path, old, new } => {
                let change = diff(&absolute_path(&self.cwd, &path), old.as_deref(), &new);
                if let Ok(mut changes) = self.changes.lock() {
                    changes.insert(call_id, change);
                }
                return;
            }
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) => match self.live_output(id, &chunk) {
                Some(update) => update,
                None => return,
            },
            AgentEvent::ToolFinished { call, result } => {
                if let Ok(mut live) = self.live.lock() {
                    live.remove(&call.id);
                }
                let change = self.take_change(&call.id).filter(|_| result.is_ok());
                let shown = result_text(&result);
                let mut update = json!({
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call.id,
                    "status": if result.is_ok() { "completed" } else { "failed" },
                    "rawOutput": result.to_value(),
                });
                if let Some(change) = change {
                    update["content"] = json!([change]);
                } else if !shown.is_empty() {
                    update["content"] = json!([{"type": "content", "content": text(&shown)}]);
                }
                update
            }
            AgentEvent::Plan(steps) => plan(&steps),
            AgentEvent::Info(message)
            | AgentEvent::Jobs { text: message, .. }
            | AgentEvent::Warning(message)
            | AgentEvent::Error(message)
                if self.commanding.load(Ordering::Relaxed) =>
            {
                json!({"sessionUpdate": "agent_message_chunk", "content": text(&format!("{message}\n"))})
            }
            AgentEvent::Warning(message) => return log(&format!("warning: {message}")),
            AgentEvent::Error(message) => return log(&format!("error: {message}")),
            _ => return,
        };
        self.link.update(update);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_output_keeps_only_its_tail_on_a_character_boundary() {
        let mut live = Live::default();
        live.push("é");
        live.push(&"x".repeat(LIVE_TAIL));
        assert_eq!(live.tail.len(), LIVE_TAIL);
        live.push("ab");
        assert!(live.tail.len() <= LIVE_TAIL && live.tail.ends_with("xab"));
        let mut wide = Live::default();
        wide.push(&"é".repeat(LIVE_TAIL));
        assert!(wide.tail.len() <= LIVE_TAIL && wide.tail.chars().all(|c| c == 'é'));
    }
}
