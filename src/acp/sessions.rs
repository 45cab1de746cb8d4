//! The ACP sessions of one connection: `session/new` and `session/load` build an elelem
//! session through `startup` (same plugins, permissions and session files as the other
//! front ends; the ACP session id is the session file's id, so `session/load` is resume),
//! `session/prompt` runs a turn and answers its stop reason, `session/cancel` interrupts it.

use super::approver::AcpApprover;
use super::fs::{ClientFiles, FsCapabilities};
use super::rpc::{Peer, RpcError, INTERNAL_ERROR};
use super::updates::{AcpOutput, Link};
use crate::agent::input::NoLines;
use crate::agent::output::TurnEnd;
use crate::agent::{Interrupter, Session};
use crate::protocol::Role;
use crate::startup::{build_recorded_session, unrecorded_id, Options, SessionChoice};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One session: the elelem session (one turn at a time) and what reaches into it.
pub struct Slot {
    session: tokio::sync::Mutex<Session>,
    interrupter: Interrupter,
    output: Arc<AcpOutput>,
    /// How many `session/cancel`s came: a prompt received before one (its `Ticket`) is
    /// cancelled even when its turn had not started yet (it waited for the one before).
    cancels: AtomicU64,
    /// The session's slash commands as ACP's `availableCommands`.
    commands: Value,
}

/// The session's cancel count when a prompt was received (in the order of the client's
/// messages, before the prompt's task runs); `None` for a session that is not there.
#[derive(Clone, Copy, Debug)]
pub struct Ticket(Option<u64>);

/// The sessions of the connection, by id.
pub struct Sessions {
    peer: Peer,
    options: Options,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    /// What the client offered for files in `initialize`.
    fs: Mutex<FsCapabilities>,
}

/// A string field of the params, or a clear error.
fn string<'a>(params: &'a Value, field: &str) -> Result<&'a str, RpcError> {
    params
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params(format!("invalid params: \"{field}\" must be a string")))
}

/// The session's directory: absolute and existing. elelem works in its process's
/// directory, so the process moves there before its first session (`open`: sessions are
/// open already, whose tools work in the process's directory: another one is refused).
fn enter(params: &Value, open: bool) -> Result<PathBuf, RpcError> {
    let cwd = PathBuf::from(string(params, "cwd")?);
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(RpcError::invalid_params(format!(
            "invalid params: cwd {} is not an absolute directory",
            cwd.display()
        )));
    }
    if std::env::current_dir().ok().as_deref() != Some(cwd.as_path()) {
        if open {
            return Err(RpcError::invalid_params(format!(
                "invalid params: this elelem works in {}; start another `elelem acp` for {}",
                std::env::current_dir().unwrap_or_default().display(),
                cwd.display()
            )));
        }
        std::env::set_current_dir(&cwd)
            .map_err(|error| RpcError::invalid_params(format!("cannot work in {}: {error}", cwd.display())))?;
    }
    Ok(cwd)
}

impl Sessions {
    pub fn new(peer: Peer, options: Options) -> Sessions {
        Sessions { peer, options, slots: Mutex::default(), fs: Mutex::default() }
    }

    /// The client's file capabilities, from `initialize`.
    pub fn set_client_fs(&self, offered: FsCapabilities) {
        if let Ok(mut fs) = self.fs.lock() {
            *fs = offered;
        }
    }

    fn slot(&self, params: &Value) -> Result<Arc<Slot>, RpcError> {
        let id = string(params, "sessionId")?;
        self.slots
            .lock()
            .ok()
            .and_then(|slots| slots.get(id).cloned())
            .ok_or_else(|| RpcError::invalid_params(format!("invalid params: no session {id}")))
    }

