//! The signals that end elelem from outside — SIGINT, SIGTERM, SIGHUP, SIGQUIT — for the
//! front ends to wait on, and the conventional exit status for each (128 + the signal
//! number). SIGQUIT is taken like SIGTERM (its default action, a core dump, would leave the
//! terminal in the full-screen app's modes and every command a tool started running).
//! Also SIGXFSZ, which is caught and does nothing (`ignore_file_size_limit`), so a write
//! past a file-size limit fails with EFBIG (and is reported) instead of killing elelem.
//! On Windows (`windows.rs`) the console's events stand for them: Ctrl+C is SIGINT,
//! Ctrl+Break SIGQUIT, closing the console SIGHUP, logoff and shutdown SIGTERM.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{ignore_file_size_limit, Stops};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{ignore_file_size_limit, Stops};

/// A signal that asks elelem to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
    HangUp,
    Quit,
}

impl Stop {
    /// `128 + signal`: 130, 143, 129, 131.
    pub fn exit_status(self) -> u8 {
        128 + match self {
            Stop::Interrupt => 2,
            Stop::Terminate => 15,
            Stop::HangUp => 1,
            Stop::Quit => 3,
        }
    }
}

/// What `next` gives, or never without a listener (a front end that takes Ctrl+C itself).
async fn or_never(next: Option<impl std::future::Future<Output = Option<()>>>) -> Option<()> {
    match next {
        Some(next) => next.await,
        None => std::future::pending().await,
    }
}
