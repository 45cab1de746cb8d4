//! `elelem ask [PROMPT]`: one turn without a prompt. The final reply goes to stdout and
//! progress to stderr; with `--json` every event is one JSON object per line on stdout.
//! With `--json-schema` the reply must fit a JSON Schema (`schema.rs`): stdout holds only
//! its value (with `--json`, a `{"type":"json","value":…}` line).

pub mod schema;

use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::json_lines::{self, ChunkedJson};
use serde::Serialize;
use serde_json::json;
use std::io::Write;
use std::sync::Mutex;

/// The escaping that makes a JSON line safe for a terminal without losing anything.
const TERMINAL_SAFE: json_lines::Escape = crate::sanitize::escape_json_line;

/// Writes events as JSON lines, merging consecutive text deltas of the same kind into one
/// line so the output does not depend on how the provider chunked its stream. The merged
/// line is written as the text arrives (each delta escaped and written out at once, a long
/// one in `json_lines`'s `WRITE_CHUNK` writes), so a long reply is never held here and a
/// reader sees the text while the model writes it.
#[derive(Default)]
pub struct JsonOutput {
    state: Mutex<Lines>,
}

/// What `JsonOutput` is writing.
struct Lines {
    /// The kind of the text line that is open (its start written or buffered), if any.
    open: Option<&'static str>,
    /// Bytes not yet written out.
    buffer: Vec<u8>,
    /// Where the lines go: stdout.
    out: Box<dyn Write + Send>,
    /// The command is done: nothing more is written.
    finished: bool,
    /// A provider's failure said as a warning, held until the next event: when the turn's
    /// error says it again, only the error line is written (one error line a failure).
    held: Option<String>,
}

impl Default for Lines {
    fn default() -> Self {
        Lines { open: None, buffer: Vec::new(), out: Box::new(std::io::stdout()), finished: false, held: None }
    }
}

impl Lines {
    /// Writes out what is buffered, and flushes.
    fn write_out(&mut self) {
        let _ = json_lines::write_out(&mut self.buffer, &mut self.out);
    }

    /// Ends the open text line, if any.
    fn close(&mut self) {
        if self.open.take().is_some() {
            self.buffer.extend_from_slice(b"\"}\n");
            self.write_out();
        }
    }

    /// One whole line, serialised straight into the buffer (a long reply is not built
    /// whole as a string first).
    fn line(&mut self, value: &impl Serialize) {
        self.close();
        let mut line = ChunkedJson::new(&mut self.buffer, &mut self.out, Some(TERMINAL_SAFE));
        if serde_json::to_writer(&mut line, value).is_ok() {
            let _ = line.write_all(b"\n");
        }
        let _ = line.finish();
    }

