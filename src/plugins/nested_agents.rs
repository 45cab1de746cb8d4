//! Nested `AGENTS.md`: when a tool call opens a file in a folder (between the project root
//! and that file) with its own `AGENTS.md` (or `AGENTS.override.md`) that the system prompt
//! does not already hold, that file joins the context for the rest of the session, once.
//! The system prompt is left alone (a prompt cache keeps its prefix; ARCHITECTURE.md,
//! "Prompt caching and cost"): the instructions ride on that call's result
//! (`"instructions"`), so the model reads them at once, and go to the conversation as a
//! note the next prompt carries (`Session::add_note`), so they stay after the turn's tool
//! traffic is dropped. Which files exist and their bounds are `agent::instructions`'s.

use crate::agent::instructions::{files_between, read_bounded, FILE_LIMIT, TOTAL_LIMIT};
use crate::agent::{NextLine, Plugin, Session};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The result field that carries instructions found by a call.
pub const FIELD: &str = "instructions";

#[derive(Default)]
struct Found {
    /// Files already added this session.
    loaded: HashSet<PathBuf>,
    /// Bytes added so far (bounded by `TOTAL_LIMIT`).
    used: usize,
    /// Notes for the next prompt.
    pending: Vec<String>,
}

/// The plugin; its state lasts the whole session (a `/reload` does not add a file again).
#[derive(Default)]
pub struct NestedAgents {
    found: Arc<Mutex<Found>>,
}

impl NestedAgents {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Plugin for NestedAgents {
    fn name(&self) -> &str {
        "nested-agents-md"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let found = self.found.clone();
        let cwd = session.cwd();
        session.toolbox_mut().after(None, move |call, result| {
            let texts: Vec<String> = call
                .context
                .resolved_paths()
                .iter()
                .flat_map(|p| files_between(&cwd, &p.real))
                .filter_map(|file| take(&found, &file))
                .collect();
            async move { Ok(if texts.is_empty() { result } else { attach(result, texts.join("\n\n")) }) }
        });
        Ok(())
    }

    fn before_line<'a>(&'a self, session: &'a mut Session, next: NextLine) -> BoxFuture<'a, ()> {
        if next == NextLine::Turn {
            let pending = self.found.lock().map(|mut f| std::mem::take(&mut f.pending)).unwrap_or_default();
            for note in pending {
                session.add_note(note);
            }
        }
        Box::pin(async {})
    }
}

/// The instructions of `file` when they were not added yet (and are marked added), within
/// the session's bound.
fn take(found: &Mutex<Found>, file: &Path) -> Option<String> {
    let mut found = found.lock().ok()?;
    if !found.loaded.insert(file.to_path_buf()) {
        return None;
    }
    let folder = file.parent().unwrap_or(file).display().to_string();
    let left = TOTAL_LIMIT.saturating_sub(found.used);
    let text = match left {
        0 => format!(
            "[{} applies to files under {folder} but is left out: instruction files are limited to {} KB in all]",
            file.display(),
            TOTAL_LIMIT / 1024
        ),
        _ => {
            let body = read_bounded(file, FILE_LIMIT.min(left))?;
            found.used += body.len();
            format!("Project instructions from {} (for files under {folder}):\n\n{body}", file.display())
        }
    };
    found.pending.push(text.clone());
    Some(text)
}

/// `result` with `text` in its `instructions` field (a non-object result becomes its
/// `content`).
fn attach(result: Value, text: String) -> Value {
    match result {
        Value::Object(mut fields) => {
            fields.insert(FIELD.to_string(), Value::String(text));
            Value::Object(fields)
        }
        Value::Null => json!({ FIELD: text }),
        other => json!({"content": other, FIELD: text}),
    }
}