    /// Builds a session (a new one, or `resume` with its history replayed to the client).
    fn build(&self, params: &Value, resume: Option<&str>) -> Result<String, RpcError> {
        let mcp_servers = super::mcp::servers(params)?;
        let open = self.slots.lock().map(|slots| !slots.is_empty()).unwrap_or(true);
        let cwd = enter(params, open)?;
        let link = Link::new(self.peer.clone(), resume.map(str::to_string));
        let output = Arc::new(AcpOutput::new(link.clone(), cwd));
        let options = Options {
            session: resume.map_or(SessionChoice::New, |id| SessionChoice::Resume(id.to_string())),
            replay_history: resume.is_some(),
            headless: false,
            mcp_servers,
            settle_mcp: true,
            // Editors take streamed text at the line front ends' pace.
            pace: Some(crate::startup::LINE_PACE),
            ..self.options.clone()
        };
        output.set_replaying(resume.is_some());
        let approver = Arc::new(AcpApprover::new(link.clone(), output.clone()));
        let built = build_recorded_session(&options, output.clone(), Box::new(NoLines), approver);
        output.set_replaying(false);
        let (mut session, recorded) = built.map_err(|error| RpcError::new(INTERNAL_ERROR, format!("{error:#}")))?;
        let offered = self.fs.lock().map(|fs| *fs).unwrap_or_default();
        if offered != FsCapabilities::default() {
            session.set_file_access(Arc::new(ClientFiles::new(link.clone(), offered)));
        }
        let id = recorded.unwrap_or_else(unrecorded_id);
        link.set_id(&id);
        output.set_tools(session.toolbox().tools());
        let commands = available_commands(&session);
        let slot = Slot {
            commands,
            interrupter: session.interrupter().clone(),
            session: tokio::sync::Mutex::new(session),
            output,
            cancels: AtomicU64::new(0),
        };
        if let Ok(mut slots) = self.slots.lock() {
            slots.insert(id.clone(), Arc::new(slot));
        }
        Ok(id)
    }

    /// `session/new`.
    pub fn new_session(&self, params: &Value) -> Result<Value, RpcError> {
        let id = self.build(params, None)?;
        Ok(json!({"sessionId": id}))
    }

    /// `session/load`: the session's history is sent as updates before the answer. A
    /// session open in this process already is replayed from its conversation (prompts and
    /// replies), unless a turn of it is running.
    pub fn load_session(&self, params: &Value) -> Result<Value, RpcError> {
        let id = string(params, "sessionId")?;
        if let Ok(slot) = self.slot(params) {
            if let Ok(session) = slot.session.try_lock() {
                for message in session.conversation().messages() {
                    let kind = match message.role {
                        Role::User => "user_message_chunk",
                        Role::Assistant if !message.content.is_empty() => "agent_message_chunk",
                        _ => continue,
                    };
                    let update = json!({"sessionUpdate": kind, "content": super::updates::text(&message.content)});
                    self.peer.notify("session/update", json!({"sessionId": id, "update": update}));
                }
            }
            return Ok(json!({}));
        }
        self.build(params, Some(id))?;
        Ok(json!({}))
    }

    /// Tells the client the session's slash commands (`available_commands_update`), once
    /// it has the session's id (after the answer to `session/new` or `session/load`).
    pub fn announce_commands(&self, id: &str) {
        if let Ok(slot) = self.slot(&json!({"sessionId": id})) {
            let update = json!({"sessionUpdate": "available_commands_update", "availableCommands": slot.commands});
            self.peer.notify("session/update", json!({"sessionId": id, "update": update}));
        }
    }

    /// The ticket of a prompt received now (taken by the reader, in message order).
    pub fn ticket(&self, params: &Value) -> Ticket {
        Ticket(self.slot(params).ok().map(|slot| slot.cancels.load(Ordering::SeqCst)))
    }

    /// `session/prompt`: runs the turn; the answer is its stop reason. A `session/cancel`
    /// that came after the prompt but before its turn began (`ticket`) cancels it unrun.
    pub async fn prompt(&self, params: Value, ticket: Ticket) -> Result<Value, RpcError> {
        let slot = self.slot(&params)?;
        let prompt = prompt_text(params.get("prompt"))?;
        let mut session = slot.session.lock().await;
        slot.output.set_tools(session.toolbox().tools());
        let cancel = slot.interrupter.begin();
        // After `begin`: a cancel counted later also interrupts the token just begun.
        if ticket.0.is_some_and(|taken| taken != slot.cancels.load(Ordering::SeqCst)) {
            slot.interrupter.end();
            return Ok(json!({"stopReason": "cancelled"}));
        }
        if prompt.starts_with('/') {
            // A slash command, run as the app runs it; what it shows is the reply.
            slot.output.set_commanding(true);
            session.dispatch(&prompt, cancel.clone()).await;
            slot.output.set_commanding(false);
            slot.interrupter.end();
            let stop = if cancel.is_cancelled() { "cancelled" } else { "end_turn" };
            return Ok(json!({"stopReason": stop}));
        }
        let outcome = session.turn(&prompt, cancel).await;
        slot.interrupter.end();
        match outcome.end {
            TurnEnd::Done => Ok(json!({"stopReason": "end_turn"})),
            TurnEnd::Interrupted => Ok(json!({"stopReason": "cancelled"})),
            TurnEnd::Failed => Err(RpcError::new(INTERNAL_ERROR, outcome.reply)),
        }
    }

