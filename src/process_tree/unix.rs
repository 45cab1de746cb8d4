//! The process tree on Unix: `/proc` (Linux) or the process list (macOS), process
//! groups, signals and the subreaper (see the module doc).

#[cfg(target_os = "linux")]
use super::parse_stat;
use super::{own_list, Proc};
use std::collections::{HashMap, HashSet};

/// How many times `Tree::kill` looks for new processes before killing what it found.
const ROUNDS: usize = 16;

#[cfg(target_os = "macos")]
pub use super::macos::{read, snapshot};

/// The process `pid`, if it exists.
#[cfg(target_os = "linux")]
pub fn read(pid: i32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat)
}

/// Every process `/proc` shows now.
#[cfg(target_os = "linux")]
pub fn snapshot() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries.flatten().filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok()).filter_map(read).collect()
}

/// Makes orphaned descendants reparent to this process instead of init
/// (`PR_SET_CHILD_SUBREAPER`).
#[cfg(target_os = "linux")]
pub fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
    let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere (macOS) there is no subreaper to become: orphans go to launchd, and a command's
/// tree is what is still below elelem or in the command's process group (a known limit,
/// not an error to tell at every start).
#[cfg(not(target_os = "linux"))]
pub fn become_subreaper() -> std::io::Result<()> {
    Ok(())
}

/// This process: its pid, process group and session, and whether it is a child subreaper.
#[derive(Clone, Copy)]
struct Me {
    pid: i32,
    pgrp: i32,
    sid: i32,
    /// Orphans are reparented to it. Without, it adopts nothing: every child is one some
    /// code of this process started and waits for (a test binary running elelem in
    /// process beside the pseudo-terminals of other tests, each a session of its own).
    subreaper: bool,
}

impl Me {
    #[cfg(not(target_os = "linux"))]
    fn now() -> Me {
        // SAFETY: these calls only read ids of the calling process.
        unsafe { Me { pid: libc::getpid(), pgrp: libc::getpgrp(), sid: libc::getsid(0), subreaper: false } }
    }

    #[cfg(target_os = "linux")]
    fn now() -> Me {
        let mut subreaper: libc::c_int = 0;
        // SAFETY: these calls only read ids of the calling process; PR_GET_CHILD_SUBREAPER
        // writes one int through the pointer given.
        unsafe {
            let asked = libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut subreaper as *mut libc::c_int, 0, 0, 0);
            Me {
                pid: libc::getpid(),
                pgrp: libc::getpgrp(),
                sid: libc::getsid(0),
                subreaper: asked == 0 && subreaper != 0,
            }
        }
    }

    /// Whether `p`, a child of this process, is one no other code waits for: this process
    /// is a subreaper, and `p` is neither a process-group leader in this session (a
    /// command's or a server's root), a member of this process's own group, nor one of
    /// the `own` children.
    fn adopted(&self, p: &Proc, own: &[i32]) -> bool {
        self.subreaper
            && p.ppid == self.pid
            && p.pid != self.pid
            && !(p.pid == p.pgrp && p.sid == self.sid)
            && p.pgrp != self.pgrp
            && !own.contains(&p.pid)
    }
}

/// A command's processes: its root (usually the leader of a process group of its own),
/// what started after it and was orphaned to elelem, and everything they started.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    root: i32,
    /// The root's start time: adopted orphans that started since belong to the tree.
    started: Option<u64>,
}

impl Tree {
    /// The tree under `root` (call it while `root` runs).
    pub fn of(root: i32) -> Tree {
        Tree { root, started: read(root).map(|p| p.start) }
    }

    pub fn root(&self) -> i32 {
        self.root
    }

    /// The tree's processes now: the root, its process group, the adopted orphans that
    /// started since the root did, and all their descendants.
    fn members(&self, procs: &[Proc], me: Me, own: &[i32]) -> HashSet<i32> {
        let seeds = procs.iter().filter(|p| {
            p.pid == self.root
                || (p.pgrp == self.root && p.pid != me.pid)
                || self.started.is_some_and(|since| me.adopted(p, own) && p.start >= since)
        });
        descendants_of(procs, seeds.map(|p| p.pid), me)
    }

