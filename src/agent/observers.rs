//! The session's output: the front end's `Output` with the plugins' observers behind it.
//! An event is copied for the observers only when one of them wants it.

use super::output::{AgentEvent, Output};
use std::sync::{Arc, RwLock};

/// Sees every event the session's output shows, just after the front end does. Observers
/// are plugin state: `reload` forgets them before the setup blocks run again.
pub type Observer = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// An observer and the events it wants (every one, unless it said).
#[derive(Clone)]
pub(crate) struct Watching {
    pub(crate) wants: fn(&AgentEvent) -> bool,
    pub(crate) observer: Observer,
}

/// The front end's output with the observers behind it. An event is copied for the
/// observers only when one of them wants it (not every streamed delta, nor each context
/// holding a long reply, for an observer that only counts turns).
pub(crate) struct Observed {
    pub(crate) front: Arc<dyn Output>,
    pub(crate) observers: Arc<RwLock<Vec<Watching>>>,
}

impl Output for Observed {
    fn emit(&self, event: AgentEvent) {
        let observers: Vec<Observer> = self
            .observers
            .read()
            .map(|o| o.iter().filter(|w| (w.wants)(&event)).map(|w| w.observer.clone()).collect())
            .unwrap_or_default();
        if observers.is_empty() {
            return self.front.emit(event);
        }
        self.front.emit(event.clone());
        for observer in observers {
            observer(&event);
        }
    }
}
