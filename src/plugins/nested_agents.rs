//! Nested `AGENTS.md`: when a tool call opens a file in a folder (between the project root
//! and that file) with its own `AGENTS.md` (or `AGENTS.override.md`) that the system prompt
//! does not already hold, that file joins the context for the rest of the session, once.
//! The system prompt is left alone (a prompt cache keeps its prefix; ARCHITECTURE.md,
//! "Prompt caching and cost"): the instructions ride on that call's result
//! (`"instructions"`), so the model reads them at once, and go to the conversation as a
//! note the next prompt carries (`Session::add_note`), so they stay after the turn's tool
//! traffic is dropped. Which files exist and their bounds are `instructions`'s.
//!
//! At each setup this plugin hands the kernel the directories `paths.deny` names (as
//! `shared_dirs::Guard` reads them), so no instruction file under one (or linked into one)
//! reaches the model, the system prompt's or one found here; those of the working
//! directory's chain that are left out are said once on screen.

use super::shared_dirs::{home, Guard};
use crate::agent::{NextLine, Plugin, Session};
use crate::instructions::{
    denied_dir, files_between, files_for, leave_out_under, left_out, project_root, read_bounded, FILE_LIMIT,
    TOTAL_LIMIT,
};
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
    /// Files under a denied directory already said on screen.
    said: HashSet<PathBuf>,
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
        // A permissions file that cannot be read stops the session in the permissions plugin.
        if let Ok(guard) = Guard::load(&cwd, &project_root(&cwd), home().as_deref()) {
            leave_out_under(guard.deny);
        }
        for file in files_for(&cwd) {
            let Some(dir) = denied_dir(&file) else { continue };
            if self.found.lock().is_ok_and(|mut f| f.said.insert(file.clone())) {
                session.show(format!("instructions skipped: {}", left_out(&file, &dir)));
            }
        }
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
    let text = match (denied_dir(file), left) {
        (Some(dir), _) => left_out(file, &dir),
        (None, 0) => format!(
            "[{} applies to files under {folder} but is left out: instruction files are limited to {} KB in all]",
            file.display(),
            TOTAL_LIMIT / 1024
        ),
        (None, _) => {
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