    /// Stops and kills every process of the tree; returns how many were signalled.
    pub fn kill(&self) -> usize {
        let me = Me::now();
        let killed = freeze_and_kill(|procs, own| self.members(procs, me, own));
        if self.root > 0 {
            signal(-self.root, libc::SIGKILL); // whatever of its group is left
        }
        reap_adopted();
        killed
    }
}

/// `seeds` and every process below them (by parent links), never this process.
fn descendants_of(procs: &[Proc], seeds: impl Iterator<Item = i32>, me: Me) -> HashSet<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in procs {
        children.entry(p.ppid).or_default().push(p.pid);
    }
    let mut found: HashSet<i32> = HashSet::new();
    let mut queue: Vec<i32> = seeds.filter(|pid| *pid != me.pid && *pid > 1).collect();
    while let Some(pid) = queue.pop() {
        if found.insert(pid) {
            queue.extend(children.get(&pid).into_iter().flatten().filter(|c| **c != me.pid));
        }
    }
    found
}

/// Stops what `members` finds, again until nothing new appears, then kills it all.
/// `members` gets the processes and the `own` children, listed after the processes were
/// read (so a child that shows in them is known by then).
fn freeze_and_kill(members: impl Fn(&[Proc], &[i32]) -> HashSet<i32>) -> usize {
    let mut stopped: HashSet<i32> = HashSet::new();
    for _ in 0..ROUNDS {
        let procs = snapshot();
        let own = own_list().clone();
        let live: HashSet<i32> = procs.iter().filter(|p| !p.zombie).map(|p| p.pid).collect();
        let new: Vec<i32> =
            members(&procs, &own).into_iter().filter(|pid| live.contains(pid) && !stopped.contains(pid)).collect();
        if new.is_empty() {
            break;
        }
        for pid in new {
            signal(pid, libc::SIGSTOP);
            stopped.insert(pid);
        }
    }
    for pid in &stopped {
        signal(*pid, libc::SIGKILL);
    }
    stopped.len()
}

/// Kills every descendant of this process (on the way out: nothing elelem started may
/// outlive it).
pub fn kill_all_descendants() -> usize {
    let me = Me::now();
    let killed =
        freeze_and_kill(|procs, _| descendants_of(procs, procs.iter().filter(|p| p.ppid == me.pid).map(|p| p.pid), me));
    reap_adopted();
    killed
}

/// Waits for the adopted orphans that died (see the module's doc for which ones);
/// returns how many were reaped.
pub fn reap_adopted() -> usize {
    let me = Me::now();
    let own = own_list();
    let mut reaped = 0;
    for p in snapshot().iter().filter(|p| p.zombie && me.adopted(p, &own)) {
        let mut status = 0;
        // SAFETY: waitpid(2) on one pid with WNOHANG writes only `status`.
        if unsafe { libc::waitpid(p.pid, &mut status, libc::WNOHANG) } == p.pid {
            reaped += 1;
        }
    }
    reaped
}

/// Kills the process group `pgid` (its leader's number) with SIGKILL.
pub fn kill_group(pgid: i32) {
    signal(-pgid, libc::SIGKILL);
}

/// Interrupts the process group `pgid` (SIGINT).
pub fn interrupt_group(pgid: i32) {
    signal(-pgid, libc::SIGINT);
}

/// Makes `cmd`'s child the leader of a process group of its own.
pub fn own_group(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    cmd.process_group(0)
}

