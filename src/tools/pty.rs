//! A pseudo-terminal of a job's own (`execute`'s `pty`): a new master from `/dev/ptmx`,
//! which elelem holds, and its slave, which becomes the job's stdin, stdout, stderr and
//! controlling terminal. Never the user's terminal: a contained command still cannot open
//! `/dev/tty`, `/dev/pts/*` or `/dev/ptmx` itself (`sandbox/rules.rs`); it only gets this
//! slave, already open.
//!
//! Unix only (`pty/unix.rs`): on Windows (`pty/windows.rs`, no ConPTY here) a job asking
//! for a terminal is refused with an error that says so.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{make_controlling, open};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{make_controlling, open};

/// The size the job's terminal says it has.
pub const COLUMNS: u16 = 120;
pub const ROWS: u16 = 40;
