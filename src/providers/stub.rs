//! The built-in `stub` provider: no network, deterministic, scriptable.
//!
//! Without a script it runs a small demo of the loop (think, read `README.md`, answer in
//! Markdown). With `ELELEM_STUB_SCRIPT=<file>` (a JSON array) element *i* answers the
//! *i*-th model call of the process; when the script runs out the demo takes over. The
//! script's format and reading are `stub_script.rs`'s; this module turns a step (or the
//! demo) into a timed stream of events.

pub(crate) use super::stub_script::StubScript;
use super::stub_script::{ScriptEvent, ScriptStep};
use crate::protocol::{EventStream, Provider, ProviderError, ProviderEvent, ProviderSettings, Request, Role, ToolCall};
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

/// The stub provider.
pub(crate) struct StubProvider {
    script: StubScript,
    model: String,
}

impl StubProvider {
    pub(crate) fn new(script: StubScript, settings: &ProviderSettings) -> Self {
        StubProvider { script, model: settings.model.clone().unwrap_or_else(|| "stub-demo".into()) }
    }
}

type Timed = (u64, Result<ProviderEvent, ProviderError>);

impl Provider for StubProvider {
    fn name(&self) -> &str {
        "stub"
    }

    fn streams_ahead(&self) -> bool {
        true
    }

    /// The stub plays any model, one that reads images too (it ignores them).
    fn accepts_images(&self) -> bool {
        true
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn fetch(&self, request: Request) -> EventStream {
        let queue: VecDeque<Timed> = match self.script.next_step() {
            Some(Ok(ScriptStep::Error { error })) => VecDeque::from([(0, Err(ProviderError::Scripted(error)))]),
            Some(Ok(ScriptStep::Events { events })) => events.into_iter().map(scripted).collect(),
            Some(Err(e)) => VecDeque::from([(0, Err(e))]),
            None => demo(&request),
        };
        // Each event is due its delay after the one before, counted from when the stream
        // began, not from when it was last polled: like a network stream, a consumer that
        // reads late finds everything due meanwhile waiting, not one event per poll.
        let due = tokio::time::Instant::now();
        futures::stream::unfold((queue, due), |(mut queue, mut due)| async move {
            let (delay, event) = queue.pop_front()?;
            if delay > 0 {
                due += Duration::from_millis(delay);
                tokio::time::sleep_until(due).await;
            }
            Some((event, (queue, due)))
        })
        .boxed()
    }
}

fn scripted(event: ScriptEvent) -> Timed {
    match event {
        ScriptEvent::Thinking { text, delay_ms } => (delay_ms, Ok(ProviderEvent::Thinking(text))),
        ScriptEvent::Saying { text, delay_ms } => (delay_ms, Ok(ProviderEvent::Saying(text))),
        ScriptEvent::Doing { id, name, arguments, delay_ms } => {
            let arguments = if arguments.is_null() { json!({}) } else { arguments };
            (delay_ms, Ok(ProviderEvent::Doing(ToolCall { id, name, arguments })))
        }
        ScriptEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } => {
            let usage = crate::protocol::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens };
            (0, Ok(ProviderEvent::Usage(usage)))
        }
    }
}

/// Milliseconds between streamed pieces of the demo, so streaming is visible.
const DEMO_PACE_MS: u64 = 12;

/// The unscripted demo: read `README.md` (or list the directory), then explain.
fn demo(request: &Request) -> VecDeque<Timed> {
    let last = request.messages.last();
    if let Some(message) = last.filter(|m| m.role == Role::Tool) {
        return paced(ProviderEvent::Saying, &demo_answer(&message.text()));
    }
    let prompt = last.map(|m| m.content.lines().next().unwrap_or("").to_string()).unwrap_or_default();
    let has = |name: &str| request.tools.iter().any(|t| t.name == name);
    let readme = PathBuf::from("README.md");
    let mut events = paced(
        ProviderEvent::Thinking,
        &format!(
            "The user wrote \"{prompt}\". I am the stub provider, so I cannot really \
             understand it, but I can show the loop: look at the project first, then answer."
        ),
    );
    let call = if has("read") && readme.is_file() {
        Some(ToolCall { id: "stub_1".into(), name: "read".into(), arguments: json!({"path": "README.md"}) })
    } else if has("execute") {
        Some(ToolCall { id: "stub_1".into(), name: "execute".into(), arguments: json!({"command": "ls"}) })
    } else {
        None
    };
    match call {
        Some(call) => events.push_back((DEMO_PACE_MS, Ok(ProviderEvent::Doing(call)))),
        None => events.extend(paced(ProviderEvent::Saying, &demo_answer(""))),
    }
    events
}

