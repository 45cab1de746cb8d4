//! The process tree on Windows: no process groups, signals nor subreaper; a command's
//! tree is killed with `taskkill /T /F /PID`, which follows the parent links Windows keeps,
//! while a handle on its root (`OpenProcess`) keeps the root's number from being reused.

use std::collections::HashMap;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::process::{Command, Stdio};
use std::sync::Mutex;

#[link(name = "kernel32")]
extern "system" {
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> RawHandle;
    fn GetExitCodeProcess(process: RawHandle, code: *mut u32) -> i32;
    fn TerminateProcess(process: RawHandle, code: u32) -> i32;
}

/// The rights `TREES` needs: to ask a process's exit code, and to end it.
const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
const PROCESS_TERMINATE: u32 = 0x0001;
/// `GetExitCodeProcess`'s code while the process runs.
const STILL_ACTIVE: u32 = 259;

/// A handle on each tree's root, from `Tree::of` until it is killed: while one is open,
/// Windows gives the root's number to no other process, so `taskkill` never reaches a
/// stranger that got it after the root ended.
static TREES: Mutex<Option<HashMap<i32, OwnedHandle>>> = Mutex::new(None);

fn trees<R>(f: impl FnOnce(&mut HashMap<i32, OwnedHandle>) -> R) -> R {
    let mut trees = TREES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    f(trees.get_or_insert_with(HashMap::new))
}

/// A handle on the process `pid`, if it can be had.
fn open(pid: i32) -> Option<OwnedHandle> {
    let pid = u32::try_from(pid).ok().filter(|pid| *pid > 0)?;
    // SAFETY: OpenProcess takes plain values and returns a new handle we own, or null.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_TERMINATE, 0, pid) };
    // SAFETY: a non-null handle OpenProcess just returned, owned by nobody else.
    (!handle.is_null()).then(|| unsafe { OwnedHandle::from_raw_handle(handle) })
}

/// Whether the process `handle` names still runs.
fn runs(handle: &OwnedHandle) -> bool {
    let mut code = 0u32;
    // SAFETY: an open process handle and a pointer to one u32.
    let asked = unsafe { GetExitCodeProcess(handle.as_raw_handle(), &mut code) };
    asked != 0 && code == STILL_ACTIVE
}

/// A command's processes: its root and what it started.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    root: i32,
}

impl Tree {
    /// The tree under `root` (call it while `root` runs): a handle on the root is kept until
    /// the tree is killed.
    pub fn of(root: i32) -> Tree {
        if let Some(handle) = open(root) {
            trees(|trees| {
                trees.entry(root).or_insert(handle);
            });
        }
        Tree { root }
    }

    pub fn root(&self) -> i32 {
        self.root
    }

    /// Kills the root and every process below it (`taskkill /T /F`) while the root runs (a
    /// root that ended leads to nothing `taskkill` can follow), else the root alone
    /// (`TerminateProcess`); returns 1 when one of them did, else 0 (Windows does not say
    /// how many).
    pub fn kill(&self) -> usize {
        let Some(handle) = trees(|trees| trees.remove(&self.root)).or_else(|| open(self.root)) else { return 0 };
        if !runs(&handle) {
            return 0;
        }
        let killed = Command::new("taskkill")
            .args(["/T", "/F", "/PID", &self.root.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if killed.is_ok_and(|status| status.success()) {
            return 1;
        }
        // No taskkill (or one without /T, as Wine's): the root at least.
        // SAFETY: an open process handle with the right to end it.
        usize::from(unsafe { TerminateProcess(handle.as_raw_handle(), 1) } != 0)
    }
}

/// Kills the process `pgid` and its tree (no process groups on Windows).
pub fn kill_group(pgid: i32) {
    Tree::of(pgid).kill();
}

/// Sends Ctrl+Break to the console process group `pgid` (one `own_group` started): Ctrl+C
/// is not delivered to a process group of its own.
pub fn interrupt_group(pgid: i32) {
    #[link(name = "kernel32")]
    extern "system" {
        fn GenerateConsoleCtrlEvent(event: u32, group: u32) -> i32;
    }
    const CTRL_BREAK_EVENT: u32 = 1;
    if let Ok(group) = u32::try_from(pgid) {
        // SAFETY: a plain call with two integers; a group that is gone only fails.
        unsafe {
            GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group);
        }
    }
}

/// Starts `cmd`'s child in a console process group of its own (`CREATE_NEW_PROCESS_GROUP`:
/// the console's Ctrl+C is not sent to it).
pub fn own_group(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP)
}

/// No signals on Windows: no process is ended by one.
pub fn killed_by(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// Nothing to find on the way out beyond the trees `process_groups` kills: Windows
/// keeps no list of a process's descendants to walk once their parents died.
pub fn kill_all_descendants() -> usize {
    0
}

/// No zombies on Windows: nothing to reap.
pub fn reap_adopted() -> usize {
    0
}

/// No subreaper on Windows.
pub fn become_subreaper() -> std::io::Result<()> {
    Ok(())
}
