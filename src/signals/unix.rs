//! The stop signals and SIGXFSZ on Unix.

use super::Stop;
use tokio::signal::unix::{signal, Signal, SignalKind};

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
        let interrupt = super::or_never(self.interrupt.as_mut().map(|signal| signal.recv()));
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
