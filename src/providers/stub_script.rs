//! The stub's script (`ELELEM_STUB_SCRIPT`): its format (a JSON array of steps, each
//! `{"events": [...]}` or `{"error": "..."}`), checking it when it is loaded, and reading
//! the step that answers each model call. What a step's events become is `stub.rs`'s.

use crate::protocol::ProviderError;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fs::File;
use std::io::Read;
use std::marker::PhantomData;
use std::ops::Range;
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// One scripted event.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub(super) enum ScriptEvent {
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
    /// Token usage of the call, as a real provider reports it (the cache figures are parts
    /// of `input_tokens`).
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        #[serde(default)]
        cache_read_tokens: u64,
        #[serde(default)]
        cache_write_tokens: u64,
    },
}

/// The answer to one model call: `{"events": [...]}` or `{"error": "..."}`.
#[derive(Debug)]
pub(super) enum ScriptStep {
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
pub(crate) struct StubScript {
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
    File {
        file: File,
        path: PathBuf,
        len: u64,
    },
    #[cfg(test)]
    Text(String),
}

impl StubScript {
    /// Loads `ELELEM_STUB_SCRIPT` when it is set; an empty script otherwise.
    pub(crate) fn from_env() -> Result<Self, ProviderError> {
        match std::env::var_os("ELELEM_STUB_SCRIPT") {
            Some(path) if !path.is_empty() => Self::load(Path::new(&path)),
            _ => Ok(Self::default()),
        }
    }

    pub(crate) fn load(path: &Path) -> Result<Self, ProviderError> {
        let problem = |e: String| ProviderError::Config(format!("stub script {}: {e}", path.display()));
        let mut file = File::open(path).map_err(|e| problem(e.to_string()))?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|e| problem(e.to_string()))?;
        let ranges = step_ranges(&text).map_err(problem)?;
        let len = text.len() as u64;
        drop(text);
        Ok(Self::with(Steps { text: ScriptText::File { file, path: path.to_path_buf(), len }, ranges }))
    }

    /// A script from text, for tests.
    #[cfg(test)]
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let ranges = step_ranges(text)?;
        Ok(Self::with(Steps { text: ScriptText::Text(text.to_string()), ranges }))
    }

    /// The steps are read from the script's file (not held as text), for tests.
    #[cfg(test)]
    pub(super) fn reads_from_file(&self) -> bool {
        matches!(self.steps.as_deref(), Some(Steps { text: ScriptText::File { .. }, .. }))
    }

    fn with(steps: Steps) -> Self {
        StubScript { steps: Some(Arc::new(steps)), calls: Arc::new(AtomicUsize::new(0)) }
    }

    /// The step answering the next model call, read from the script; `None` once it ran out.
    pub(super) fn next_step(&self) -> Option<Result<ScriptStep, ProviderError>> {
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
            #[cfg(test)]
            ScriptText::Text(text) => parse(text.as_bytes().get(range).unwrap_or_default()),
            ScriptText::File { file, path, len } => {
                let changed = || format!("{} changed since it was loaded", path.display());
                if file.metadata().map_err(|e| e.to_string())?.len() != *len {
                    return Err(changed());
                }
                let mut bytes = vec![0; range.len()];
                read_exact_at(file, &mut bytes, range.start as u64).map_err(|e| e.to_string())?;
                parse(&bytes).map_err(|e| format!("{}: {e}", changed()))
            }
        }
    }
}

/// Fills `bytes` from `file` at `offset`, the file's position untouched.
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, bytes: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.read_exact_at(bytes, offset)
}

/// Fills `bytes` from `file` at `offset` (Windows' `seek_read` may read less: again).
#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut bytes: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        match file.seek_read(bytes, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                bytes = &mut bytes[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
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
}
