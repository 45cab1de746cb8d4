//! Reading a session file back: the conversation the model saw (rebuilt from the
//! `messages` records) and the events to show again in the front end — those of the last
//! `SHOWN_TURNS` turns, so a session of thousands of turns opens at once (the model still
//! gets its whole conversation). The file is read once, line by line, and events of older
//! turns are dropped unparsed as it goes. A line that cannot be read — typically the last one, cut
//! short by a crash — is skipped with a warning. A file past `open::READ_LIMIT` is refused.

use super::open::READ_LIMIT;
use crate::agent::output::{AgentEvent, TurnEnd};
use crate::protocol::mode::Mode;
use crate::protocol::{Message, ToolCall, ToolResult};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, Read, Seek};
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
    /// Turns that remain after the rewinds (`/rewind`): what the session holds now.
    pub kept_turns: usize,
    /// The turns that remain, by their number among the turns started (1 for the first
    /// prompt recorded), oldest first: what `/rewind` can still take away, numbered as the
    /// file checkpoints number their turns. A `/rewind` takes the last ones, `/clear` all.
    pub live_turns: Vec<usize>,
    /// Turns not shown again (older than the last `SHOWN_TURNS`).
    pub hidden_turns: usize,
    /// Lines that could not be read.
    pub warnings: Vec<String>,
    /// File checkpoint records (`file_before`, `file_after`, `undo`), in order, for the
    /// checkpoints plugin to rebuild its state from.
    pub files: Vec<Value>,
    /// The mode the session was last switched to (`/mode`, Shift+Tab), if it ever was.
    pub mode: Option<Mode>,
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

/// A line kept to parse once the whole file is read: its number and text.
type Line = (usize, String);

/// Reads a whole session file in one pass. The conversation (`messages`) and file
/// checkpoint records are applied as they come; the shown events are kept as raw lines for
/// the last `SHOWN_TURNS` turns only (older ones are dropped as newer turns arrive) and
/// parsed at the end, so an old turn's tool output is never parsed.
pub fn read(path: &Path) -> std::io::Result<Replayed> {
    read_from(&super::open::read(path)?, path)
}

/// Reads a session from `file` (opened by `open::resume` or `open::read`: a regular file,
/// not through a link), named `path` in warnings. A file longer than `open::READ_LIMIT` is
/// refused: its conversation could not be rebuilt from the part that fits.
pub fn read_from(file: &std::fs::File, path: &Path) -> std::io::Result<Replayed> {
    let len = file.metadata()?.len();
    if len > READ_LIMIT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is {} MB, past the {} MB elelem reads back", path.display(), len >> 20, READ_LIMIT >> 20),
        ));
    }
    // From the start, wherever the descriptor's offset is (`open::resume` may have ended a
    // cut last line, which moved it to the end).
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file.take(READ_LIMIT));
    let mut replayed = Replayed::default();
    let mut preamble: Vec<Line> = Vec::new();
    let mut turns: VecDeque<Vec<Line>> = VecDeque::new();
    let mut hidden: usize = 0;
    let mut shown = Shown::default();
    // Only the newest plan is shown again, after the turns, whichever turn set it.
    let mut plan: Option<Line> = None;
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => n += 1,
            Err(e) => {
                replayed.warnings.push(format!("{}: line {}: {e}", path.display(), n + 1));
                break;
            }
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            replayed.warnings.push(format!("{}: line {n} skipped: not UTF-8", path.display()));
            continue;
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        match kind_of(line) {
            Some("messages" | "session" | "mode") => parse_and_apply(&mut replayed, &mut shown, path, (n, line)),
            Some("rewound") => {
                // The rewound turns are not shown again (the conversation lost them too).
                let rewound = serde_json::from_str::<Value>(line).ok().and_then(|r| r.get("turns")?.as_u64());
                let Some(rewound) = rewound else {
                    replayed.warnings.push(format!("{}: line {n} skipped: no \"turns\"", path.display()));
                    continue;
                };
                // Never more than the turns kept (a hostile count would otherwise loop).
                let rewound = usize::try_from(rewound).unwrap_or(usize::MAX).min(replayed.kept_turns);
                replayed.kept_turns -= rewound;
                replayed.live_turns.truncate(replayed.live_turns.len().saturating_sub(rewound));
                for _ in 0..rewound {
                    if turns.pop_back().is_none() {
                        hidden = hidden.saturating_sub(1);
                    }
                }
            }
            Some(kind) if FILE_RECORDS.contains(&kind) => parse_and_apply(&mut replayed, &mut shown, path, (n, line)),
            Some("plan") => plan = Some((n, line.to_string())),
            Some("prompt") => {
                replayed.turns += 1;
                replayed.kept_turns += 1;
                replayed.live_turns.push(replayed.turns);
                turns.push_back(vec![(n, line.to_string())]);
                if turns.len() > SHOWN_TURNS {
                    turns.pop_front();
                    hidden += 1;
                }
            }
            Some("cleared") => {
                // The conversation holds no turn after a `/clear` (still shown, as it was).
                replayed.live_turns.clear();
                turns.back_mut().unwrap_or(&mut preamble).push((n, line.to_string()));
            }
            _ => turns.back_mut().unwrap_or(&mut preamble).push((n, line.to_string())),
        }
    }
    shown.hidden = hidden;
    for (n, line) in preamble.into_iter().chain(turns.into_iter().flatten()).chain(plan) {
        parse_and_apply(&mut replayed, &mut shown, path, (n, &line));
    }
    let (events, hidden) = shown.finish();
    replayed.events = events;
    replayed.hidden_turns = hidden;
    Ok(replayed)
}

