//! Containing a command on macOS: its `Command`'s child, once forked, replaces itself with
//! `/usr/bin/sandbox-exec` running the same program under the command's Seatbelt profile
//! (`seatbelt.rs`, through `wrap_exec.rs`). Everything `sandbox-exec` needs (its arguments,
//! the environment the `Command` was given) is made before the fork; the child only calls
//! `setsid`, `ioctl` and `execve`. There are no namespaces to start a command in, so `start`
//! says `None` and the caller runs it through `contain` (`unstarted.rs`).
//!
//! The command's own process group is its tree as elsewhere (`process_groups`,
//! `crate::process_tree`): what it starts stays sandboxed (a profile holds for every
//! descendant) and is killed with it.

use super::seatbelt::{self, SANDBOX_EXEC};
use super::wrap_exec::WrapExec;
use super::Mode;
use std::path::{Path, PathBuf};

/// Makes `cmd`'s child run its program under `sandbox-exec` with the profile for `cwd`
/// (relative to `project`): a session of its own (its terminal, when its stdin is one,
/// made its controlling terminal), its temp directory this run's own (`temp.rs`).
pub fn contain(cmd: &mut tokio::process::Command, project: &Path, cwd: Option<&str>) -> anyhow::Result<()> {
    let settings = super::settings();
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let dir = cwd.map_or_else(|| project.clone(), |cwd| project.join(cwd));
    let dir = dir.canonicalize().unwrap_or(dir);
    if settings.mode == Mode::WorkspaceWrite {
        if let Some(temp) = super::temp::dir(&project) {
            for var in super::temp::VARS {
                cmd.env(var, &temp);
            }
        }
    }
    let places = seatbelt::places(&settings, &project, &dir);
    let profile = seatbelt::profile(settings.mode, settings.network, &places);
    let exec = WrapExec::new(cmd.as_std(), Path::new(SANDBOX_EXEC), &profile.args())?;
    // SAFETY: between fork and exec the closure only makes system calls (setsid, isatty,
    // ioctl, execve) on strings and arrays made before the fork; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::isatty(0) == 1 {
                libc::ioctl(0, libc::TIOCSCTTY as _, 0);
            }
            Err(exec.run())
        });
    }
    Ok(())
}

/// Whether commands can be contained here: `sandbox-exec` is there.
pub fn available() -> bool {
    seatbelt::available()
}

/// Why commands cannot be contained here, in a few words.
pub fn unavailable_why() -> String {
    format!("no {}", PathBuf::from(SANDBOX_EXEC).display())
}
