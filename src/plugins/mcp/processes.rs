//! The processes of running stdio MCP servers. Each server runs in a process group of its
//! own; stopping it (when its `ServerProcess` is dropped, and in `stop_all`, which
//! `startup::shutdown` calls on every exit path) freezes that group, finds every
//! descendant of the server by walking /proc (a daemon that called `setsid()` has left the
//! group but is still the server's descendant while the server lives, so it is found
//! before the server is killed), freezes those too, and kills them all. A process that
//! was orphaned before that (a double fork whose middle process already exited) is no
//! longer anyone's descendant here and is not found.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

static SERVERS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// A server process (the leader of its own group), stopped with its descendants on drop.
pub struct ServerProcess(Option<i32>);

impl ServerProcess {
    /// Registers the server `pid` (spawned as the leader of a new process group).
    pub fn new(pid: Option<u32>) -> Self {
        let pid = pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0);
        if let (Some(pid), Ok(mut servers)) = (pid, SERVERS.lock()) {
            servers.get_or_insert_with(HashSet::new).insert(pid);
        }
        ServerProcess(pid)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(pid) = self.0.take() {
            if let Ok(mut servers) = SERVERS.lock() {
                servers.get_or_insert_with(HashSet::new).remove(&pid);
            }
            stop(pid);
        }
    }
}

/// Stops every server still registered. Safe to call more than once.
pub fn stop_all() {
    let servers = SERVERS.lock().ok().and_then(|mut s| s.take()).unwrap_or_default();
    for pid in servers {
        stop(pid);
    }
}

/// Freezes the server's group and its descendants, then kills them all.
fn stop(pid: i32) {
    signal(-pid, libc::SIGSTOP);
    let mut found: HashSet<i32> = HashSet::new();
    // Only a live child of ours is walked from: a pid that is gone (or reaped and reused)
    // must not lead to someone else's processes.
    if is_our_child(pid) {
        // Twice: a process forked while the first walk ran is frozen by the second.
        for _ in 0..2 {
            for descendant in descendants(pid) {
                if found.insert(descendant) {
                    signal(descendant, libc::SIGSTOP);
                }
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

/// `(parent, process group)` of `pid` from /proc/PID/stat, and whether it is a zombie.
fn stat(pid: i32) -> Option<(i32, i32, bool)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold anything: fields follow its last ')'.
    let mut fields = text.get(text.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((parent, group, state == "Z"))
}

fn is_our_child(pid: i32) -> bool {
    // SAFETY: getpid(2) cannot fail and touches no memory.
    let me = unsafe { libc::getpid() };
    matches!(stat(pid), Some((parent, group, false)) if parent == me && group == pid)
}

/// Every process whose chain of parents leads to `root`.
fn descendants(root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if let Some((parent, _, _)) = stat(pid) {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut seen = HashSet::from([root]);
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            if seen.insert(child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
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
        let found = descendants(child.id() as i32);
        assert!(found.contains(&grandchild), "{found:?} lacks {grandchild}");
        // Not a group leader: stop() would kill only what kill(-pid) reaches, and walks nothing.
        assert!(!is_our_child(1));
        for pid in found {
            signal(pid, libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
