//! The built-in `stub` provider: no network, deterministic, scriptable.
//!
//! Without a script it runs a small demo of the loop (think, read `README.md`, answer in
//! Markdown). With `ELELEM_STUB_SCRIPT=<file>` (a JSON array) element *i* answers the
//! *i*-th model call of the process; when the script runs out the demo takes over.

use crate::protocol::{EventStream, Provider, ProviderError, ProviderEvent, ProviderSettings, Request, Role, ToolCall};
use futures::StreamExt;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::marker::PhantomData;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One scripted event.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum ScriptEvent {
    Thinking {
        text: String,
        #[serde(default)]
        delay_ms: u64,
    },
    Saying {
        text: String,
        #[serde(default)]
        delay_ms: u64,
    },
    Doing {
        id: String,
        name: String,
        #[serde(default)]
        arguments: Value,
        #[serde(default)]
        delay_ms: u64,
    },
    /// Token usage of the call, as a real provider reports it.
    Usage { input_tokens: u64, output_tokens: u64 },
}

/// The answer to one model call: `{"events": [...]}` or `{"error": "..."}`.
#[derive(Debug)]
enum ScriptStep {
    Events { events: Vec<ScriptEvent> },
    Error { error: String },
}

impl<'de> Deserialize<'de> for ScriptStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match deserializer.deserialize_map(StepVisitor::<Vec<ScriptEvent>>(PhantomData))? {
            Step::Events(events) => ScriptStep::Events { events },
            Step::Error(error) => ScriptStep::Error { error },
        })
    }
}

/// A step parsed only to check it: each event is parsed and dropped before the next is read,
/// so checking a step of 30,000 events holds one.
struct StepCheck;

impl<'de> Deserialize<'de> for StepCheck {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(StepVisitor::<EventsCheck>(PhantomData)).map(|_| StepCheck)
    }
}

/// Events checked one at a time.
struct EventsCheck;

impl<'de> Deserialize<'de> for EventsCheck {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = EventsCheck;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of events")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<EventsCheck, A::Error> {
                while seq.next_element::<ScriptEvent>()?.is_some() {}
                Ok(EventsCheck)
            }
        }
        deserializer.deserialize_seq(Each)
    }
}

enum Step<E> {
    Events(E),
    Error(String),
}

/// Reads a step object key by key (no untagged enum, which would first copy the whole step
/// into a tree of its own): exactly one key, `events` or `error`.
struct StepVisitor<E>(PhantomData<E>);

impl<'de, E: Deserialize<'de>> Visitor<'de> for StepVisitor<E> {
    type Value = Step<E>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object with \"events\" or \"error\"")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Step<E>, A::Error> {
        let step = match map.next_key::<String>()?.as_deref() {
            Some("events") => Step::Events(map.next_value()?),
            Some("error") => Step::Error(map.next_value()?),
            _ => return Err(de::Error::custom("expected an object with \"events\" or \"error\"")),
        };
        if map.next_key::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom("a step has one key, \"events\" or \"error\""));
        }
        Ok(step)
    }
}

/// A loaded script and the process-wide count of model calls it has answered.
///
/// Only where each step lies in the script is held, not the steps: a step is read and parsed
/// again when its call comes, and its events are dropped as they are streamed. (The bench's
/// 4.8 MB script, held as parsed steps, cost more memory than the reply it streams.)
#[derive(Clone, Debug, Default)]
pub struct StubScript {
    steps: Option<Arc<Steps>>,
    calls: Arc<AtomicUsize>,
}

/// Where a script's steps are, each checked to parse when the script was loaded.
#[derive(Debug)]
struct Steps {
    /// The script's text: the file it was loaded from (kept open), or the text given.
    text: ScriptText,
    /// Byte range of each step in the text.
    ranges: Vec<Range<usize>>,
}

#[derive(Debug)]
enum ScriptText {
    File { file: File, path: PathBuf, len: u64 },
    Text(String),
}

impl StubScript {
    /// Loads `ELELEM_STUB_SCRIPT` when it is set; an empty script otherwise.
    pub fn from_env() -> Result<Self, ProviderError> {
        match std::env::var_os("ELELEM_STUB_SCRIPT") {
            Some(path) if !path.is_empty() => Self::load(Path::new(&path)),
            _ => Ok(Self::default()),
        }
    }

    pub fn load(path: &Path) -> Result<Self, ProviderError> {
        let problem = |e: String| ProviderError::Config(format!("stub script {}: {e}", path.display()));
        let mut file = File::open(path).map_err(|e| problem(e.to_string()))?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|e| problem(e.to_string()))?;
        let ranges = step_ranges(&text).map_err(problem)?;
        let len = text.len() as u64;
        drop(text);
        Ok(Self::with(Steps { text: ScriptText::File { file, path: path.to_path_buf(), len }, ranges }))
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let ranges = step_ranges(text)?;
        Ok(Self::with(Steps { text: ScriptText::Text(text.to_string()), ranges }))
    }

    fn with(steps: Steps) -> Self {
        StubScript { steps: Some(Arc::new(steps)), calls: Arc::new(AtomicUsize::new(0)) }
    }

    /// The step answering the next model call, read from the script; `None` once it ran out.
    fn next_step(&self) -> Option<Result<ScriptStep, ProviderError>> {
        let i = self.calls.fetch_add(1, Ordering::SeqCst);
        let steps = self.steps.as_ref()?;
        let range = steps.ranges.get(i)?.clone();
        Some(steps.text.step(range).map_err(|e| ProviderError::Config(format!("stub script step {i}: {e}"))))
    }
}

