//! The `Recorder`: an `Output` in front of the real one that appends every event of a
//! session to its JSONL file, flushed per record. Streamed text is merged and written when
//! another event arrives, or once it passes `DELTA_FLUSH` bytes and its oldest part has
//! waited `DELTA_WAIT` (or it passes `DELTA_MAX`), so a crash or `kill -9` mid-reply loses
//! at most about a second of it, and a fast stream costs a write a second, not one per
//! delta. The conversation is recorded as it changes: the part kept since the last record
//! plus the messages appended.
//!
//! Nothing here holds a long reply again: a record is serialised straight to the file in
//! pieces (`json_lines`, never built whole in memory), and the conversation as last
//! recorded is remembered as a digest for each long message (`Kept`), not a second copy.
//!
//! A failed write (disk full, a file-size limit) stops the recording, and the user is told
//! once, with a `Warning` through the output; the conversation goes on. Only this process
//! writes the file (`open` locks it), so records of two processes never interleave.

use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::json_lines::{write_json_string, ChunkedJson};
use crate::protocol::Message;
use serde::Serialize;
use serde_json::{json, Value};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Streamed text is written in pieces of at least this many bytes,
const DELTA_FLUSH: usize = 1024;
/// once its oldest part waited this long,
const DELTA_WAIT: Duration = Duration::from_secs(1);
/// or at once past this many bytes.
const DELTA_MAX: usize = 16 * 1024;
/// A recorded message with more text than this is remembered by its digest.
const KEPT_WHOLE: usize = 16 * 1024;

/// Streamed text of one kind not yet written, and when the first of it came.
struct Pending {
    kind: &'static str,
    text: String,
    since: Instant,
}

struct State {
    file: std::fs::File,
    /// Merged deltas not yet written.
    pending: Option<Pending>,
    /// The conversation as last recorded.
    messages: Vec<Kept>,
    /// Set after a write failed: recording stops, the session goes on.
    broken: bool,
    /// Why the recording stopped, until the user has been told (once).
    untold: Option<String>,
    /// The piece of a record not yet written, reused (at most about `json_lines::WRITE_CHUNK`).
    line: Vec<u8>,
}

/// A message as last recorded: a short one whole (compared exactly), a long one (a long
/// reply) by the length of its text and a 64-bit digest of it, so the recorder never holds
/// a second copy of a long reply.
#[derive(Debug, PartialEq)]
enum Kept {
    Whole(Box<Message>),
    Digest { len: usize, hash: u64 },
}

impl Kept {
    fn of(message: &Message) -> Kept {
        let len = text_len(message);
        if len <= KEPT_WHOLE {
            return Kept::Whole(Box::new(message.clone()));
        }
        Kept::Digest { len, hash: digest(message) }
    }

    /// Whether `message` is the one recorded. A long one is checked on each context
    /// snapshot (every tool result), so the length decides first and the digest reads its
    /// text as it is, not serialised.
    fn is(&self, message: &Message) -> bool {
        match self {
            Kept::Whole(kept) => **kept == *message,
            Kept::Digest { len, hash } => text_len(message) == *len && digest(message) == *hash,
        }
    }
}

/// A digest of everything a message holds: its texts hashed as they are, the small rest
/// (ids, tool calls, a kept tool result, images by reference) as JSON.
fn digest(message: &Message) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    message.role.as_str().hash(&mut hasher);
    message.content.hash(&mut hasher);
    message.thinking.len().hash(&mut hasher);
    for block in &message.thinking {
        (&block.text, &block.signature, &block.redacted).hash(&mut hasher);
    }
    let rest = (&message.tool_calls, &message.tool_call_id, &message.name, &message.result, &message.images);
    // Writing into a hasher cannot fail; a message that cannot be serialised is one the
    // file cannot hold either.
    let _ = serde_json::to_writer(HashWriter(&mut hasher), &rest);
    hasher.finish()
}

/// The text a message holds (its content and thinking), which decides how it is kept.
fn text_len(message: &Message) -> usize {
    message.content.len() + message.thinking.iter().map(|t| t.text.len()).sum::<usize>()
}

