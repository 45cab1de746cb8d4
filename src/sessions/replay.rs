//! Reading a session file back: the conversation the model saw (rebuilt from the
//! `messages` records) and the events to show again in the front end. A line that cannot
//! be read — typically the last one, cut short by a crash — is skipped with a warning.

use crate::agent::output::{AgentEvent, TurnEnd};
use crate::protocol::{Message, ToolCall, ToolResult};
use serde_json::Value;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A session file on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionFile {
    pub id: String,
    pub path: PathBuf,
}

/// What a session file holds.
#[derive(Default)]
pub struct Replayed {
    /// The working directory the session ran in.
    pub cwd: String,
    /// The conversation as last recorded.
    pub messages: Vec<Message>,
    /// What was shown, in order, to show again.
    pub events: Vec<AgentEvent>,
    /// Turns started.
    pub turns: usize,
    /// Lines that could not be read.
    pub warnings: Vec<String>,
}

/// Reads a whole session file.
pub fn read(path: &Path) -> std::io::Result<Replayed> {
    let file = std::fs::File::open(path)?;
    let mut replayed = Replayed::default();
    let mut open_turn = false;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => line,
            Err(e) => {
                replayed.warnings.push(format!("{}: line {}: {e}", path.display(), n + 1));
                break;
            }
        };
        let record: Value = match serde_json::from_str(&line) {
            Ok(record) => record,
            Err(e) => {
                replayed.warnings.push(format!("{}: line {} skipped: {e}", path.display(), n + 1));
                continue;
            }
        };
        if let Err(message) = apply(&mut replayed, &record, &mut open_turn) {
            replayed.warnings.push(format!("{}: line {} skipped: {message}", path.display(), n + 1));
        }
    }
    if open_turn {
        // The process stopped mid-turn (a crash, kill -9): show the turn as interrupted.
        replayed.events.push(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    }
    Ok(replayed)
}

fn text(record: &Value, key: &str) -> Result<String, String> {
    record.get(key).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("no {key:?}"))
}

fn parse<T: serde::de::DeserializeOwned>(record: &Value, key: &str) -> Result<T, String> {
    serde_json::from_value(record.get(key).cloned().unwrap_or(Value::Null)).map_err(|e| format!("{key}: {e}"))
}

fn apply(replayed: &mut Replayed, record: &Value, open_turn: &mut bool) -> Result<(), String> {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
    let events = &mut replayed.events;
    match kind {
        "session" => replayed.cwd = text(record, "cwd").unwrap_or_default(),
        "prompt" => {
            replayed.turns += 1;
            *open_turn = true;
            events.push(AgentEvent::TurnStarted { prompt: text(record, "text")? });
        }
        "saying" => events.push(AgentEvent::saying(text(record, "text")?)),
        "thinking" => events.push(AgentEvent::thinking(text(record, "text")?)),
        "tool_started" => events.push(AgentEvent::ToolStarted {
            call: parse::<ToolCall>(record, "call")?,
            summary: text(record, "summary").unwrap_or_default(),
        }),
        "tool_finished" => events.push(AgentEvent::ToolFinished {
            call: parse::<ToolCall>(record, "call")?,
            result: parse::<ToolResult>(record, "result")?,
        }),
        "turn_finished" => {
            *open_turn = false;
            let end = match record.get("end").and_then(Value::as_str) {
                Some("failed") => TurnEnd::Failed,
                Some("interrupted") => TurnEnd::Interrupted,
                _ => TurnEnd::Done,
            };
            events.push(AgentEvent::TurnFinished { reply: text(record, "reply").unwrap_or_default(), end });
        }
        "error" => events.push(AgentEvent::Error(text(record, "message")?)),
        "cleared" => events.push(AgentEvent::Cleared),
        "messages" => {
            let keep = record.get("keep").and_then(Value::as_u64).ok_or("no \"keep\"")? as usize;
            let append: Vec<Message> = parse(record, "append")?;
            replayed.messages.truncate(keep);
            replayed.messages.extend(append);
        }
        _ => {}
    }
    Ok(())
}
