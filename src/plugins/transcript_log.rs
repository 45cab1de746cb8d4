//! The transcript as the user saw it, for `/export`: an observer of the session's events
//! keeps prompts, replies, each tool call with its arguments and its result (cut to
//! `RESULT_LIMIT`), and errors; thinking is marked, not kept. `/clear` empties it. A resumed
//! session's history is handed in by `startup` (`seed`). A rewind takes the rewound turns out. What each event costs is the size
//! of that event: a delta is appended to the reply it continues.

use crate::agent::{AgentEvent, Delta};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// A tool result longer than this (bytes of its JSON) is cut in the export.
pub const RESULT_LIMIT: usize = 4000;

enum Entry {
    Prompt(String),
    Reply(String),
    Thinking,
    Tool { name: String, args: String, result: String, ok: bool },
    Error(String),
}

/// The entries so far, shared by the observer and `/export`.
#[derive(Clone, Default)]
pub struct TranscriptLog(Arc<Mutex<Vec<Entry>>>);

impl TranscriptLog {
    /// Takes in one event.
    pub fn note(&self, event: &AgentEvent) {
        let Ok(mut entries) = self.0.lock() else { return };
        match event {
            AgentEvent::TurnStarted { prompt } => entries.push(Entry::Prompt(prompt.clone())),
            AgentEvent::Delta(Delta::Saying(text)) => match entries.last_mut() {
                Some(Entry::Reply(reply)) => reply.push_str(text),
                _ => entries.push(Entry::Reply(text.clone())),
            },
            AgentEvent::Delta(Delta::Thinking(_)) if !matches!(entries.last(), Some(Entry::Thinking)) => {
                entries.push(Entry::Thinking)
            }
            AgentEvent::ToolFinished { call, result } => {
                entries.push(Entry::Tool {
                    name: call.name.clone(),
                    args: cut(&serde_json::to_string(&call.arguments).unwrap_or_default()),
                    result: readable(result.to_value()),
                    ok: result.is_ok(),
                });
            }
            AgentEvent::Error(text) => entries.push(Entry::Error(text.clone())),
            AgentEvent::Cleared => entries.clear(),
            AgentEvent::Rewound { turns } => {
                // The rewound turns leave the export with the conversation.
                let mut prompts = entries.iter().enumerate().rev().filter(|(_, e)| matches!(e, Entry::Prompt(_)));
                if let Some((at, _)) = prompts.nth(turns.saturating_sub(1)).filter(|_| *turns > 0) {
                    entries.truncate(at);
                }
            }
            _ => {}
        }
    }

    /// Takes in a resumed session's history, before anything of this run.
    pub fn seed(&self, events: &[AgentEvent]) {
        let fresh = TranscriptLog::default();
        for event in events {
            fresh.note(event);
        }
        let (Ok(mut entries), Ok(mut old)) = (self.0.lock(), fresh.0.lock()) else { return };
        let later = std::mem::take(&mut *entries);
        *entries = std::mem::take(&mut *old);
        entries.extend(later);
    }

    /// How many prompts it holds.
    pub fn turns(&self) -> usize {
        self.0.lock().map(|e| e.iter().filter(|e| matches!(e, Entry::Prompt(_))).count()).unwrap_or(0)
    }

    /// The transcript as Markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::from("# elelem transcript\n");
        let Ok(entries) = self.0.lock() else { return out };
        for entry in entries.iter() {
            match entry {
                Entry::Prompt(text) => out.push_str(&format!("\n## You\n\n{}\n", clean(text).trim_end())),
                Entry::Reply(text) => out.push_str(&format!("\n## elelem\n\n{}\n", clean(text).trim_end())),
                Entry::Thinking => out.push_str("\n_(thinking omitted)_\n"),
                Entry::Tool { name, args, result, ok } => {
                    let mark = if *ok { "" } else { " (failed)" };
                    out.push_str(&format!(
                        "\n### Tool call: {}{mark}\n\n{}\n\nResult:\n\n{}\n",
                        clean(name),
                        fenced(&clean(args)),
                        fenced(&clean(result))
                    ));
                }
                Entry::Error(text) => out.push_str(&format!("\n**Error:** {}\n", clean(text).trim_end())),
            }
        }
        out
    }
}

/// A result as text: its `content` as it is (a file, a command's output), after the other
/// fields as JSON; cut to `RESULT_LIMIT`.
fn readable(mut value: Value) -> String {
    let content = match value.as_object_mut().and_then(|o| o.remove("content")) {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            if let Some(object) = value.as_object_mut() {
                object.insert("content".into(), other);
            }
            None
        }
        None => None,
    };
    let fields = serde_json::to_string(&value).unwrap_or_default();
    match content {
        Some(text) => cut(&format!("{fields}\n{text}")),
        None => cut(&fields),
    }
}

/// `text` cut to `RESULT_LIMIT` bytes on a character boundary, saying how much was left out.
fn cut(text: &str) -> String {
    if text.len() <= RESULT_LIMIT {
        return text.to_string();
    }
    let mut end = RESULT_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… ({} more bytes)", &text[..end], text.len() - end)
}

/// A fenced block whose fence is longer than any run of backticks inside.
fn fenced(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}", text.trim_end())
}

/// Without control characters (terminal escapes among them): what a model or a tool sent
/// must not act on the terminal of whoever prints the file.
fn clean(text: &str) -> String {
    text.chars().filter(|c| !c.is_control() || *c == '\n' || *c == '\t').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_result_is_cut_and_fences_outgrow_backticks() {
        let long = "é".repeat(RESULT_LIMIT);
        let cut = cut(&long);
        assert!(cut.len() < RESULT_LIMIT + 40 && cut.ends_with("more bytes)"), "{}", &cut[cut.len() - 30..]);
        assert_eq!(fenced("a ``` b"), "````\na ``` b\n````");
        assert_eq!(clean("a\x1b[31mb\x07\n"), "a[31mb\n");
    }
}
