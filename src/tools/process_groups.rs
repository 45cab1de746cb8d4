//! The commands tools have started and not yet reaped. `execute` and the user's `!`
//! register each command's process group while it runs (`GroupGuard`; a contained command
//! started without namespaces leads a session of its own, of the same number); killing it
//! stops the command's whole process tree (`crate::process_tree`: its group, anything it
//! moved to another group or session, the orphans it left to elelem). A front end that is
//! told to stop (SIGINT, SIGTERM, SIGHUP, or quitting) calls `kill_all` so no command, and
//! no background job it forked, outlives elelem. On Windows a command's "group" is the
//! process `taskkill /T` kills with its tree (`process_tree`).

use crate::process_tree::{self, Tree};
use std::collections::HashMap;
#[cfg(unix)]
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static GROUPS: Mutex<Option<HashMap<i32, Tree>>> = Mutex::new(None);

/// A command's process group (and tree) that is killed when dropped (or by `kill_all`).
pub struct GroupGuard(Option<Tree>);

impl GroupGuard {
    /// Registers `pgid` (a positive process-group id whose leader, the command, runs now);
    /// `None` registers nothing.
    pub fn new(pgid: Option<i32>) -> Self {
        let tree = pgid.filter(|p| *p > 0).map(Tree::of);
        if let (Some(tree), Ok(mut groups)) = (tree, GROUPS.lock()) {
            groups.get_or_insert_with(HashMap::new).insert(tree.root(), tree);
        }
        GroupGuard(tree)
    }

    /// The command is done but jobs it put in the background may still run: leave them
    /// until elelem exits (`kill_all`) instead of killing them now.
    pub fn detach(mut self) {
        self.0 = None;
        process_tree::reap_adopted();
    }

    /// Kills the command's whole tree now.
    pub fn kill(&mut self) {
        if let Some(tree) = self.0.take() {
            tree.kill();
            if let Ok(mut groups) = GROUPS.lock() {
                groups.get_or_insert_with(HashMap::new).remove(&tree.root());
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Kills every registered group that still has members in elelem's session or in a
/// session of its own (a contained command's, `setsid` in its child; a group whose
/// processes are all gone may have had its number reused by someone else), then every
/// process below elelem (what left its group or session; with elelem a subreaper, every
/// orphan too). Safe to call from any exit path, more than once.
pub fn kill_all() {
    let groups = GROUPS.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
    if !groups.is_empty() {
        kill_registered(&groups);
    }
    process_tree::kill_all_descendants();
}

/// Kills the registered groups that are still live (see `kill_all`).
#[cfg(unix)]
fn kill_registered(groups: &HashMap<i32, Tree>) {
    // SAFETY: getsid(0) only reads the calling process's session id.
    let session = unsafe { libc::getsid(0) };
    let live = live_groups(session);
    for pgid in groups.keys().filter(|pgid| live.contains(pgid)) {
        process_tree::kill_group(*pgid);
    }
}

/// Kills each registered command's tree (`taskkill /T`): Windows has no groups to signal.
#[cfg(windows)]
fn kill_registered(groups: &HashMap<i32, Tree>) {
    for tree in groups.values() {
        tree.kill();
    }
}

/// Reaps the orphans elelem adopted as they die (`process_tree::reap_adopted` on each
/// SIGCHLD), on the current tokio runtime; started once per process, nothing without a
/// runtime. (Each command's end reaps them too.)
#[cfg(unix)]
pub fn reap_orphans_in_background() {
    static STARTED: AtomicBool = AtomicBool::new(false);
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    if STARTED.swap(true, Ordering::SeqCst) {
        return;
    }
    runtime.spawn(async {
        let Ok(mut children) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child()) else {
            return;
        };
        while children.recv().await.is_some() {
            process_tree::reap_adopted();
        }
    });
}

/// No orphans to reap on Windows.
#[cfg(windows)]
pub fn reap_orphans_in_background() {}

/// The process groups with at least one process in `session`, or in the session the group
/// leads (a command without a terminal made itself a session of its own).
#[cfg(unix)]
fn live_groups(session: i32) -> std::collections::HashSet<i32> {
    process_tree::snapshot().into_iter().filter(|p| p.sid == session || p.sid == p.pgrp).map(|p| p.pgrp).collect()
}
