//! File checkpoints and `/undo`. Before a tool that changes things (not read-only) and
//! names the files it touches (`Tool::paths`) runs, a global before hook records what each
//! of those files holds, keyed by the turn; an after hook notes what elelem left there.
//! Records go to the session file through a `Journal`, so a resumed session can still undo
//! (`Checkpoints::resume`). The state is `store.rs`, the commands `undo.rs` and
//! `rewind.rs` (the conversation and the files back to before an earlier prompt).

pub mod rewind;
pub mod store;
pub mod undo;

use super::trust::project_root;
use crate::agent::{AgentEvent, Flow, HookCall, Plugin, Session};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
pub use store::{FileState, Journal, Store, MAX_CHECKPOINT_BYTES};

/// The checkpoints of one session, shared by its hooks and `/undo`.
#[derive(Clone)]
pub struct Checkpoints {
    store: Arc<Mutex<Store>>,
    /// The turns the conversation holds (for `/rewind`).
    live: Arc<Mutex<rewind::Live>>,
    cwd: PathBuf,
}

impl Checkpoints {
    /// Checkpoints recorded through `journal` (none: kept in memory only); relative paths
    /// are resolved against `cwd`, as the tools resolve them.
    pub fn new(journal: Option<Journal>, cwd: PathBuf) -> Checkpoints {
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        Checkpoints { store: Arc::new(Mutex::new(Store::new(journal))), live: Arc::default(), cwd }
    }

    /// Rebuilds the checkpoints of a resumed session from its records; `turns` is how many
    /// turns it ran, `live` the numbers of those its conversation still holds, oldest first
    /// (`Replayed::live_turns`: rewound and cleared turns left out), so `/rewind N` undoes
    /// the files of the turns it takes away. Returns warnings for records that could not
    /// be used.
    /// A record naming a file outside the project is skipped (`/undo` would refuse it).
    pub fn resume(&self, records: Vec<serde_json::Value>, turns: usize, live: Vec<usize>) -> Vec<String> {
        let root = project_root(&self.cwd);
        let (mut kept, mut warnings) = (Vec::new(), Vec::new());
        for record in records {
            let path = record.get("path").and_then(serde_json::Value::as_str).map(Path::new);
            match path {
                Some(path) if record["type"] == "file_before" && !undo::inside_project(path, &root) => {
                    warnings.push(format!(
                        "checkpoint record skipped: {} is outside the project ({}); /undo will not touch it",
                        path.display(),
                        root.display()
                    ))
                }
                _ => kept.push(record),
            }
        }
        warnings.extend(self.store.lock().map(|mut s| s.replay(kept, turns)).unwrap_or_default());
        if let Ok(mut held) = self.live.lock() {
            // Never past the turns the store numbers from (a hand-edited file).
            held.0 = live.into_iter().filter(|&turn| (1..=turns).contains(&turn)).collect();
        }
        warnings
    }

    /// Runs `f` on the store (a poisoned lock is taken over: the store stays usable).
    fn with<R>(&self, f: impl FnOnce(&mut Store) -> R) -> R {
        let mut guard = self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut guard)
    }

    /// The files a call would change, as the toolbox resolved them for the call (the paths
    /// the gate checked and the tool opens): none for read-only tools.
    fn changed_paths(&self, call: &HookCall) -> Vec<PathBuf> {
        if call.tool.read_only {
            return Vec::new();
        }
        call.context.resolved_paths().iter().map(|p| p.real.clone()).collect()
    }

    /// `/undo [N] [--force]`, `/undo --list`. An undo also leaves a note for the model,
    /// carried by the next prompt, so the conversation no longer says the changes stand.
    fn command(&self, session: &mut Session, args: &str) -> anyhow::Result<Flow> {
        let text = match undo::parse(args)? {
            undo::Request::List => self.with(|s| undo::list(s, &self.cwd)),
            undo::Request::Undo { from, force } => {
                let text = self.with(|s| undo::undo(s, from, force, &self.cwd))?;
                session.add_note(format!(
                    "[The user ran /undo. {text}\nWhat those turns changed in these files is gone: read them again \
                     before relying on them.]"
                ));
                format!("{text}\n(The model is told with your next prompt.)")
            }
        };
        session.show(text);
        Ok(Flow::Continue)
    }
}

impl Plugin for Checkpoints {
    fn name(&self) -> &str {
        "checkpoints"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let this = self.clone();
        let turn_started = |event: &AgentEvent| matches!(event, AgentEvent::TurnStarted { .. } | AgentEvent::Cleared);
        session.observe_only(
            turn_started,
            Arc::new(move |event| {
                let mut live = this.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                match event {
                    AgentEvent::Cleared => live.0.clear(),
                    _ => live.0.push(this.with(|s| {
                        s.turn += 1;
                        s.turn
                    })),
                }
            }),
        );
        let this = self.clone();
        let output = session.output();
        session.toolbox_mut().before(None, move |call: HookCall| {
            let (this, output) = (this.clone(), output.clone());
            async move {
                let paths = this.changed_paths(&call);
                if paths.is_empty() {
                    return Ok(());
                }
                let snapshots = call
                    .context
                    .blocking(move || paths.into_iter().filter_map(|p| Some((store::snapshot(&p)?, p))).collect())
                    .await
                    .map_err(|e| format!("checkpoint: {e:#}"))?;
                let snapshots: Vec<(store::Snapshot, PathBuf)> = snapshots;
                for (snapshot, path) in snapshots {
                    if let Some(notice) = this.with(|s| s.before_change(&path, snapshot)) {
                        output.emit(AgentEvent::Warning(notice));
                    }
                }
                Ok(())
            }
        });
        let this = self.clone();
        session.toolbox_mut().after(None, move |call: HookCall, result| {
            let this = this.clone();
            async move {
                let paths = this.changed_paths(&call);
                if paths.is_empty() {
                    return Ok(result);
                }
                let states = call
                    .context
                    .blocking(move || paths.into_iter().filter_map(|p| Some((store::snapshot(&p)?.state, p))).collect())
                    .await?;
                let states: Vec<(FileState, PathBuf)> = states;
                this.with(|s| states.into_iter().for_each(|(state, path)| s.after_change(&path, state)));
                Ok(result)
            }
        });
        let this = self.clone();
        session.commands_mut().add(
            "undo",
            "[N] [--force] | --list",
            "restore the files the last turn (or turn N onward) changed",
            move |s, a| this.command(s, a),
        );
        let this = self.clone();
        session.commands_mut().add(
            "rewind",
            "[N] [--force]",
            "go back to just before the N-th last prompt: the conversation and the files (no N: list them)",
            move |session, args| {
                let mut live = this.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                this.with(|store| rewind::command(session, args, store, &mut live, &this.cwd))
            },
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests;
