//! `Demand`: how a front end that draws frames sets the pace of streamed text itself. The
//! front end grants the next hand-over when it wants to show more (the TUI's frame
//! scheduler, at its stream interval); a paced stream hands over what is waiting once per
//! grant, and tells, by taking the grant, that it waits for the next one. No clock runs
//! here: the front end's is the only one.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How long a stream waits for a grant before it hands over anyway: only a front end that
/// stopped granting (gone, or wedged) is ever this late, and its stream still ends.
const STALLED: Duration = Duration::from_secs(1);

/// Grants of hand-overs, shared by the front end (which grants) and every stream paced by
/// it (which take them). Cloning shares it.
#[derive(Clone, Default)]
pub struct Demand(Arc<Shared>);

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes a reader blocked in `wait_blocking` (the read-ahead thread).
    granted: Condvar,
    /// Wakes a reader awaiting `wait` (a stream read on its reader's task).
    notify: tokio::sync::Notify,
}

#[derive(Default)]
struct State {
    /// Grants made so far.
    granted: u64,
    /// The newest grant a reader has taken.
    taken: u64,
}

impl std::fmt::Debug for Demand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("Demand").field("granted", &state.granted).field("taken", &state.taken).finish()
    }
}

impl Demand {
    /// The front end wants the next hand-over of every paced stream.
    pub fn grant(&self) {
        self.state().granted += 1;
        self.0.granted.notify_all();
        self.0.notify.notify_waiters();
    }

    /// Whether the newest grant was taken: a stream handed over since and waits for the
    /// next one (so the front end owes it a grant). False while a grant is still unused,
    /// which is the case whenever nothing streams.
    pub fn owed(&self) -> bool {
        let state = self.state();
        state.taken >= state.granted
    }

    /// A reader hands over now: it takes the newest grant and will wait for a later one
    /// (returned, to pass to `wait` or `wait_blocking`).
    pub fn take(&self) -> u64 {
        let mut state = self.state();
        state.taken = state.granted;
        state.granted
    }

    /// Blocks the calling thread until a grant after `seen`, or for at most `STALLED`.
    pub(super) fn wait_blocking(&self, seen: u64) {
        self.wait_blocking_at_most(seen, STALLED);
    }

    fn wait_blocking_at_most(&self, seen: u64, limit: Duration) {
        let state = self.state();
        let _ = self.0.granted.wait_timeout_while(state, limit, |state| state.granted <= seen);
    }

    /// Waits until a grant after `seen`, or for at most `STALLED`.
    pub(super) async fn wait(&self, seen: u64) {
        let _ = tokio::time::timeout(STALLED, self.wait_for_grant(seen)).await;
    }

    async fn wait_for_grant(&self, seen: u64) {
        loop {
            let notified = self.0.notify.notified();
            if self.state().granted > seen {
                return;
            }
            notified.await;
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is two counters, always whole: a panic elsewhere cannot leave it torn.
        self.0.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_is_owed_once_a_reader_took_the_last_one() {
        let demand = Demand::default();
        assert!(demand.owed(), "a new stream's first hand-over needs no grant, the next does");
        demand.grant();
        assert!(!demand.owed(), "granted and not taken: nothing streams");
        let seen = demand.take();
        assert!(demand.owed());
        demand.grant();
        // The grant after `seen` is there: no wait.
        demand.wait_blocking_at_most(seen, Duration::from_secs(3600));
    }

    #[test]
    fn a_blocked_reader_goes_on_at_the_grant_or_the_limit() {
        let demand = Demand::default();
        let seen = demand.take();
        let started = std::time::Instant::now();
        demand.wait_blocking_at_most(seen, Duration::from_millis(20));
        assert!(started.elapsed() >= Duration::from_millis(20), "no grant, yet it went on");
        let granter = demand.clone();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            granter.grant();
        });
        let started = std::time::Instant::now();
        demand.wait_blocking_at_most(seen, Duration::from_secs(3600));
        assert!(started.elapsed() < Duration::from_secs(60));
        let _ = thread.join();
    }

    #[tokio::test]
    async fn an_awaiting_reader_goes_on_at_the_grant() {
        let demand = Demand::default();
        let seen = demand.take();
        let granter = demand.clone();
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            granter.grant();
        });
        tokio::time::timeout(Duration::from_secs(60), demand.wait(seen)).await.expect("the grant woke no one");
    }
}