/// Parses one line and applies it; a line that cannot be used becomes a warning.
fn parse_and_apply(replayed: &mut Replayed, shown: &mut Shown, path: &Path, (n, line): (usize, &str)) {
    let problem = match serde_json::from_str::<Value>(line) {
        Ok(record) => apply(replayed, shown, record).err(),
        Err(e) => Some(e.to_string()),
    };
    if let Some(problem) = problem {
        replayed.warnings.push(format!("{}: line {n} skipped: {problem}", path.display()));
    }
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
            shown.start_turn(AgentEvent::TurnStarted { prompt: take_text(&mut record, "text")? });
        }
        "saying" => shown.push(AgentEvent::saying(take_text(&mut record, "text")?)),
        "thinking" => shown.push(AgentEvent::thinking(take_text(&mut record, "text")?)),
        "tool_started" | "tool_finished" => shown.push(tool_event(&kind, &mut record)?),
        "sub_agent" => {
            let call_id = take_text(&mut record, "call_id")?;
            let mut event = record.get_mut("event").map(Value::take).unwrap_or_default();
            let kind = event.get("type").and_then(Value::as_str).unwrap_or_default().to_string();
            let event = match kind.as_str() {
                "tool_started" | "tool_finished" => tool_event(&kind, &mut event)?,
                "error" => AgentEvent::Error(take_text(&mut event, "message")?),
                _ => return Err(format!("a sub-agent's {kind:?} is not shown")),
            };
            shown.push(AgentEvent::SubAgent { call_id, event: Box::new(event) });
        }
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
        "plan" => shown.push(AgentEvent::Plan(parse(&mut record, "plan")?)),
        "mode" => {
            let word = take_text(&mut record, "mode")?;
            replayed.mode = Some(Mode::parse(&word).ok_or_else(|| format!("{word:?} is not a mode"))?);
        }
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

