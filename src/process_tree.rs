//! The processes below elelem, read from `/proc`: finding every descendant of a command
//! (in whatever process group or session it put itself) and stopping them all, and
//! reaping the orphans elelem adopted. A leaf: it names nothing in the crate, so tools
//! (`execute`, `!`) and plugins (MCP servers) can use it alike.
//!
//! At startup elelem makes itself a child subreaper (`become_subreaper`): a process whose
//! parent dies (a `setsid` daemon, the grandchild of a double fork) is reparented to
//! elelem instead of init, so it stays in elelem's tree and can be found. `Tree::kill`
//! stops (`SIGSTOP`) every process of a command's tree, looking again until no new one
//! appears (a stopped process cannot fork), then kills them all with `SIGKILL`. An
//! adopted orphan belongs to the command when it started after the command's root did.
//!
//! Orphans elelem adopted are nobody's children in the code: `reap_adopted` waits for the
//! ones that died. It never waits for a process some other code may wait for: a
//! process-group leader in elelem's session (the roots of commands and MCP servers), a
//! process in elelem's own group (the editor, `git`), or a child started as a session of
//! its own (a contained command, which has no terminal) through `own`, which knows it
//! from the moment it exists.
//!
//! That is Unix (`unix.rs`; `/proc` on Linux, `macos.rs`'s process list on macOS).
//! Windows (`windows.rs`) has no process groups, signals nor subreaper: a command's tree
//! is killed with `taskkill /T /F /PID`, which walks the parent links Windows keeps; what
//! a command left running after it ended and whose parent died is not found.

#[cfg(target_os = "macos")]
mod macos;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{
    become_subreaper, interrupt_group, kill_all_descendants, kill_group, killed_by, own_group, read, reap_adopted,
    snapshot, Tree,
};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{
    become_subreaper, interrupt_group, kill_all_descendants, kill_group, killed_by, own_group, reap_adopted, Tree,
};

use std::sync::Mutex;

/// The children started through `own` and not yet let go: waited for by the code that
/// started them, though they look like adopted orphans (a session of their own). Held while
/// one is started, and while `reap_adopted` looks, so none is taken for an orphan first.
static OWN: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn own_list() -> std::sync::MutexGuard<'static, Vec<i32>> {
    OWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A child started through `own`: known as this process's own until dropped (drop it once
/// the child is reaped).
#[derive(Debug)]
pub struct Own(Option<i32>);

impl Drop for Own {
    fn drop(&mut self) {
        if let Some(pid) = self.0.take() {
            own_list().retain(|p| *p != pid);
        }
    }
}

/// Starts a child with `start` (`pid` says which process it is) that makes itself a
/// session of its own: from the moment it exists it is never an adopted orphan, neither
/// reaped by `reap_adopted` nor counted in another command's `Tree`.
pub fn own<T, E>(start: impl FnOnce() -> Result<T, E>, pid: impl FnOnce(&T) -> Option<i32>) -> Result<(T, Own), E> {
    let mut list = own_list();
    let started = start()?;
    let pid = pid(&started).filter(|p| *p > 0);
    if let Some(pid) = pid {
        list.push(pid);
    }
    Ok((started, Own(pid)))
}

/// A process's exit status as a number: its code, or 128 + N when signal N killed it.
pub fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().or_else(|| killed_by(&status).map(|s| 128 + s)).unwrap_or(-1)
}

/// One process as `/proc/PID/stat` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    pub sid: i32,
    pub zombie: bool,
    /// Start time in clock ticks since boot.
    pub start: u64,
}

/// Parses the text of `/proc/PID/stat` (the command name may hold spaces and parentheses).
pub fn parse_stat(pid: i32, stat: &str) -> Option<Proc> {
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |i: usize| fields.get(i).and_then(|f| f.parse::<i64>().ok());
    Some(Proc {
        pid,
        zombie: *fields.first()? == "Z",
        ppid: i32::try_from(number(1)?).ok()?,
        pgrp: i32::try_from(number(2)?).ok()?,
        sid: i32::try_from(number(3)?).ok()?,
        start: u64::try_from(number(19)?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_parsed_past_a_command_name_with_spaces_and_parentheses() {
        let stat = "4242 (a (b) c) S 17 4242 4242 34816 4242 4194560 109 0 0 0 0 0 0 0 20 0 1 0 987654 1 2";
        let p = parse_stat(4242, stat).unwrap();
        assert_eq!(p, Proc { pid: 4242, ppid: 17, pgrp: 4242, sid: 4242, zombie: false, start: 987654 });
        assert!(parse_stat(1, "garbage").is_none());
        assert!(parse_stat(1, "1 (x) Z 0").is_none());
    }
}