    /// `session/cancel`: interrupts the session's running turn, if any, and the prompts
    /// received before it whose turns have not begun.
    pub fn cancel(&self, params: &Value) {
        if let Ok(slot) = self.slot(params) {
            slot.cancels.fetch_add(1, Ordering::SeqCst);
            slot.interrupter.interrupt();
        }
    }

    /// The client went away: every running turn stops.
    pub fn cancel_all(&self) {
        if let Ok(slots) = self.slots.lock() {
            for slot in slots.values() {
                slot.interrupter.interrupt();
            }
        }
    }
}

/// The session's slash commands as ACP `AvailableCommand`s: the name without `/`, the
/// description, and the usage as the input hint when the command takes arguments.
fn available_commands(session: &Session) -> Value {
    let commands: Vec<Value> = session
        .commands()
        .list()
        .map(|command| {
            let mut entry = json!({
                "name": command.name.trim_start_matches('/'),
                "description": command.description,
            });
            if !command.usage.trim().is_empty() {
                entry["input"] = json!({"hint": command.usage.trim()});
            }
            entry
        })
        .collect();
    Value::Array(commands)
}

/// The prompt's content blocks as one text: text as it is, a resource link as a Markdown
/// link, an embedded text resource as a fenced block under its URI. Images and audio are
/// not offered in `initialize`, so a client sending them gets an error.
pub fn prompt_text(blocks: Option<&Value>) -> Result<String, RpcError> {
    let blocks = blocks
        .and_then(Value::as_array)
        .ok_or_else(|| RpcError::invalid_params("invalid params: \"prompt\" must be an array of content blocks"))?;
    let mut parts = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => parts.push(string(block, "text")?.to_string()),
            Some("resource_link") => {
                let uri = string(block, "uri")?;
                let name = block.get("name").and_then(Value::as_str).unwrap_or(uri);
                parts.push(format!("[{name}]({uri})"));
            }
            Some("resource") => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                let uri = string(resource, "uri")?;
                let Some(text) = resource.get("text").and_then(Value::as_str) else {
                    return Err(RpcError::invalid_params(format!("invalid params: resource {uri} has no text")));
                };
                let fence = if text.contains("```") { "````" } else { "```" };
                parts.push(format!("{uri}:\n{fence}\n{}\n{fence}", text.strip_suffix('\n').unwrap_or(text)));
            }
            Some(other) => {
                return Err(RpcError::invalid_params(format!("invalid params: {other} content is not supported")))
            }
            None => return Err(RpcError::invalid_params("invalid params: a content block has no \"type\"")),
        }
    }
    Ok(parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_blocks_become_one_prompt() {
        let blocks = json!([
            {"type": "text", "text": "look at"},
            {"type": "resource_link", "uri": "file:///p/a.rs", "name": "a.rs"},
            {"type": "resource", "resource": {"uri": "file:///p/b.rs", "text": "fn b() {}\n"}}
        ]);
        assert_eq!(
            prompt_text(Some(&blocks)).unwrap(),
            "look at\n\n[a.rs](file:///p/a.rs)\n\nfile:///p/b.rs:\n```\nfn b() {}\n```"
        );
        let image = json!([{"type": "image", "data": "", "mimeType": "image/png"}]);
        assert!(prompt_text(Some(&image)).unwrap_err().message.contains("image"));
        assert!(prompt_text(Some(&json!("hi"))).is_err());
        assert!(prompt_text(None).is_err());
    }
}
