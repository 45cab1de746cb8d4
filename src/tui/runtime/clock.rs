//! The UI's clock: where elapsed times and animation phases read "now". The app runs on the
//! system clock; tests hand it a `ManualClock` they advance, so a frame is reproducible.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A source of "now".
pub trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

pub type SharedClock = Arc<dyn Clock>;

/// The real time.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that only moves when told to.
#[derive(Clone)]
pub struct ManualClock(Arc<Mutex<Instant>>);

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock(Arc::new(Mutex::new(Instant::now())))
    }
}

impl ManualClock {
    pub fn advance(&self, by: Duration) {
        if let Ok(mut now) = self.0.lock() {
            *now += by;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.0.lock().map(|now| *now).unwrap_or_else(|_| Instant::now())
    }
}
