//! `FrameScheduler`, the only clock on the screen: coalesces redraw requests into at most
//! one frame per interval (~60 a second), and says when streamed text may come next. Input
//! asks for a frame "now" (drawn at once); agent events ask for "the next slot". Streamed
//! text comes only when the scheduler grants it (`Demand`, which paces every provider of
//! the session): once per stream interval after a frame showed what came before. Nothing
//! pending means nothing fires, so an idle UI uses no CPU.

use crate::startup::Demand;
use tokio::time::{Duration, Instant};

pub const FRAME_INTERVAL: Duration = Duration::from_millis(16);

/// How often streamed text is granted: a frame while only a reply streams costs the same
/// whatever the text's size, so fewer of them is most of the UI's cost of a streamed reply
/// (48 ms: 1,100 → ~750 frames in 36 s).
pub const STREAM_INTERVAL: Duration = Duration::from_millis(48);

/// Text arriving faster than this many bytes a second is granted every other interval: a
/// screenful scrolling by several times a second looks the same, and costs half the frames
/// (ten times the fastest hosted models; a model writing at a readable rate is shown every
/// interval).
const FIREHOSE: f64 = 20.0 * 1024.0;

/// The first grant of a stream comes this long after the last, doubled each time up to the
/// stream interval: a burst whose first events come ahead of the rest (or a stream's first
/// words) is not held a whole interval, and a trickle is at the interval after a handful.
const CATCH_UP: Duration = Duration::from_millis(1);

#[derive(Debug)]
pub struct FrameScheduler {
    interval: Duration,
    last_draw: Option<Instant>,
    deadline: Option<Instant>,
    stream: Grants,
}

/// When the session's streams may hand over their next text.
#[derive(Debug, Default)]
struct Grants {
    demand: Demand,
    /// When the next grant is due, if one is owed.
    next: Option<Instant>,
    /// The last two grants: the text shown since came in between them.
    last: Option<Instant>,
    before_last: Option<Instant>,
    /// Bytes of text shown since the last grant.
    text: usize,
    /// While a stream starts: how long after the last grant the next comes.
    catch_up: Option<Duration>,
}

impl Default for FrameScheduler {
    fn default() -> Self {
        FrameScheduler::new(FRAME_INTERVAL)
    }
}

impl FrameScheduler {
    pub fn new(interval: Duration) -> Self {
        let stream = Grants { catch_up: Some(CATCH_UP), ..Grants::default() };
        FrameScheduler { interval, last_draw: None, deadline: None, stream }
    }

    /// A scheduler that grants `demand` (the pace of the session's streams).
    pub fn granting(demand: Demand) -> Self {
        let mut scheduler = FrameScheduler::default();
        scheduler.stream.demand = demand;
        scheduler
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

    /// A frame was drawn, showing `text` more bytes of streamed text: if a stream took the
    /// last grant (it waits), the next is due one stream interval after it (two while text
    /// pours in faster than `FIREHOSE`; sooner while a stream starts, `CATCH_UP`).
    pub fn drawn(&mut self, now: Instant, text: usize) {
        self.last_draw = Some(now);
        self.deadline = None;
        let stream = &mut self.stream;
        stream.text += text;
        if stream.next.is_some() {
            return;
        }
        if !stream.demand.owed() {
            // Nothing took the last grant: no stream is under way, the next one starts anew.
            stream.catch_up = Some(CATCH_UP);
            return;
        }
        if let Some(wait) = stream.catch_up {
            stream.catch_up = Some(wait * 2).filter(|next| *next < STREAM_INTERVAL);
            stream.next = Some(stream.last.map_or(now, |last| (last + wait).max(now)));
            return;
        }
        let gap = match (stream.last, stream.before_last) {
            (Some(last), Some(before)) => last.duration_since(before).max(STREAM_INTERVAL),
            _ => STREAM_INTERVAL,
        };
        let interval =
            if stream.text as f64 / gap.as_secs_f64() >= FIREHOSE { STREAM_INTERVAL * 2 } else { STREAM_INTERVAL };
        stream.next = Some(stream.last.map_or(now, |last| (last + interval).max(now)));
    }

    /// Waits until the next grant is due; never completes when none is owed.
    pub async fn grant_due(&self) {
        match self.stream.next {
            Some(due) => tokio::time::sleep_until(due).await,
            None => std::future::pending().await,
        }
    }

    /// Grants the session's streams their next hand-over.
    pub fn grant(&mut self, now: Instant) {
        let stream = &mut self.stream;
        stream.before_last = stream.last.replace(now);
        stream.next = None;
        stream.text = 0;
        stream.demand.grant();
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
        s.drawn(t0, 0);
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
        s.drawn(t0, 0);
        s.request(t0);
        s.wait().await;
        assert_eq!(Instant::now(), t0 + FRAME_INTERVAL);
    }

    #[tokio::test(start_paused = true)]
    async fn streamed_text_is_granted_once_per_stream_interval_after_a_frame() {
        let demand = Demand::default();
        let mut s = FrameScheduler::granting(demand.clone());
        let t0 = Instant::now();
        // Nothing streams once the first grant is unused: no grant is owed, none fires.
        s.drawn(t0, 0);
        s.grant_due().await;
        s.grant(Instant::now());
        assert!(!demand.owed());
        s.drawn(Instant::now(), 0);
        let idle = tokio::time::timeout(Duration::from_secs(3600), s.grant_due()).await;
        assert!(idle.is_err(), "a grant came while nothing streams");
        // A stream hands over (takes the grant): after the frame that shows it, the next
        // grant is due one interval after the last.
        let taken = Instant::now();
        demand.take();
        s.drawn(taken, 100);
        s.grant_due().await;
        assert_eq!(Instant::now(), taken, "the last grant was an hour ago: at once");
        // While the stream starts, grants come 1, 2, 4, ... ms after the last; then one
        // interval.
        let mut gaps = Vec::new();
        for _ in 0..8 {
            s.grant(Instant::now());
            let granted = Instant::now();
            demand.take();
            s.drawn(granted, 100);
            s.grant_due().await;
            gaps.push(Instant::now().duration_since(granted).as_millis());
        }
        assert_eq!(gaps, [2, 4, 8, 16, 32, 48, 48, 48]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_firehose_is_granted_every_other_interval() {
        let demand = Demand::default();
        let mut s = FrameScheduler::granting(demand.clone());
        // Past the catch-up of the stream's start.
        s.stream.catch_up = None;
        s.grant(Instant::now());
        tokio::time::advance(STREAM_INTERVAL).await;
        s.grant(Instant::now());
        let granted = Instant::now();
        demand.take();
        // 1.3 KB in one interval (~27 KB/s): two intervals.
        s.drawn(granted, 1_300);
        s.grant_due().await;
        assert_eq!(Instant::now(), granted + STREAM_INTERVAL * 2);
        s.grant(Instant::now());
        let granted = Instant::now();
        demand.take();
        // The same text over the two intervals it waited (~13 KB/s): one.
        s.drawn(granted, 1_300);
        s.grant_due().await;
        assert_eq!(Instant::now(), granted + STREAM_INTERVAL);
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_due_now_is_ready_without_waiting_for_the_timer() {
        let mut s = FrameScheduler::default();
        // Half a millisecond past a timer tick: a timer would fire only at the next one.
        tokio::time::advance(Duration::from_micros(500)).await;
        let t0 = Instant::now();
        s.drawn(t0 - Duration::from_millis(1), 0);
        s.request_now(t0);
        s.wait().await;
        assert_eq!(Instant::now(), t0, "the frame waited for the timer");
    }
}