/// The signal that ended a process, if one did.
pub fn killed_by(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

fn signal(pid: i32, signal: i32) {
    // SAFETY: kill(2) touches no memory; a pid that is gone only fails with ESRCH.
    unsafe {
        libc::kill(pid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(pid: i32, ppid: i32, pgrp: i32, sid: i32, start: u64) -> Proc {
        Proc { pid, ppid, pgrp, sid, zombie: false, start }
    }

    #[test]
    fn a_tree_holds_its_group_its_descendants_and_the_orphans_started_after_it() {
        let me = Me { pid: 10, pgrp: 10, sid: 1, subreaper: true };
        let procs = [
            proc(10, 1, 10, 1, 0),     // elelem
            proc(20, 10, 20, 1, 100),  // the command's root
            proc(21, 20, 20, 1, 101),  // its child
            proc(22, 21, 22, 22, 102), // a setsid grandchild
            proc(23, 22, 22, 22, 103), // and its child
            proc(30, 10, 30, 30, 104), // an orphan adopted by elelem, started after the root
            proc(31, 30, 30, 30, 105), // its child
            proc(40, 10, 40, 40, 50),  // an orphan from before the command
            proc(50, 10, 50, 1, 110),  // an MCP server: a group leader in elelem's session
            proc(60, 10, 10, 1, 120),  // the editor, in elelem's group
        ];
        let tree = Tree { root: 20, started: Some(100) };
        let mut members: Vec<i32> = tree.members(&procs, me, &[]).into_iter().collect();
        members.sort();
        assert_eq!(members, vec![20, 21, 22, 23, 30, 31]);
        // A child started as a session of its own through `own` (another contained
        // command) is no orphan, though it started after the root.
        let mut members: Vec<i32> = tree.members(&procs, me, &[30]).into_iter().collect();
        members.sort();
        assert_eq!(members, vec![20, 21, 22, 23]);
        // Not a subreaper: a child in a session of its own is someone's own child, never
        // an orphan to take into a command's tree.
        let mut members: Vec<i32> = tree.members(&procs, Me { subreaper: false, ..me }, &[]).into_iter().collect();
        members.sort();
        assert_eq!(members, vec![20, 21, 22, 23]);
    }

    /// The flake of a test binary: a command killed in process took with it a process
    /// another test had started after it in a session of its own (a pseudo-terminal's
    /// elelem), counted as an adopted orphan though this process is no subreaper.
    #[test]
    fn killing_a_tree_leaves_a_later_child_of_another_session_alone_when_not_a_subreaper() {
        use std::os::unix::process::CommandExt;
        use std::process::Command;
        let mut command = Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        let tree = Tree::of(i32::try_from(command.id()).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(20)); // started later, surely
        let mut other = Command::new("sleep");
        other.arg("30");
        // SAFETY: setsid(2) in the child before exec touches no memory.
        unsafe {
            other.pre_exec(|| if libc::setsid() < 0 { Err(std::io::Error::last_os_error()) } else { Ok(()) });
        }
        let mut other = other.spawn().unwrap();
        assert!(!Me::now().subreaper, "the test binary is no subreaper");
        tree.kill();
        command.wait().unwrap();
        let survived = other.try_wait().unwrap().is_none();
        let _ = other.kill();
        let _ = other.wait();
        assert!(survived, "another session's child was killed with the command");
    }

    #[test]
    fn killing_a_tree_reaches_a_setsid_child() {
        use std::process::Command;
        // A shell in its own group that starts a setsid sleeper and waits.
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let mut child = std::os::unix::process::CommandExt::process_group(
            Command::new("sh")
                .arg("-c")
                .arg(format!("setsid sh -c 'echo $$ > {}; exec sleep 30' & wait", pid_file.display())),
            0,
        )
        .spawn()
        .unwrap();
        let started = std::time::Instant::now();
        let sleeper = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse::<i32>().ok()) {
                break pid;
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "the sleeper never started");
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let root = i32::try_from(child.id()).unwrap();
        assert_ne!(read(sleeper).unwrap().sid, read(root).unwrap().sid);
        assert!(Tree::of(root).kill() >= 2);
        child.wait().unwrap();
        let gone = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            read(sleeper).is_none_or(|p| p.zombie)
        });
        assert!(gone, "the setsid sleeper survived");
    }
}
