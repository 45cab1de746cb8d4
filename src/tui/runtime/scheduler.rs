//! `FrameScheduler`: coalesces redraw requests into at most one frame per interval (~60
//! a second). Input asks for a frame "now" (drawn at once); streamed output asks for "the
//! next slot". Nothing pending means nothing fires, so an idle UI uses no CPU.

use tokio::time::{Duration, Instant};

pub const FRAME_INTERVAL: Duration = Duration::from_millis(16);

/// How often streamed text reaches the UI (the agent merges what arrives in between): a
/// frame while only a reply streams costs the same whatever the text's size, so fewer of
/// them is most of the UI's cost of a paced stream (48 ms: 1,100 → ~750 frames in 36 s).
pub const STREAM_INTERVAL: Duration = Duration::from_millis(48);

#[derive(Debug)]
pub struct FrameScheduler {
    interval: Duration,
    last_draw: Option<Instant>,
    deadline: Option<Instant>,
}

impl Default for FrameScheduler {
    fn default() -> Self {
        FrameScheduler::new(FRAME_INTERVAL)
    }
}

impl FrameScheduler {
    pub fn new(interval: Duration) -> Self {
        FrameScheduler { interval, last_draw: None, deadline: None }
    }

    /// A frame at the next free slot (rate-limited).
    pub fn request(&mut self, now: Instant) {
        let slot = self.last_draw.map_or(now, |last| (last + self.interval).max(now));
        self.deadline = Some(self.deadline.map_or(slot, |d| d.min(slot)));
    }

    /// A frame as soon as possible (user input: latency matters more than rate).
    pub fn request_now(&mut self, now: Instant) {
        self.deadline = Some(now);
    }

    /// When the next frame is due, if one is.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    pub fn drawn(&mut self, now: Instant) {
        self.last_draw = Some(now);
        self.deadline = None;
    }

    /// Waits until the next frame is due; never completes when none is pending. A frame
    /// already due (input asked for it) is ready at once, not through the timer (which
    /// rounds up to the next millisecond and fires only on the runtime's next timer turn).
    pub async fn wait(&self) {
        match self.deadline {
            Some(deadline) if deadline <= Instant::now() => {}
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            None => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn merges_requests_and_caps_the_rate() {
        let mut s = FrameScheduler::default();
        let t0 = Instant::now();
        s.request(t0);
        s.request(t0);
        assert_eq!(s.deadline(), Some(t0), "the first frame is immediate");
        s.drawn(t0);
        assert_eq!(s.deadline(), None, "nothing pending after a draw");
        s.request(t0 + Duration::from_millis(1));
        s.request(t0 + Duration::from_millis(5));
        assert_eq!(s.deadline(), Some(t0 + FRAME_INTERVAL), "deltas wait for the next slot");
        s.request_now(t0 + Duration::from_millis(6));
        assert_eq!(s.deadline(), Some(t0 + Duration::from_millis(6)), "input draws at once");
    }

    #[tokio::test(start_paused = true)]
    async fn wait_returns_at_the_deadline_and_never_when_idle() {
        let mut s = FrameScheduler::default();
        let idle = tokio::time::timeout(Duration::from_secs(3600), s.wait()).await;
        assert!(idle.is_err(), "an idle scheduler never fires");
        let t0 = Instant::now();
        s.drawn(t0);
        s.request(t0);
        s.wait().await;
        assert_eq!(Instant::now(), t0 + FRAME_INTERVAL);
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_due_now_is_ready_without_waiting_for_the_timer() {
        let mut s = FrameScheduler::default();
        // Half a millisecond past a timer tick: a timer would fire only at the next one.
        tokio::time::advance(Duration::from_micros(500)).await;
        let t0 = Instant::now();
        s.drawn(t0 - Duration::from_millis(1));
        s.request_now(t0);
        s.wait().await;
        assert_eq!(Instant::now(), t0, "the frame waited for the timer");
    }
}