    /// Appends `delta` to the open text line of `kind`, opening it (and closing another
    /// kind's) as needed. The line reads as `{"type":kind,"text":all the deltas}`.
    fn text(&mut self, kind: &'static str, delta: &str) {
        if self.open != Some(kind) {
            self.close();
            // The line without its closing `"}`.
            self.buffer.extend_from_slice(format!(r#"{{"type":"{kind}","text":""#).as_bytes());
            self.open = Some(kind);
        }
        // Escaped for JSON piece by piece, then for the terminal, and written out now: a
        // reader of the stream sees the text as it arrives (the provider's pacing already
        // merges it to at most one delta per interval), not when the line ends.
        let mut line = ChunkedJson::new(&mut self.buffer, &mut self.out, Some(TERMINAL_SAFE));
        let _ = json_lines::write_json_string_contents(&mut line, delta);
        let _ = line.finish();
    }

    /// The reply line, `{"type":"reply","text":reply}` (and `"interrupted":true`), its text
    /// escaped by `json_lines` (several times faster than serde_json for a long reply).
    fn reply(&mut self, reply: &str, interrupted: bool) {
        self.close();
        let mut line = ChunkedJson::new(&mut self.buffer, &mut self.out, Some(TERMINAL_SAFE));
        let tail: &[u8] = if interrupted { b",\"interrupted\":true}\n" } else { b"}\n" };
        let _ = line
            .write_all(br#"{"type":"reply","text":"#)
            .and_then(|_| json_lines::write_json_string(&mut line, reply))
            .and_then(|_| line.write_all(tail));
        let _ = line.finish();
    }
}

impl JsonOutput {
    /// Lines written to `out` instead of stdout.
    pub fn to(out: Box<dyn Write + Send>) -> Self {
        JsonOutput { state: Mutex::new(Lines { out, ..Lines::default() }) }
    }

    fn with(&self, f: impl FnOnce(&mut Lines)) {
        if let Ok(mut lines) = self.state.lock() {
            if !lines.finished {
                f(&mut lines);
            }
        }
    }

    /// Ends the output once the turn is over: the line it ended with stays the last one
    /// (a background task, an MCP server's follower say, reporting late writes nothing).
    pub fn finish(&self) {
        self.with(|lines| {
            lines.close();
            lines.finished = true;
        });
    }

    fn line(&self, value: &impl Serialize) {
        self.with(|lines| lines.line(value));
    }

    /// The `--json-schema` reply's value, `{"type":"json","value":value}`, after its turn's
    /// lines.
    pub fn value(&self, value: &serde_json::Value) {
        self.line(&json!({"type": "json", "value": value}));
    }

    /// An error of the command itself (not of a turn), `{"type":"error","message":…}`.
    pub fn error(&self, message: &str) {
        self.line(&json!({"type": "error", "message": message}));
    }

    /// Ends a text line left open (the process is about to stop before the turn ends), so
    /// stdout ends with a whole JSON line.
    pub fn close(&self) {
        self.with(Lines::close);
    }
}

impl Output for JsonOutput {
    fn emit(&self, event: AgentEvent) {
        let held = self.state.lock().ok().and_then(|mut lines| lines.held.take());
        if let Some(held) = held {
            if !matches!(&event, AgentEvent::Error(message) if restates(&held, message)) {
                self.line(&json!({"type": "warning", "message": held}));
            }
        }
        let event = match event {
            AgentEvent::Warning(text) if is_provider_failure(&text) => {
                return self.with(|lines| lines.held = Some(text));
            }
            event => event,
        };
        match event {
            AgentEvent::Delta(Delta::Thinking(text)) => return self.with(|lines| lines.text("thinking", &text)),
            AgentEvent::Delta(Delta::Saying(text)) => return self.with(|lines| lines.text("saying", &text)),
            AgentEvent::Delta(Delta::ToolOutput { .. }) | AgentEvent::Context(_) | AgentEvent::TurnStarted { .. } => {
                return
            }
            _ => {}
        }
        self.with(Lines::close);
        let value = match event {
            AgentEvent::TurnFinished { reply, end } => {
                // Written as it is: a long reply is not copied into a JSON tree.
                return self.with(|lines| lines.reply(&reply, end == TurnEnd::Interrupted));
            }
            other => match json_of(other) {
                Some(value) => value,
                None => return,
            },
        };
        self.line(&value);
    }
}

/// Whether `warning` is the agent's `provider NAME failed: MESSAGE` (`Agent::failed`), which
/// the turn's error (`MESSAGE`) follows.
fn is_provider_failure(warning: &str) -> bool {
    warning.starts_with("provider ") && warning.contains(" failed: ")
}

/// Whether the error `message` says again what the provider-failure `warning` said.
fn restates(warning: &str, message: &str) -> bool {
    is_provider_failure(warning) && warning.strip_suffix(message).is_some_and(|head| head.ends_with(" failed: "))
}

/// An event as one `ask --json` line (`None`: not written); a sub-agent's events nest under
/// the call that ran it.
fn json_of(event: AgentEvent) -> Option<serde_json::Value> {
    Some(match event {
        AgentEvent::SubAgent { call_id, event } => {
            json!({"type": "sub_agent", "call_id": call_id, "event": json_of(*event)?})
        }
        AgentEvent::ToolStarted { call, .. } => {
            json!({"type": "doing", "id": call.id, "name": call.name, "arguments": call.arguments})
        }
        AgentEvent::ToolFinished { call, result } => {
            json!({"type": "result", "id": call.id, "name": call.name, "result": result.to_value()})
        }
        AgentEvent::Usage(u) => json!({
            "type": "usage", "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
            "cache_read_tokens": u.cache_read_tokens, "cache_write_tokens": u.cache_write_tokens
        }),
        AgentEvent::Retrying { attempt, max, delay, reason } => json!({
            "type": "retrying", "attempt": attempt, "max": max,
            "delay_ms": delay.as_millis() as u64, "reason": reason
        }),
        AgentEvent::Error(message) => json!({"type": "error", "message": message}),
        AgentEvent::Warning(message) => json!({"type": "warning", "message": message}),
        AgentEvent::Info(text) | AgentEvent::Jobs { text, .. } => json!({"type": "info", "text": text}),
        AgentEvent::Mode(mode) => json!({"type": "mode", "mode": mode.word()}),
        AgentEvent::Plan(plan) => json!({"type": "plan", "steps": plan.steps, "explanation": plan.explanation}),
        _ => return None,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_lines::WRITE_CHUNK;
    use std::sync::Arc;

    /// What a `JsonOutput` wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn run(events: Vec<AgentEvent>) -> (String, usize) {
        let captured = Captured::default();
        let output = JsonOutput::to(Box::new(captured.clone()));
        let mut largest_held = 0;
        for event in events {
            output.emit(event);
            largest_held = largest_held.max(output.state.lock().unwrap().buffer.len());
        }
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        (text, largest_held)
    }

    /// A text line as serde_json writes it whole.
    #[derive(Serialize)]
    struct Text<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        text: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        interrupted: bool,
    }

    fn line_of(kind: &'static str, text: &str, interrupted: bool) -> String {
        let line = serde_json::to_string(&Text { kind, text, interrupted }).unwrap();
        format!("{}\n", crate::sanitize::escape_json_line(&line))
    }

    fn whole(kind: &'static str, text: &str) -> String {
        line_of(kind, text, false)
    }

    #[test]
    fn a_streamed_text_line_is_the_whole_line_without_holding_the_text() {
        // Quotes, newlines, a control, DEL, a C1 control, bidi and zero-width characters,
        // and multi-byte text: escaped per piece, the pieces join into the whole line.
        let piece = "a \"quote\"\n\tb\u{1}\u{7f}\u{85}\u{202e}\u{200b} é✓🦀 ";
        let text = piece.repeat(20_000);
        let mut events = Vec::new();
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(37);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            events.push(AgentEvent::Delta(Delta::Saying(rest[..cut].to_string())));
            rest = &rest[cut..];
        }
        events.push(AgentEvent::Delta(Delta::Thinking("hmm".into())));
        events.push(AgentEvent::TurnFinished { reply: text.clone(), end: TurnEnd::Done });
        let (written, largest_held) = run(events);
        let expected = whole("saying", &text) + &whole("thinking", "hmm") + &whole("reply", &text);
        assert!(written == expected, "the streamed lines differ from the whole ones");
        assert!(text.len() > 10 * WRITE_CHUNK);
        assert!(largest_held < 2 * WRITE_CHUNK, "held {largest_held} bytes");
        // An interrupted reply says so.
        let (written, _) = run(vec![AgentEvent::TurnFinished { reply: piece.into(), end: TurnEnd::Interrupted }]);
        assert_eq!(written, line_of("reply", piece, true));
    }

    #[test]
    fn each_text_delta_is_written_out_when_it_arrives() {
        // A reader of `ask --json` sees the text while the model writes it, not at the
        // line's end (it was held until 64 KB had gathered).
        let captured = Captured::default();
        let output = JsonOutput::to(Box::new(captured.clone()));
        let written = || String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        output.emit(AgentEvent::Delta(Delta::Saying("Once upon".into())));
        assert_eq!(written(), r#"{"type":"saying","text":"Once upon"#);
        output.emit(AgentEvent::Delta(Delta::Saying(" a \"time\"".into())));
        assert_eq!(written(), r#"{"type":"saying","text":"Once upon a \"time\""#);
        output.emit(AgentEvent::Delta(Delta::Thinking("hm".into())));
        assert!(written().ends_with("\"}\n{\"type\":\"thinking\",\"text\":\"hm"), "{}", written());
        assert_eq!(output.state.lock().unwrap().buffer.len(), 0);
    }

    #[test]
    fn closing_ends_an_open_line() {
        let captured = Captured::default();
        let output = JsonOutput::to(Box::new(captured.clone()));
        output.emit(AgentEvent::Delta(Delta::Saying("half a rep".into())));
        output.close();
        output.close();
        let written = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(written, whole("saying", "half a rep"));
    }

    #[test]
    fn nothing_is_written_once_finished() {
        let captured = Captured::default();
        let output = JsonOutput::to(Box::new(captured.clone()));
        output.emit(AgentEvent::Delta(Delta::Saying("the reply".into())));
        output.finish();
        output.emit(AgentEvent::Warning("MCP server x: tools/list: broken pipe".into()));
        output.emit(AgentEvent::Delta(Delta::Saying("more".into())));
        let written = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(written, whole("saying", "the reply"));
    }
}
