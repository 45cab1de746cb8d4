//! The `Interrupter`: cancels whatever turn is running, shared between a session's loop
//! (which begins and ends each line's token) and its front end (which interrupts).

use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Cancels whatever turn is running; shared between a session loop and its front end.
#[derive(Clone, Default)]
pub struct Interrupter(Arc<Mutex<Option<CancellationToken>>>);

impl Interrupter {
    /// A fresh token for the next turn.
    pub fn begin(&self) -> CancellationToken {
        let token = CancellationToken::new();
        if let Ok(mut current) = self.0.lock() {
            *current = Some(token.clone());
        }
        token
    }

    /// Cancels the running turn; `false` when none was running.
    pub fn interrupt(&self) -> bool {
        match self.0.lock().ok().and_then(|mut current| current.take()) {
            Some(token) if !token.is_cancelled() => {
                token.cancel();
                true
            }
            _ => false,
        }
    }

    /// Forgets the finished turn's token.
    pub fn end(&self) {
        if let Ok(mut current) = self.0.lock() {
            *current = None;
        }
    }
}
