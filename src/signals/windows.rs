//! The stop signals on Windows: the console's control events.

use super::Stop;
use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};
use tokio::signal::windows::{CtrlBreak, CtrlC, CtrlClose, CtrlLogoff, CtrlShutdown};

/// Listens for the console's stop events; created once per front end.
pub struct Stops {
    interrupt: Option<CtrlC>,
    quit: CtrlBreak,
    hang_up: CtrlClose,
    logoff: CtrlLogoff,
    shutdown: CtrlShutdown,
}

impl Stops {
    /// Listens for Ctrl+Break, the console closing, logoff and shutdown, and for Ctrl+C
    /// when `interrupt` is true (a front end that handles Ctrl+C itself leaves it out).
    pub fn new(interrupt: bool) -> std::io::Result<Stops> {
        Ok(Stops {
            interrupt: if interrupt { Some(ctrl_c()?) } else { None },
            quit: ctrl_break()?,
            hang_up: ctrl_close()?,
            logoff: ctrl_logoff()?,
            shutdown: ctrl_shutdown()?,
        })
    }

    /// The next stop event.
    pub async fn next(&mut self) -> Stop {
        let interrupt = super::or_never(self.interrupt.as_mut().map(|signal| signal.recv()));
        tokio::select! {
            _ = interrupt => Stop::Interrupt,
            _ = self.quit.recv() => Stop::Quit,
            _ = self.hang_up.recv() => Stop::HangUp,
            _ = self.logoff.recv() => Stop::Terminate,
            _ = self.shutdown.recv() => Stop::Terminate,
        }
    }
}

/// No file-size limit signal on Windows: nothing to do.
pub fn ignore_file_size_limit() {}
