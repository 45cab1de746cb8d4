//! The process tree on Windows: no process groups, signals nor subreaper; a command's
//! tree is killed with `taskkill /T /F /PID`, which follows the parent links Windows keeps.

use std::process::{Command, Stdio};

/// A command's processes: its root and what it started.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    root: i32,
}

impl Tree {
    /// The tree under `root` (call it while `root` runs).
    pub fn of(root: i32) -> Tree {
        Tree { root }
    }

    pub fn root(&self) -> i32 {
        self.root
    }

    /// Kills the root and every process below it (`taskkill /T /F`); returns 1 when
    /// `taskkill` said it did, else 0 (Windows does not say how many).
    pub fn kill(&self) -> usize {
        if self.root <= 0 {
            return 0;
        }
        let killed = Command::new("taskkill")
            .args(["/T", "/F", "/PID", &self.root.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        usize::from(killed.is_ok_and(|status| status.success()))
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