impl ScriptText {
    /// The step at `range`, parsed.
    fn step(&self, range: Range<usize>) -> Result<ScriptStep, String> {
        let parse = |bytes: &[u8]| serde_json::from_slice::<ScriptStep>(bytes).map_err(|e| e.to_string());
        match self {
            ScriptText::Text(text) => parse(text.as_bytes().get(range).unwrap_or_default()),
            ScriptText::File { file, path, len } => {
                let changed = || format!("{} changed since it was loaded", path.display());
                if file.metadata().map_err(|e| e.to_string())?.len() != *len {
                    return Err(changed());
                }
                let mut bytes = vec![0; range.len()];
                file.read_exact_at(&mut bytes, range.start as u64).map_err(|e| e.to_string())?;
                parse(&bytes).map_err(|e| format!("{}: {e}", changed()))
            }
        }
    }
}

/// The byte range of each step of `text`, a JSON array of steps, each parsed once to check
/// it (and dropped): a step at a time, so a multi-megabyte script never lives whole as
/// steps, nor as a JSON tree (several times its size). Only a script that does not parse is
/// read again as a tree, to say which step is wrong.
fn step_ranges(text: &str) -> Result<Vec<Range<usize>>, String> {
    step_ranges_checked(text).ok_or_else(|| script_problem(text))
}

fn step_ranges_checked(text: &str) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let skip = |mut at: usize| {
        while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    };
    let ends_at = |at: usize| (skip(at) == bytes.len()).then_some(());
    let mut at = skip(0);
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    at = skip(at + 1);
    let mut ranges = Vec::new();
    if bytes.get(at) == Some(&b']') {
        ends_at(at + 1)?;
        return Some(ranges);
    }
    loop {
        let mut one = serde_json::Deserializer::from_str(text.get(at..)?).into_iter::<StepCheck>();
        one.next()?.ok()?;
        let end = at + one.byte_offset();
        ranges.push(at..end);
        at = skip(end);
        match bytes.get(at) {
            Some(b',') => at = skip(at + 1),
            Some(b']') => {
                ends_at(at + 1)?;
                return Some(ranges);
            }
            _ => return None,
        }
    }
}

/// Explains why a script did not parse: the first step that does not, and why.
fn script_problem(text: &str) -> String {
    let raw: Vec<Value> = match serde_json::from_str(text) {
        Ok(raw) => raw,
        Err(e) => return format!("not a JSON array of steps: {e}"),
    };
    for (i, step) in raw.into_iter().enumerate() {
        if serde_json::from_value::<ScriptStep>(step.clone()).is_err() {
            return format!("step {i}: {}", step_problem(&step));
        }
    }
    "the steps do not parse".into()
}

/// Explains why a script step did not parse.
fn step_problem(step: &Value) -> String {
    let Some(object) = step.as_object() else {
        return "expected an object with \"events\" or \"error\"".into();
    };
    if let Some(events) = object.get("events") {
        let Some(events) = events.as_array() else { return "\"events\" must be an array".into() };
        for (j, event) in events.iter().enumerate() {
            if let Err(e) = serde_json::from_value::<ScriptEvent>(event.clone()) {
                return format!("event {j}: {e}");
            }
        }
        return "unexpected keys beside \"events\"".into();
    }
    if object.contains_key("error") {
        return "\"error\" must be a string and stand alone".into();
    }
    "expected an object with \"events\" or \"error\"".into()
}

/// The stub provider.
pub struct StubProvider {
    script: StubScript,
    model: String,
}

impl StubProvider {
    pub fn new(script: StubScript, settings: &ProviderSettings) -> Self {
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
        ScriptEvent::Usage { input_tokens, output_tokens } => {
            (0, Ok(ProviderEvent::Usage(crate::protocol::Usage { input_tokens, output_tokens })))
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

    #[test]
    fn a_malformed_step_names_its_index_and_problem() {
        let err = StubScript::parse(r#"[{"events": []}, {"events": [{"type": "shout"}]}]"#).unwrap_err();
        assert!(err.starts_with("step 1: event 0:"), "{err}");
        let err = StubScript::parse("{").unwrap_err();
        assert!(err.starts_with("not a JSON array of steps"), "{err}");
    }

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
    fn what_a_whole_parse_refuses_is_refused() {
        let steps = [r#"{"events": [], "error": "x"}"#, "{}", r#"{"events": 3}"#, r#"{"error": 1}"#, r#"{"what": 1}"#];
        for bad in steps.iter().map(|step| format!("[{step}]")) {
            assert!(StubScript::parse(&bad).is_err(), "{bad}");
            assert!(script_problem(&bad).starts_with("step 0: "), "{bad}: {}", script_problem(&bad));
        }
        for bad in
            ["[{\"events\": []},]", "[{\"events\": []}] x", "[{\"events\": []} {\"events\": []}]", "[", "", "[] []"]
        {
            assert!(StubScript::parse(bad).is_err(), "{bad:?}");
            assert!(serde_json::from_str::<Vec<ScriptStep>>(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_loaded_script_reads_each_step_from_its_file_when_called() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.json");
        let step = |text: &str| json!({"events": [{"type": "saying", "text": text}]});
        std::fs::write(&path, json!([step("one"), step("two")]).to_string()).unwrap();
        let script = StubScript::load(&path).unwrap();
        assert!(matches!(script.steps.as_deref(), Some(Steps { text: ScriptText::File { .. }, .. })));
        assert_eq!(answers(&script, 1), [[r#"Ok(Saying("one"))"#]]);
        // A file rewritten since it was loaded is not read as if it were the same script.
        std::fs::write(&path, json!([step("uno"), step("dos!")]).to_string()).unwrap();
        let got = answers(&script, 1);
        assert!(got[0][0].starts_with("Err(Config(") && got[0][0].contains("changed since it was loaded"), "{got:?}");
    }
}