/// Hashes what is written into it.
struct HashWriter<'a>(&'a mut std::hash::DefaultHasher);

impl Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
        let messages = messages.iter().map(Kept::of).collect();
        let state = State { file, pending: None, messages, broken: false, untold: None, line: Vec::new() };
        Recorder { inner, state: Mutex::new(state) }
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
        let untold = state.untold.take();
        drop(state);
        self.tell(untold);
    }

    /// Tells the user, once, that the session is no longer recorded.
    fn tell(&self, untold: Option<String>) {
        if let Some(error) = untold {
            self.inner.emit(AgentEvent::Warning(format!(
                "this session is no longer being recorded: writing its file failed ({error}); \
                 the conversation goes on, but what follows cannot be resumed"
            )));
        }
    }
}

impl State {
    fn write_line(&mut self, record: &impl Serialize) {
        if self.broken {
            return;
        }
        self.line.clear();
        let mut file = &self.file;
        let mut out = ChunkedJson::new(&mut self.line, &mut file, None);
        let written = serde_json::to_writer(&mut out, record).map_err(std::io::Error::from);
        if let Err(error) = written.and_then(|_| out.write_all(b"\n")).and_then(|_| out.finish()) {
            // A record cut short by a failed write ends the recording (the file keeps what
            // came before it).
            self.stop(error);
        }
        self.line.clear();
    }

    /// Writes the record `head` + `text` as a JSON string + `tail` (a record whose one long
    /// field is text: `json_lines::write_json_string` escapes it several times faster than
    /// serde_json).
    fn write_text_line(&mut self, head: &str, text: &str, tail: &str) {
        if self.broken {
            return;
        }
        self.line.clear();
        let mut file = &self.file;
        let mut out = ChunkedJson::new(&mut self.line, &mut file, None);
        let written = out
            .write_all(head.as_bytes())
            .and_then(|_| write_json_string(&mut out, text))
            .and_then(|_| out.write_all(tail.as_bytes()))
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.finish());
        if let Err(error) = written {
            self.stop(error);
        }
        self.line.clear();
    }

    /// Stops recording after a failed write (disk full, a file-size limit), to be told.
    fn stop(&mut self, error: std::io::Error) {
        self.broken = true;
        self.untold = Some(error.to_string());
    }

    fn flush_pending(&mut self) {
        if let Some(Pending { kind, text, .. }) = self.pending.take() {
            self.write_text_line(&format!(r#"{{"type":"{kind}","text":"#), &text, "}");
        }
    }

    fn delta(&mut self, kind: &'static str, text: &str, now: Instant) {
        match &mut self.pending {
            Some(pending) if pending.kind == kind => pending.text.push_str(text),
            _ => {
                self.flush_pending();
                self.pending = Some(Pending { kind, text: text.to_string(), since: now });
            }
        }
        let due = |p: &Pending| {
            let waited = now.saturating_duration_since(p.since) >= DELTA_WAIT;
            p.text.len() >= DELTA_MAX || (p.text.len() >= DELTA_FLUSH && waited)
        };
        if self.pending.as_ref().is_some_and(due) {
            self.flush_pending();
        }
    }

    /// Records how the conversation changed: how many recorded messages are kept, and the
    /// messages after them.
    fn messages(&mut self, now: &[Message]) {
        let keep = self.messages.iter().zip(now).take_while(|(kept, message)| kept.is(message)).count();
        if keep == self.messages.len() && keep == now.len() {
            return;
        }
        let append = &now[keep..];
        self.flush_pending();
        self.write_line(&Messages { kind: "messages", keep, append });
        self.messages.truncate(keep);
        self.messages.extend(append.iter().map(Kept::of));
    }
}

/// The conversation's change, written without building a JSON tree (it can hold a whole
/// long reply).
#[derive(Serialize)]
struct Messages<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    keep: usize,
    append: &'a [Message],
}

