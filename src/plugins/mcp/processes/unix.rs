//! Stopping an MCP server's processes on Unix: freezing its group, its descendants and
//! the processes carrying its mark, then killing them.

use super::Mark;
use std::collections::{HashMap, HashSet};

impl Mark {
    /// The bytes an environ entry holding the mark has, with its terminating NUL.
    fn entry(&self) -> Vec<u8> {
        format!("{}={}\0", self.name(), self.0).into_bytes()
    }
}

/// Freezes the server's group, its descendants and its marked processes, then kills them.
pub(super) fn stop(pid: i32, mark: &Mark) {
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
    crate::process_tree::kill_group(pid);
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