/// Splits text into word-sized pieces with a short pause before each.
fn paced(make: fn(String) -> ProviderEvent, text: &str) -> VecDeque<Timed> {
    text.split_inclusive(' ').map(|piece| (DEMO_PACE_MS / 4, Ok(make(piece.to_string())))).collect()
}

fn demo_answer(tool_result: &str) -> String {
    let result: Value = serde_json::from_str(tool_result).unwrap_or(Value::Null);
    let found = match (result.get("path").and_then(Value::as_str), result.get("content").and_then(Value::as_str)) {
        (Some(path), Some(content)) => {
            let lines = content.lines().count();
            let heading = content
                .lines()
                .map(|l| l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '\t' || c == ' ' || c == '|'))
                .find(|l| l.starts_with('#'))
                .map(|l| l.trim_start_matches('#').trim().to_string())
                .unwrap_or_else(|| "no heading".into());
            let plural = if lines == 1 { "" } else { "s" };
            format!("I read `{path}`: **{lines} line{plural}**, and its first heading is *{heading}*.")
        }
        (None, Some(content)) => format!("I listed the directory: **{}** entries.", content.lines().count()),
        _ => match result.get("error").and_then(Value::as_str) {
            Some(error) => format!("The tool failed: `{error}`."),
            None => "I answered without calling a tool.".into(),
        },
    };
    format!(
        "## What I found\n\n{found}\n\n\
         This is elelem's built-in **stub** provider. It needs no network and shows the loop:\n\n\
         1. it *thinks* (the dimmed text above),\n\
         2. calls a real tool (see the tool log),\n\
         3. answers in Markdown.\n\n\
         ```rust\nfn main() {{\n    println!(\"hello from the stub\");\n}}\n```\n\n\
         | provider | set this to use it |\n|---|---|\n\
         | anthropic | `ANTHROPIC_API_KEY` |\n| openai | `OPENAI_API_KEY` |\n| ollama | a running `ollama serve` |\n\n\
         > Run `elelem -p anthropic` (or `openai`, `ollama`) to talk to a real model.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the stub streams for each of the next `calls` model calls, one string per event.
    fn answers(script: &StubScript, calls: usize) -> Vec<Vec<String>> {
        let provider = StubProvider::new(script.clone(), &ProviderSettings::default());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
        (0..calls)
            .map(|_| {
                let events = runtime.block_on(provider.fetch(Request::default()).collect::<Vec<_>>());
                events.into_iter().map(|e| format!("{e:?}")).collect()
            })
            .collect()
    }

    #[test]
    fn steps_are_answered_in_order_however_the_script_is_laid_out() {
        let text = " \n[ {\"events\": [{\"type\": \"saying\", \"text\": \"a], [{b\\\"}, \", \"delay_ms\": 3}]} ,\n\t{\"error\": \"boom\"},{\"events\":[]}\r\n] \n";
        let script = StubScript::parse(text).unwrap();
        let got = answers(&script, 4);
        assert_eq!(got[0], [r#"Ok(Saying("a], [{b\"}, "))"#]);
        assert_eq!(got[1], [r#"Err(Scripted("boom"))"#]);
        assert!(got[2].is_empty());
        assert!(got[3][0].contains("Thinking"), "the demo takes over: {:?}", got[3]);
        assert!(answers(&StubScript::parse(" [ ] ").unwrap(), 1)[0][0].contains("Thinking"));
    }

    #[test]
    fn a_loaded_script_reads_each_step_from_its_file_when_called() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.json");
        let step = |text: &str| json!({"events": [{"type": "saying", "text": text}]});
        std::fs::write(&path, json!([step("one"), step("two")]).to_string()).unwrap();
        let script = StubScript::load(&path).unwrap();
        assert!(script.reads_from_file());
        assert_eq!(answers(&script, 1), [[r#"Ok(Saying("one"))"#]]);
        // A file rewritten since it was loaded is not read as if it were the same script.
        std::fs::write(&path, json!([step("uno"), step("dos!")]).to_string()).unwrap();
        let got = answers(&script, 1);
        assert!(got[0][0].starts_with("Err(Config(") && got[0][0].contains("changed since it was loaded"), "{got:?}");
    }
}
