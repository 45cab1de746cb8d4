//! The processes of running stdio MCP servers. Each server runs in a process group of its
//! own, with a `Mark` in its environment (`ELELEM_MCP_SERVER=<pid>-<n>`, inherited by
//! whatever it starts). Stopping it (when its `ServerProcess` is dropped, and in
//! `stop_all`, which `startup::shutdown` calls on every exit path) freezes that group,
//! finds every descendant of the server (`process_tree::snapshot`: a daemon that called
//! `setsid()` has left the group but is still the server's descendant while the server
//! lives) and every process of ours whose environment carries the mark (a double-forked
//! daemon, whose parent link is gone; read from /proc, so on Linux only), freezes those
//! too, and kills them all. A process that both left the tree and cleared its environment
//! is not found. On Windows (`windows.rs`) a server's tree is killed with `taskkill /T`.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix::stop;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows::stop;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Registered servers: pid and mark.
static SERVERS: Mutex<Option<HashMap<i32, Mark>>> = Mutex::new(None);

/// The environment variable that marks one server's processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark(String);

impl Mark {
    /// A mark no other server of any elelem has: this process's pid and a counter.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Mark(format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)))
    }

    pub fn name(&self) -> &'static str {
        "ELELEM_MCP_SERVER"
    }

    pub fn value(&self) -> &str {
        &self.0
    }
}

/// A server process (the leader of its own group), stopped with its descendants on drop.
pub struct ServerProcess(Option<(i32, Mark)>);

impl ServerProcess {
    /// Registers the server `pid` (spawned as the leader of a new process group) whose
    /// environment holds `mark`.
    pub fn new(pid: Option<u32>, mark: Mark) -> Self {
        let pid = pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0);
        if let (Some(pid), Ok(mut servers)) = (pid, SERVERS.lock()) {
            servers.get_or_insert_with(HashMap::new).insert(pid, mark.clone());
        }
        ServerProcess(pid.map(|pid| (pid, mark)))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some((pid, mark)) = self.0.take() {
            if let Ok(mut servers) = SERVERS.lock() {
                servers.get_or_insert_with(HashMap::new).remove(&pid);
            }
            stop(pid, &mark);
        }
    }
}

/// Stops every server still registered. Safe to call more than once.
pub fn stop_all() {
    let servers = SERVERS.lock().ok().and_then(|mut s| s.take()).unwrap_or_default();
    for (pid, mark) in servers {
        stop(pid, &mark);
    }
}
