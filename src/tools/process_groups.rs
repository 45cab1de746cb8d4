//! The process groups tools have started and not yet reaped. `execute` registers each
//! command's group while it runs; a front end that is told to stop (SIGINT, SIGTERM,
//! SIGHUP, or quitting) calls `kill_all` so no command, and no background job it forked,
//! outlives elelem.

use std::collections::HashSet;
use std::sync::Mutex;

static GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// A group that is killed when dropped (or by `kill_all`).
pub struct GroupGuard(Option<i32>);

impl GroupGuard {
    /// Registers `pgid` (a positive process-group id); `None` registers nothing.
    pub fn new(pgid: Option<i32>) -> Self {
        let pgid = pgid.filter(|p| *p > 0);
        if let (Some(pgid), Ok(mut groups)) = (pgid, GROUPS.lock()) {
            groups.get_or_insert_with(HashSet::new).insert(pgid);
        }
        GroupGuard(pgid)
    }

    /// The command is done but jobs it put in the background may still run: leave them
    /// until elelem exits (`kill_all`) instead of killing them now.
    pub fn detach(mut self) {
        self.0 = None;
    }

    /// Kills the whole group now.
    pub fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            kill_group(pgid);
            if let Ok(mut groups) = GROUPS.lock() {
                groups.get_or_insert_with(HashSet::new).remove(&pgid);
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Kills every registered group that still has members in elelem's session (a group whose
/// processes are all gone may have had its number reused by someone else). Safe to call
/// from any exit path, more than once.
pub fn kill_all() {
    let groups = GROUPS.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
    if groups.is_empty() {
        return;
    }
    // SAFETY: getsid(0) only reads the calling process's session id.
    let session = unsafe { libc::getsid(0) };
    for pgid in live_groups(session).intersection(&groups) {
        kill_group(*pgid);
    }
}

/// The process groups with at least one process in `session`, from `/proc`.
fn live_groups(session: i32) -> HashSet<i32> {
    let mut live = HashSet::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return live };
    for entry in entries.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // Fields after the command name (which may hold spaces and parentheses).
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(pgrp), Some(sid)) = (fields.get(2), fields.get(3)) else { continue };
        if let (Ok(pgrp), Ok(sid)) = (pgrp.parse::<i32>(), sid.parse::<i32>()) {
            if sid == session {
                live.insert(pgrp);
            }
        }
    }
    live
}