/// The record of what a sub-agent showed that is shown again on resume (its calls and
/// errors), in the shape of the parent's own records; `None` for the rest (its usage is in
/// the call's result, its warnings were for the moment).
fn sub_record(event: &AgentEvent) -> Option<Value> {
    Some(match event {
        AgentEvent::ToolStarted { call, summary } => json!({"type": "tool_started", "call": call, "summary": summary}),
        AgentEvent::ToolFinished { call, result } => json!({"type": "tool_finished", "call": call, "result": result}),
        AgentEvent::Error(message) => json!({"type": "error", "message": message}),
        _ => return None,
    })
}

fn end_name(end: TurnEnd) -> &'static str {
    match end {
        TurnEnd::Done => "done",
        TurnEnd::Failed => "failed",
        TurnEnd::Interrupted => "interrupted",
    }
}

impl Output for Recorder {
    fn emit(&self, event: AgentEvent) {
        let mut untold = None;
        if let Ok(mut state) = self.state.lock() {
            match &event {
                AgentEvent::Delta(Delta::Saying(text)) => state.delta("saying", text, Instant::now()),
                AgentEvent::Delta(Delta::Thinking(text)) => state.delta("thinking", text, Instant::now()),
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
                    state.write_line(&json!({"type": "usage", "input_tokens": usage.input_tokens,
                        "output_tokens": usage.output_tokens, "cache_read_tokens": usage.cache_read_tokens,
                        "cache_write_tokens": usage.cache_write_tokens}));
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
                    let tail = format!(r#","end":"{}"}}"#, end_name(*end));
                    state.write_text_line(r#"{"type":"turn_finished","reply":"#, reply, &tail);
                }
                AgentEvent::Cleared => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "cleared"}));
                }
                AgentEvent::Plan(plan) => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "plan", "plan": plan}));
                }
                AgentEvent::Mode(mode) => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "mode", "mode": mode.word()}));
                }
                AgentEvent::Rewound { turns } => {
                    state.flush_pending();
                    state.write_line(&json!({"type": "rewound", "turns": turns}));
                }
                AgentEvent::SubAgent { call_id, event } => {
                    if let Some(record) = sub_record(event) {
                        state.flush_pending();
                        state.write_line(&json!({"type": "sub_agent", "call_id": call_id, "event": record}));
                    }
                }
                _ => {}
            }
            untold = state.untold.take();
        }
        self.tell(untold);
        self.inner.emit(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::output::ContextSnapshot;

    struct Nothing;
    impl Output for Nothing {
        fn emit(&self, _: AgentEvent) {}
    }

    fn context(messages: &[Message]) -> AgentEvent {
        AgentEvent::Context(ContextSnapshot { messages: messages.to_vec(), ..Default::default() })
    }

    /// A recorder of a new session file in `dir`, and the file.
    fn recorder(dir: &std::path::Path) -> (Recorder, std::path::PathBuf) {
        let path = dir.join("s.jsonl");
        (Recorder::new(Arc::new(Nothing), std::fs::File::create(&path).unwrap(), Vec::new()), path)
    }

    fn records(path: &std::path::Path) -> Vec<Value> {
        std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn streamed_text_is_written_once_a_second_or_past_the_largest_piece() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, path) = recorder(dir.path());
        let t0 = Instant::now();
        let mut state = recorder.state.lock().unwrap();
        let piece = "x".repeat(2 * DELTA_FLUSH);
        // A fast stream: pieces past DELTA_FLUSH wait until the first of them is a second old.
        state.delta("saying", &piece, t0);
        state.delta("saying", &piece, t0 + Duration::from_millis(500));
        assert!(records(&path).is_empty(), "written before a second passed");
        state.delta("saying", &piece, t0 + DELTA_WAIT);
        assert_eq!(records(&path).len(), 1);
        assert_eq!(records(&path)[0]["text"].as_str().map(str::len), Some(3 * piece.len()));
        // Less than DELTA_FLUSH waits however long it takes.
        state.delta("saying", "short", t0 + Duration::from_secs(60));
        state.delta("saying", "er", t0 + Duration::from_secs(120));
        assert_eq!(records(&path).len(), 1);
        // Past DELTA_MAX it is written at once; another kind writes what was pending.
        state.delta("saying", &"y".repeat(DELTA_MAX), t0 + Duration::from_secs(120));
        assert_eq!(records(&path).len(), 2);
        state.delta("saying", "z", t0 + Duration::from_secs(120));
        state.delta("thinking", "t", t0 + Duration::from_secs(120));
        assert_eq!(records(&path)[2]["text"], "z");
    }

    #[test]
    fn a_long_reply_is_kept_as_a_digest_and_a_change_to_it_is_still_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, path) = recorder(dir.path());
        let long = "a line of a long reply\n".repeat(10_000);
        let mut messages = vec![Message::user("write a lot"), Message::assistant(long.clone())];
        recorder.emit(context(&messages));
        {
            let state = recorder.state.lock().unwrap();
            assert!(matches!(state.messages[0], Kept::Whole(_)));
            assert!(matches!(state.messages[1], Kept::Digest { .. }), "the long reply is not held twice");
        }
        // Unchanged: nothing recorded. One character changed (same length): recorded.
        recorder.emit(context(&messages));
        messages[1].content.replace_range(5..6, "X");
        recorder.emit(context(&messages));
        let records = records(&path);
        assert_eq!(records.len(), 2, "{:?}", records.iter().map(|r| &r["keep"]).collect::<Vec<_>>());
        assert_eq!(records[0]["keep"], 0);
        assert_eq!(records[0]["append"][1]["content"], long.as_str());
        assert_eq!(records[1]["keep"], 1);
        assert_eq!(records[1]["append"][0]["content"], messages[1].content.as_str());
    }

    #[test]
    fn a_long_message_changed_in_any_part_is_recorded_again() {
        use crate::protocol::{ThinkingBlock, ToolCall};
        let long = "a line of a long reply\n".repeat(1_000);
        let mut message = Message::assistant(long);
        message.thinking = vec![ThinkingBlock { text: "hmm".into(), signature: Some("sig".into()), redacted: None }];
        message.tool_calls = vec![ToolCall { id: "c1".into(), name: "read".into(), arguments: json!({"path": "a"}) }];
        let kept = Kept::of(&message);
        assert!(matches!(kept, Kept::Digest { .. }));
        assert!(kept.is(&message.clone()));
        let changes: [fn(&mut Message); 5] = [
            |m| m.content.replace_range(0..1, "b"),
            |m| m.content.push('!'),
            |m| m.thinking[0].text = "hmn".into(),
            |m| m.thinking[0].signature = Some("sih".into()),
            |m| m.tool_calls[0].arguments = json!({"path": "b"}),
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut changed = message.clone();
            change(&mut changed);
            assert!(!kept.is(&changed), "change {i} went unseen");
        }
    }

    /// Keeps the warnings it is shown.
    #[derive(Default)]
    struct Warnings(Mutex<Vec<String>>);
    impl Output for Warnings {
        fn emit(&self, event: AgentEvent) {
            if let AgentEvent::Warning(text) = event {
                self.0.lock().unwrap().push(text);
            }
        }
    }

    #[test]
    fn a_full_disk_is_told_once_and_the_events_still_go_on() {
        let warnings = Arc::new(Warnings::default());
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let recorder = Recorder::new(warnings.clone(), full, Vec::new());
        recorder.header("id", "/p");
        for i in 0..3 {
            recorder.emit(AgentEvent::TurnStarted { prompt: format!("q{i}") });
            recorder.emit(AgentEvent::TurnFinished { reply: "r".into(), end: TurnEnd::Done });
        }
        let warnings = warnings.0.lock().unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("no longer being recorded") && warnings[0].contains("No space left"),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_record_longer_than_a_write_chunk_is_one_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let (recorder, path) = recorder(dir.path());
        let reply = "\"quoted\" and\ttabbed ✓ ".repeat(20_000);
        let chunk = crate::json_lines::WRITE_CHUNK;
        assert!(reply.len() > 4 * chunk);
        recorder.emit(AgentEvent::TurnFinished { reply: reply.clone(), end: TurnEnd::Done });
        assert!(recorder.state.lock().unwrap().line.capacity() <= 2 * chunk);
        let records = records(&path);
        assert_eq!(records, vec![json!({"type": "turn_finished", "reply": reply, "end": "done"})]);
    }
}
