//! The signals that end elelem from outside — SIGINT, SIGTERM, SIGHUP, SIGQUIT — for the
//! front ends to wait on, and the conventional exit status for each (128 + the signal
//! number). SIGQUIT is taken like SIGTERM (its default action, a core dump, would leave the
//! terminal in the full-screen app's modes and every command a tool started running).
//! Also SIGXFSZ, which is caught and does nothing (`ignore_file_size_limit`), so a write
//! past a file-size limit fails with EFBIG (and is reported) instead of killing elelem.

use tokio::signal::unix::{signal, Signal, SignalKind};

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
            Stop::Interrupt => libc::SIGINT,
            Stop::Terminate => libc::SIGTERM,
            Stop::HangUp => libc::SIGHUP,
            Stop::Quit => libc::SIGQUIT,
        } as u8
    }
}

/// Listens for the stop signals; created once per front end.
pub struct Stops {
    interrupt: Option<Signal>,
    terminate: Signal,
    hang_up: Signal,
    quit: Signal,
}

impl Stops {
    /// Listens for SIGTERM, SIGHUP and SIGQUIT, and for SIGINT when `interrupt` is true (a front end
    /// that handles Ctrl-C itself leaves it out).
    pub fn new(interrupt: bool) -> std::io::Result<Stops> {
        Ok(Stops {
            interrupt: if interrupt { Some(signal(SignalKind::interrupt())?) } else { None },
            terminate: signal(SignalKind::terminate())?,
            hang_up: signal(SignalKind::hangup())?,
            quit: signal(SignalKind::quit())?,
        })
    }

    /// The next stop signal.
    pub async fn next(&mut self) -> Stop {
        let interrupt = async {
            match self.interrupt.as_mut() {
                Some(signal) => signal.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = interrupt => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
            _ = self.hang_up.recv() => Stop::HangUp,
            _ = self.quit.recv() => Stop::Quit,
        }
    }
}

/// Does nothing: SIGXFSZ's handler.
extern "C" fn file_size_limit_reached(_: libc::c_int) {}

/// Makes a write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE) fail with EFBIG
/// instead of killing elelem with SIGXFSZ, so the session recorder can report it and the
/// reply is still shown. The signal is caught by a handler that does nothing rather than
/// set to SIG_IGN: an ignored signal stays ignored in the commands tools run, a caught one
/// goes back to its default there (exec resets handlers).
pub fn ignore_file_size_limit() {
    // SAFETY: sigaction with a zeroed struct, an empty mask and a handler that touches
    // nothing (async-signal-safe); called once at startup.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = file_size_limit_reached as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGXFSZ, &action, std::ptr::null_mut());
    }
}
