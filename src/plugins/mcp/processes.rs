//! The process groups of running stdio MCP servers. Each server runs in a group of its
//! own, killed when its `ServerProcess` is dropped; `stop_all` (called by
//! `startup::shutdown` on every exit path) kills whatever is still registered.

use std::collections::HashSet;
use std::sync::Mutex;

static GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// A server's process group, killed on drop.
pub struct ServerProcess(Option<i32>);

impl ServerProcess {
    /// Registers the group led by `pid` (the server was spawned as a group leader).
    pub fn new(pid: Option<u32>) -> Self {
        let pgid = pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0);
        if let (Some(pgid), Ok(mut groups)) = (pgid, GROUPS.lock()) {
            groups.get_or_insert_with(HashSet::new).insert(pgid);
        }
        ServerProcess(pgid)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.take() {
            if let Ok(mut groups) = GROUPS.lock() {
                groups.get_or_insert_with(HashSet::new).remove(&pgid);
            }
            kill_group(pgid);
        }
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Kills every server still registered. Safe to call more than once.
pub fn stop_all() {
    let groups = GROUPS.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
    for pgid in groups {
        kill_group(pgid);
    }
}