/// A `tool_started` or `tool_finished` record (the parent's or a sub-agent's) as its event.
fn tool_event(kind: &str, record: &mut Value) -> Result<AgentEvent, String> {
    let call = parse::<ToolCall>(record, "call")?;
    Ok(match kind {
        "tool_started" => AgentEvent::ToolStarted { call, summary: take_text(record, "summary").unwrap_or_default() },
        _ => AgentEvent::ToolFinished { call, result: parse::<ToolResult>(record, "result")? },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Write as _;

    /// A session of `turns` turns, each a prompt, a tool call and a reply, plus a file
    /// checkpoint record in the first turn; `tail` is appended raw.
    fn session(turns: usize, tail: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        let mut line = |v: Value| writeln!(file, "{v}").unwrap();
        line(json!({"type": "session", "version": 1, "id": "t", "cwd": "/p", "started": 0}));
        for i in 0..turns {
            line(json!({"type": "prompt", "text": format!("q{i}")}));
            line(json!({"type": "messages", "keep": 2 * i, "append": [{"role": "user", "content": format!("q{i}")}]}));
            if i == 0 {
                line(json!({"type": "file_before", "turn": 1, "path": "/p/a", "missing": true}));
            }
            let call = json!({"id": format!("t{i}"), "name": "look", "arguments": {}});
            line(json!({"type": "tool_started", "call": call, "summary": ""}));
            line(json!({"type": "tool_finished", "call": call, "result": {"content": "out", "ok": true}}));
            line(json!({"type": "turn_finished", "reply": format!("r{i}"), "end": "done"}));
            line(
                json!({"type": "messages", "keep": 2 * i + 1, "append": [{"role": "assistant", "content": format!("r{i}")}]}),
            );
        }
        write!(file, "{tail}").unwrap();
        file
    }

    #[test]
    fn only_the_last_turns_are_shown_but_the_whole_conversation_comes_back() {
        let file = session(SHOWN_TURNS + 50, "");
        let replayed = read(file.path()).unwrap();
        assert_eq!(replayed.cwd, "/p");
        assert_eq!(replayed.turns, SHOWN_TURNS + 50);
        assert_eq!(replayed.hidden_turns, 50);
        assert_eq!(replayed.messages.len(), 2 * (SHOWN_TURNS + 50));
        assert_eq!(replayed.files.len(), 1, "checkpoint records of hidden turns are kept");
        assert!(matches!(&replayed.events[0], AgentEvent::Info(text) if text.starts_with("… 50 earlier turns")));
        assert_eq!(replayed.events[1], AgentEvent::TurnStarted { prompt: "q50".into() });
        let started = replayed.events.iter().filter(|e| matches!(e, AgentEvent::TurnStarted { .. })).count();
        assert_eq!(started, SHOWN_TURNS);
        assert!(replayed.warnings.is_empty(), "{:?}", replayed.warnings);
    }

    #[test]
    fn the_newest_mode_comes_back_sub_agent_calls_are_shown_and_rewound_turns_are_not() {
        let call = json!({"id": "c9", "name": "read", "arguments": {}});
        let tail = [
            json!({"type": "mode", "mode": "plan"}),
            json!({"type": "prompt", "text": "q2"}),
            json!({"type": "sub_agent", "call_id": "t9", "event": {"type": "tool_started", "call": call, "summary": "x"}}),
            json!({"type": "mode", "mode": "edits"}),
            json!({"type": "turn_finished", "reply": "r2", "end": "done"}),
            json!({"type": "prompt", "text": "q3"}),
            json!({"type": "turn_finished", "reply": "r3", "end": "done"}),
            json!({"type": "rewound", "turns": 2}),
            json!({"type": "sub_agent", "call_id": "t9", "event": {"type": "usage"}}),
        ];
        let tail: String = tail.iter().map(|v| format!("{v}\n")).collect();
        let replayed = read(session(2, &tail).path()).unwrap();
        assert_eq!(replayed.mode, Some(Mode::Edits));
        assert_eq!((replayed.turns, replayed.kept_turns), (4, 2), "two of four turns were rewound");
        assert_eq!(replayed.live_turns, vec![1, 2], "the first two remain, numbered as recorded");
        let prompts: Vec<_> = replayed.events.iter().filter(|e| matches!(e, AgentEvent::TurnStarted { .. })).collect();
        assert_eq!(prompts.len(), 2, "q2 and q3 were rewound: {prompts:?}");
        assert_eq!(replayed.warnings.len(), 1, "the usage is not shown: {:?}", replayed.warnings);

        let tail = [
            json!({"type": "prompt", "text": "q2"}),
            json!({"type": "sub_agent", "call_id": "t9", "event": {"type": "tool_started", "call": call, "summary": "x"}}),
        ];
        let tail: String = tail.iter().map(|v| format!("{v}\n")).collect();
        let replayed = read(session(1, &tail).path()).unwrap();
        assert_eq!(replayed.mode, None);
        let nested = AgentEvent::ToolStarted { call: serde_json::from_value(call).unwrap(), summary: "x".into() };
        assert!(replayed.events.contains(&AgentEvent::SubAgent { call_id: "t9".into(), event: Box::new(nested) }));
    }

    #[test]
    fn a_rewind_of_more_turns_than_there_are_keeps_none_at_once() {
        let tail = format!("{}\n", json!({"type": "rewound", "turns": u64::MAX}));
        let replayed = read(session(3, &tail).path()).unwrap();
        assert_eq!((replayed.turns, replayed.kept_turns), (3, 0));
        assert!(!replayed.events.iter().any(|e| matches!(e, AgentEvent::TurnStarted { .. })));
    }

    #[test]
    fn a_cut_last_line_is_a_warning_and_an_unfinished_turn_shows_as_interrupted() {
        let file = session(2, "{\"type\":\"prompt\",\"text\":\"q2\"}\n{\"type\":\"saying\",\"te");
        let replayed = read(file.path()).unwrap();
        assert_eq!(replayed.turns, 3);
        assert_eq!(replayed.warnings.len(), 1, "{:?}", replayed.warnings);
        assert!(replayed.warnings[0].contains("line 16 skipped"), "{:?}", replayed.warnings);
        assert_eq!(
            replayed.events.last(),
            Some(&AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted })
        );
    }
}
