//! The processes of running stdio MCP servers. Each server runs in a process group of its
//! own, with a `Mark` in its environment (`ELELEM_MCP_SERVER=<pid>-<n>`, inherited by
//! whatever it starts). Stopping it (when its `ServerProcess` is dropped, and in
//! `stop_all`, which `startup::shutdown` calls on every exit path) freezes that group,
//! finds every descendant of the server (`process_tree::snapshot`: a daemon that called
//! `setsid()` has left the group but is still the server's descendant while the server
//! lives) and every process of ours whose environment carries the mark (a double-forked
//! daemon, whose parent link is gone; read from /proc, so on Linux only), freezes those
//! too, and kills them all. A process that both left the tree and cleared its environment
//! is not found.

use std::collections::{HashMap, HashSet};
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

    /// The bytes an environ entry holding the mark has, with its terminating NUL.
    fn entry(&self) -> Vec<u8> {
        format!("{}={}\0", self.name(), self.0).into_bytes()
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

/// Freezes the server's group, its descendants and its marked processes, then kills them.
fn stop(pid: i32, mark: &Mark) {
    signal(-pid, libc::SIGSTOP);
    let mut found: HashSet<i32> = HashSet::new();
    // Only a live child of ours is walked from: a pid that is gone (or reaped and reused)
    // must not lead to someone else's processes. The mark is unique, so it is looked for
    // whatever became of the server.
    let walk = is_our_child(pid);
    // Twice: a process forked while the first look ran is frozen by the second.
    for _ in 0..2 {
        for process in related(pid, walk, mark) {
            if found.insert(process) {
                signal(process, libc::SIGSTOP);
            }
        }
    }
    signal(-pid, libc::SIGKILL);
    for descendant in found {
        signal(descendant, libc::SIGKILL);
    }
}

fn signal(pid: i32, signal: i32) {
    // SAFETY: kill(2) takes plain integers; no memory is touched.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// `(parent, process group)` of `pid` (`process_tree::read`: /proc/PID/stat, or macOS's
/// process list), and whether it is a zombie.
fn stat(pid: i32) -> Option<(i32, i32, bool)> {
    let process = crate::process_tree::read(pid)?;
    Some((process.ppid, process.pgrp, process.zombie))
}

fn is_our_child(pid: i32) -> bool {
    // SAFETY: getpid(2) cannot fail and touches no memory.
    let me = unsafe { libc::getpid() };
    matches!(stat(pid), Some((parent, group, false)) if parent == me && group == pid)
}

/// Every process whose chain of parents leads to `root` (when `walk`), and every process
/// whose environment holds `mark` (except this one).
fn related(root: i32, walk: bool, mark: &Mark) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let mut found = Vec::new();
    let mut seen = HashSet::from([root, std::process::id() as i32]);
    let entry = mark.entry();
    for process in crate::process_tree::snapshot() {
        let pid = process.pid;
        if walk {
            children.entry(process.ppid).or_default().push(pid);
        }
        // Another user's environ is unreadable: those are not ours anyway (nor is there
        // /proc on macOS: the mark is not looked for there).
        if let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) {
            if starts_entry(&environ, &entry) && seen.insert(pid) {
                found.push(pid);
            }
        }
    }
    let mut queue = vec![root];
    let mut walked = HashSet::from([root]);
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            if walked.insert(child) {
                queue.push(child);
                if seen.insert(child) {
                    found.push(child);
                }
            }
        }
    }
    found
}

/// Whether `environ` (NUL-separated entries) holds `entry` (ending in NUL) as an entry.
fn starts_entry(environ: &[u8], entry: &[u8]) -> bool {
    environ.starts_with(entry) || memchr::memmem::find_iter(environ, entry).any(|at| at > 0 && environ[at - 1] == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_grandchild_and_nothing_from_a_pid_that_is_not_ours() {
        let pid_file = tempfile::NamedTempFile::new().unwrap();
        let script = format!("sh -c 'sleep 60 & echo $! > {0}; wait' & wait", pid_file.path().display());
        let mut child = std::process::Command::new("sh").args(["-c", &script]).spawn().unwrap();
        let start = std::time::Instant::now();
        let mut text = String::new();
        while text.trim().is_empty() && start.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(20));
            text = std::fs::read_to_string(pid_file.path()).unwrap_or_default();
        }
        let grandchild: i32 = text.trim().parse().unwrap();
        let found = related(child.id() as i32, true, &Mark::new());
        assert!(found.contains(&grandchild), "{found:?} lacks {grandchild}");
        // Not a group leader: stop() would kill only what kill(-pid) reaches, and walks nothing.
        assert!(!is_our_child(1));
        assert!(starts_entry(b"A=1\0ELELEM_MCP_SERVER=7-1\0", b"ELELEM_MCP_SERVER=7-1\0"));
        assert!(!starts_entry(b"XELELEM_MCP_SERVER=7-1\0", b"ELELEM_MCP_SERVER=7-1\0"));
        assert!(!starts_entry(b"ELELEM_MCP_SERVER=7-12\0", b"ELELEM_MCP_SERVER=7-1\0"));
        for pid in found {
            signal(pid, libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
