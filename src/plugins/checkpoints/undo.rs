//! `/undo [N] [--force]` and `/undo --list`: puts back what the files changed by the last
//! turn (or by turn N onward) held before, deleting the ones those turns created. A file
//! that changed outside elelem since elelem last wrote it is not overwritten unless
//! `--force` is given: the refusal lists it. Only regular files under the project root are
//! restored, never through a symlink, and only with content that matches its hash.

use super::store::{self, snapshot, Checkpoint, FileState, Store};
use crate::paths::no_follow;
use crate::plugins::trust::project_root;
use anyhow::{bail, Context as _};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// What the user typed after `/undo`.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    List,
    Undo { from: Option<usize>, force: bool },
}

pub fn parse(args: &str) -> anyhow::Result<Request> {
    let (mut from, mut force) = (None, false);
    for word in args.split_whitespace() {
        match word {
            "--list" => return Ok(Request::List),
            "--force" | "-f" => force = true,
            n => from = Some(n.parse().with_context(|| format!("usage: /undo [N] [--force] | --list, not {n:?}"))?),
        }
    }
    Ok(Request::Undo { from, force })
}

/// `path` as the user sees it: relative to `cwd` when inside it.
pub fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// The turns that changed files, with the files each changed.
pub fn list(store: &Store, cwd: &Path) -> String {
    let mut turns: Vec<(usize, Vec<String>)> = Vec::new();
    for c in store.checkpoints() {
        match turns.last_mut() {
            Some((turn, files)) if *turn == c.turn => files.push(shown(&c.path, cwd)),
            _ => turns.push((c.turn, vec![shown(&c.path, cwd)])),
        }
    }
    if turns.is_empty() {
        return "No file changes to undo.".into();
    }
    let mut text = String::from("File changes /undo N can take back:\n");
    for (turn, files) in turns {
        let _ = writeln!(text, "  turn {turn}: {}", files.join(", "));
    }
    text.trim_end().to_string()
}

/// For each file changed from turn `from` on, its first checkpoint: what it held before.
fn targets(store: &Store, from: usize) -> Vec<Checkpoint> {
    let mut seen: Vec<Checkpoint> = Vec::new();
    for c in store.checkpoints().iter().filter(|c| c.turn >= from) {
        if !seen.iter().any(|s| s.path == c.path) {
            seen.push(c.clone());
        }
    }
    seen
}

/// Undoes the file changes of turn `from` (default: the last turn that changed files)
/// onward; returns what was done, line by line.
pub fn undo(store: &mut Store, from: Option<usize>, force: bool, cwd: &Path) -> anyhow::Result<String> {
    let Some(last) = store.checkpoints().last().map(|c| c.turn) else {
        bail!("nothing to undo: no turn has changed a file (or it was undone already)");
    };
    let from = from.unwrap_or(last);
    let targets = targets(store, from);
    if targets.is_empty() {
        bail!("nothing to undo from turn {from} on: the last turn that changed files is {last}");
    }
    let root = project_root(cwd);
    let (targets, refused): (Vec<Checkpoint>, Vec<Checkpoint>) =
        targets.into_iter().partition(|t| inside_project(&t.path, &root));
    let now: Vec<Option<FileState>> = targets.iter().map(|t| snapshot(&t.path).map(|s| s.state)).collect();
    // Changed outside elelem since its last write, or between two turns being undone (the
    // user's edit would be lost with the later turn's).
    let between =
        |t: &Checkpoint| store.checkpoints().iter().any(|c| c.turn > t.turn && c.path == t.path && c.changed_outside);
    let changed_outside: Vec<String> = targets
        .iter()
        .zip(&now)
        .filter(|(t, now)| now.as_ref() != store.written(&t.path) || between(t))
        .map(|(t, _)| shown(&t.path, cwd))
        .collect();
    if !changed_outside.is_empty() && !force {
        let which = if from == last { "/undo --force".to_string() } else { format!("/undo {from} --force") };
        bail!(
            "not undone: changed outside elelem since elelem wrote them (or between the turns undone): {}. {which} overwrites them.",
            changed_outside.join(", ")
        );
    }
    let mut lines: Vec<String> = refused
        .iter()
        .map(|t| format!("  {}: outside the project ({}), not restored", shown(&t.path, cwd), root.display()))
        .collect();
    let mut restored: Vec<(PathBuf, FileState)> = Vec::new();
    for (target, now) in targets.iter().zip(now) {
        let name = shown(&target.path, cwd);
        let (line, state) = restore(store, target, now);
        lines.push(format!("  {name}: {line}"));
        if let Some(state) = state {
            restored.push((target.path.clone(), state));
        }
    }
    store.undone(from, restored);
    let turns = if from == last { format!("turn {from}") } else { format!("turns {from}–{last}") };
    Ok(format!("Undid the file changes of {turns}:\n{}", lines.join("\n")))
}

/// Whether `path` is one `/undo` may touch: absolute, with no `.` or `..` in it, under the
/// project root. A record naming anything else (a session file edited by hand, an older
/// session's path) is refused, as is a checkpoint of a file a tool was allowed to change
/// outside the project.
pub fn inside_project(path: &Path, root: &Path) -> bool {
    path.is_absolute()
        && !path.components().any(|c| matches!(c, Component::CurDir | Component::ParentDir))
        && path.starts_with(root)
}

/// Puts one file back, never through a symlink (`paths::no_follow`: a link now at the path
/// is replaced or deleted itself, one on the way fails); content only when it still
/// matches its SHA-256. What happened, and what the file holds afterwards (when known).
fn restore(store: &Store, target: &Checkpoint, now: Option<FileState>) -> (String, Option<FileState>) {
    match &target.before {
        FileState::Missing if now == Some(FileState::Missing) => ("not there (nothing to delete)".into(), now),
        FileState::Missing => match no_follow::remove(&target.path) {
            Ok(()) => (format!("deleted (turn {} created it)", target.turn), Some(FileState::Missing)),
            Err(e) => (format!("cannot delete: {e}"), now),
        },
        FileState::TooLarge(size) => (format!("too large to checkpoint ({size} bytes), not restored"), now),
        FileState::Content(hash) if now.as_ref() == Some(&target.before) => {
            ("unchanged".into(), Some(FileState::Content(hash.clone())))
        }
        FileState::Content(hash) => {
            let Some(bytes) = store.blob(hash) else {
                return ("its earlier content is not in the session, not restored".into(), now);
            };
            if store::hash(bytes) != *hash {
                return ("its checkpoint does not match its SHA-256, not restored".into(), now);
            }
            match no_follow::replace(&target.path, bytes.as_slice()) {
                Ok(()) => ("restored".into(), Some(target.before.clone())),
                Err(e) => (format!("cannot restore: {e}"), now),
            }
        }
    }
}
