//! The signals that end elelem from outside — SIGINT, SIGTERM, SIGHUP — for the front
//! ends to wait on, and the conventional exit status for each (128 + the signal number).

use tokio::signal::unix::{signal, Signal, SignalKind};

/// A signal that asks elelem to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
    HangUp,
}

impl Stop {
    /// `128 + signal`: 130, 143, 129.
    pub fn exit_status(self) -> u8 {
        128 + match self {
            Stop::Interrupt => libc::SIGINT,
            Stop::Terminate => libc::SIGTERM,
            Stop::HangUp => libc::SIGHUP,
        } as u8
    }
}

/// Listens for the stop signals; created once per front end.
pub struct Stops {
    interrupt: Option<Signal>,
    terminate: Signal,
    hang_up: Signal,
}

impl Stops {
    /// Listens for SIGTERM and SIGHUP, and for SIGINT when `interrupt` is true (a front end
    /// that handles Ctrl-C itself leaves it out).
    pub fn new(interrupt: bool) -> std::io::Result<Stops> {
        Ok(Stops {
            interrupt: if interrupt { Some(signal(SignalKind::interrupt())?) } else { None },
            terminate: signal(SignalKind::terminate())?,
            hang_up: signal(SignalKind::hangup())?,
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
        }
    }
}
