//! Reading a session file back: the conversation the model saw (rebuilt from the
//! `messages` records) and the events to show again in the front end — those of the last
//! `SHOWN_TURNS` turns, so a session of thousands of turns opens at once (the model still
//! gets its whole conversation). The file is read once, line by line, and events of older
//! turns are dropped as it goes. A line that cannot be read — typically the last one, cut
//! short by a crash — is skipped with a warning.

use crate::agent::output::{AgentEvent, TurnEnd};
use crate::protocol::{Message, ToolCall, ToolResult};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Turns shown again when a session is resumed.
pub const SHOWN_TURNS: usize = 100;

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
    /// What was shown in the last `SHOWN_TURNS` turns, in order, to show again.
    pub events: Vec<AgentEvent>,
    /// Turns started.
    pub turns: usize,
    /// Turns not shown again (older than the last `SHOWN_TURNS`).
    pub hidden_turns: usize,
    /// Lines that could not be read.
    pub warnings: Vec<String>,
    /// File checkpoint records (`file_before`, `file_after`, `undo`), in order, for the
    /// checkpoints plugin to rebuild its state from.
    pub files: Vec<Value>,
}

/// Record kinds that belong to the file checkpoints.
const FILE_RECORDS: [&str; 3] = ["file_before", "file_after", "undo"];

/// Events grouped by turn while reading, the oldest dropped past `SHOWN_TURNS`.
#[derive(Default)]
struct Shown {
    /// Events before the first turn (e.g. a `/clear`).
    preamble: Vec<AgentEvent>,
    turns: VecDeque<Vec<AgentEvent>>,
    hidden: usize,
    open_turn: bool,
}

impl Shown {
    fn push(&mut self, event: AgentEvent) {
        match self.turns.back_mut() {
            Some(turn) => turn.push(event),
            None => self.preamble.push(event),
        }
    }

    fn start_turn(&mut self, event: AgentEvent) {
        self.turns.push_back(vec![event]);
        self.open_turn = true;
        if self.turns.len() > SHOWN_TURNS {
            self.turns.pop_front();
            self.hidden += 1;
        }
    }

    fn finish(mut self) -> (Vec<AgentEvent>, usize) {
        if self.open_turn {
            // The process stopped mid-turn (a crash, kill -9): show the turn as interrupted.
            self.push(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
        }
        let mut events = self.preamble;
        if self.hidden > 0 {
            events.push(AgentEvent::Info(format!(
                "… {} earlier turns are in the session (and in what the model sees) but not shown here.",
                self.hidden
            )));
        }
        events.extend(self.turns.into_iter().flatten());
        (events, self.hidden)
    }
}

/// A record's kind, read from the start of its line without parsing it (the recorder
/// always writes `type` first).
fn kind_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(r#"{"type":""#)?;
    rest.split('"').next()
}

/// Reads a whole session file: a quick pass counts the turns, then records are parsed
/// except the shown events of turns too old to show.
pub fn read(path: &Path) -> std::io::Result<Replayed> {
    let lines = || -> std::io::Result<std::io::Lines<std::io::BufReader<std::fs::File>>> {
        Ok(std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?).lines())
    };
    let total_turns = lines()?.map_while(Result::ok).filter(|l| kind_of(l) == Some("prompt")).count();
    let first_shown = total_turns.saturating_sub(SHOWN_TURNS);
    let mut replayed = Replayed::default();
    let mut shown = Shown::default();
    let mut turn = 0;
    for (n, line) in lines()?.enumerate() {
        let line = match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => line,
            Err(e) => {
                replayed.warnings.push(format!("{}: line {}: {e}", path.display(), n + 1));
                break;
            }
        };
        match kind_of(&line) {
            Some("prompt") => turn += 1,
            Some("messages") | Some("session") => {}
            Some(kind) if FILE_RECORDS.contains(&kind) => {}
            // Events of a turn that will not be shown: not worth parsing.
            Some(_) if turn <= first_shown && turn > 0 => continue,
            _ => {}
        }
        if turn <= first_shown && kind_of(&line) == Some("prompt") {
            replayed.turns += 1;
            shown.hidden += 1;
            continue;
        }
        let record: Value = match serde_json::from_str(&line) {
            Ok(record) => record,
            Err(e) => {
                replayed.warnings.push(format!("{}: line {} skipped: {e}", path.display(), n + 1));
                continue;
            }
        };
        if let Err(message) = apply(&mut replayed, &mut shown, record) {
            replayed.warnings.push(format!("{}: line {} skipped: {message}", path.display(), n + 1));
        }
    }
    let (events, hidden) = shown.finish();
    replayed.events = events;
    replayed.hidden_turns = hidden;
    Ok(replayed)
}

fn take_text(record: &mut Value, key: &str) -> Result<String, String> {
    match record.get_mut(key).map(Value::take) {
        Some(Value::String(text)) => Ok(text),
        _ => Err(format!("no {key:?}")),
    }
}

fn parse<T: serde::de::DeserializeOwned>(record: &mut Value, key: &str) -> Result<T, String> {
    serde_json::from_value(record.get_mut(key).map(Value::take).unwrap_or(Value::Null))
        .map_err(|e| format!("{key}: {e}"))
}

fn apply(replayed: &mut Replayed, shown: &mut Shown, mut record: Value) -> Result<(), String> {
    let kind = record.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
    match kind.as_str() {
        "session" => replayed.cwd = take_text(&mut record, "cwd").unwrap_or_default(),
        "prompt" => {
            replayed.turns += 1;
            shown.start_turn(AgentEvent::TurnStarted { prompt: take_text(&mut record, "text")? });
        }
        "saying" => shown.push(AgentEvent::saying(take_text(&mut record, "text")?)),
        "thinking" => shown.push(AgentEvent::thinking(take_text(&mut record, "text")?)),
        "tool_started" => shown.push(AgentEvent::ToolStarted {
            call: parse::<ToolCall>(&mut record, "call")?,
            summary: take_text(&mut record, "summary").unwrap_or_default(),
        }),
        "tool_finished" => shown.push(AgentEvent::ToolFinished {
            call: parse::<ToolCall>(&mut record, "call")?,
            result: parse::<ToolResult>(&mut record, "result")?,
        }),
        "turn_finished" => {
            shown.open_turn = false;
            let end = match record.get("end").and_then(Value::as_str) {
                Some("failed") => TurnEnd::Failed,
                Some("interrupted") => TurnEnd::Interrupted,
                _ => TurnEnd::Done,
            };
            shown.push(AgentEvent::TurnFinished { reply: take_text(&mut record, "reply").unwrap_or_default(), end });
        }
        "error" => shown.push(AgentEvent::Error(take_text(&mut record, "message")?)),
        "cleared" => shown.push(AgentEvent::Cleared),
        kind if FILE_RECORDS.contains(&kind) => replayed.files.push(record),
        "messages" => {
            let keep = record.get("keep").and_then(Value::as_u64).ok_or("no \"keep\"")? as usize;
            let append: Vec<Message> = parse(&mut record, "append")?;
            replayed.messages.truncate(keep);
            replayed.messages.extend(append);
        }
        _ => {}
    }
    Ok(())
}
