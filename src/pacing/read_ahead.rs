//! Reads a paced provider stream on a thread of its own, in batches. Owns that thread and
//! its runtime; of what the events mean it knows only that consecutive text of one kind
//! joins (`protocol::joined`).
//!
//! A reply trickling in one small network event per millisecond would otherwise wake the
//! runtime that holds the socket a thousand times a second (each packet ends an
//! `epoll_wait`, whether or not a task wants the data), even when the agent takes the text
//! only once per pace interval. Here the stream is polled on one long-lived thread with a
//! current-thread runtime that, after handing over a batch, sleeps the rest of the interval
//! without looking at its sockets: the packets gather in the kernel and the next look takes
//! them all. A batch takes everything waiting, for up to one interval; a stream that bursts
//! (still more waiting when that interval is up) is read again at once, so its sender never
//! waits, and at a stream's start or when a burst pauses the thread looks again after
//! 1, 2, 4, ... ms before it settles at the pace (`CATCH_UP`).
//!
//! A batch is bounded by time, not by a count of events: a reader that hands over every few
//! hundred events and reads again at once drains the socket as fast as a local server
//! writes, so the server's every small write goes through the whole TCP path as a segment
//! of its own (on loopback, that is the user's CPU too: 1 MB cost the bench's server 60 ms
//! instead of 38 ms, and `ask`'s wall rose by a third). Draining what is there and then
//! sleeping a millisecond lets the kernel gather the writes instead. Connections a client opens
//! here stay served by this thread between calls (it parks in the usual way when no stream
//! is being read), so the next call can reuse them.
//!
//! This thread is the only clock of a stream paced by an interval (`Pace::Every`): the agent
//! shows each batch as it comes (it holds nothing itself), so text is at most one interval
//! late and the agent's task wakes once per batch. A stream paced by a front end's demand
//! (`Pace::Asked`: the full-screen app) has no clock here: after a hand-over the thread
//! sleeps until the front end grants the next one (its frame scheduler decides when), and
//! neither the catch-up nor the firehose rule below applies; a burst still goes at once.
//!
//! A hand-over costs whoever shows it about the same whatever it carries (a frame, for the
//! TUI). While text pours in faster than anyone reads (`FIREHOSE`, ~20 KB/s: ten times the
//! fastest hosted models, a screenful scrolling by several times a second), the thread
//! waits two intervals instead of one: the scroll looks the same, and a firehose costs half
//! as many frames. A model writing at a readable rate is shown every interval.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::sync::mpsc;

use crate::protocol::joined::push_joined;
use crate::protocol::readiness::{ready_next, Ready};
use crate::protocol::{EventStream, ProviderError, ProviderEvent};

use super::Pace;

type Event = Result<ProviderEvent, ProviderError>;

/// Text arriving faster than this many bytes a second is handed over every other interval.
const FIREHOSE: f64 = 20.0 * 1024.0;

/// The first wait after a batch that did not fill, at the start of a stream or after a
/// burst, doubled each time the next one does not fill either, up to the pace. A burst whose
/// sender pauses (descheduled on a busy machine, a proxy flushing) or whose first events
/// come ahead of the rest would otherwise cost up to two whole intervals of waiting for text
/// that is already there; a stream that trickles is at the pace after a handful of small
/// batches (and shows its first text sooner).
const CATCH_UP: Duration = Duration::from_millis(1);

/// How long one batch may take to read when a front end's demand sets the pace.
const LONGEST_BATCH: Duration = Duration::from_millis(16);

/// The reading thread's runtime, started on first use (`None` if it could not be).
fn runtime() -> Option<&'static tokio::runtime::Handle> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Handle>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            let handle = runtime.handle().clone();
            std::thread::Builder::new()
                .name("elelem-read-ahead".into())
                .spawn(move || runtime.block_on(std::future::pending::<()>()))
                .ok()?;
            Some(handle)
        })
        .as_ref()
}

/// `stream`, read ahead on the reading thread and handed over as `pace` says: at most about
/// once per interval while it trickles, or once per grant of a front end's `Demand`.
/// Dropping the result stops the reading (and drops `stream`, which cancels the call).
/// Without a reading thread, `Err(stream)`: the caller paces it.
pub(super) fn read_ahead(stream: EventStream, pace: Pace) -> Result<EventStream, EventStream> {
    let Some(runtime) = runtime() else { return Err(stream) };
    let (tx, rx) = mpsc::unbounded_channel::<Vec<Event>>();
    runtime.spawn(pump(stream, tx, pace));
    Ok(futures::stream::unfold(rx, |mut rx| async move {
        let batch = rx.recv().await?;
        Some((futures::stream::iter(batch), rx))
    })
    .flatten()
    .boxed())
}

async fn pump(mut stream: EventStream, tx: mpsc::UnboundedSender<Vec<Event>>, pace: Pace) {
    let mut handed: Option<Instant> = None;
    // How long to wait after a batch that did not fill, while a burst may only have paused
    // or not yet begun (a stream's first events can come before the rest is written).
    let mut catch_up: Option<Duration> = Some(CATCH_UP);
    // How long one batch may take: a stream that is always ready still hands over.
    let longest = match &pace {
        Pace::Every(interval) => *interval,
        Pace::Asked(_) => LONGEST_BATCH,
    };
    loop {
        let first = tokio::select! {
            event = stream.next() => event,
            _ = tx.closed() => return,
        };
        let Some(first) = first else { return };
        let started = Instant::now();
        let mut batch = vec![first];
        let (bursting, ended) = take_waiting(&mut stream, &mut batch, started + longest).await;
        let text = text_bytes(&batch);
        // Taken before the hand-over, so the front end that shows it knows a grant is owed.
        let grant = match &pace {
            Pace::Asked(demand) => Some((demand, demand.take())),
            Pace::Every(_) => None,
        };
        if tx.send(batch).is_err() || ended {
            return;
        }
        let now = Instant::now();
        let since = handed.map_or(longest, |last| now.duration_since(last));
        handed = Some(now);
        if bursting {
            catch_up = Some(CATCH_UP);
            continue;
        }
        // Deliberately blocking: nothing on this thread looks at a socket meanwhile.
        match grant {
            Some((demand, seen)) => demand.wait_blocking(seen),
            None => {
                let wait = match catch_up {
                    Some(wait) => {
                        catch_up = Some(wait * 2).filter(|next| *next < longest);
                        wait
                    }
                    None => wait_after(longest, text, since),
                };
                std::thread::sleep(wait.saturating_sub(started.elapsed()));
            }
        }
    }
}

/// Adds the events already waiting to `batch` (text joined, `push_joined`: a trickle's
/// batch crosses threads as a few events, not one per network event; what is a task
/// away counts, see `ready_next`) until none is or it is `until`: whether some may still
/// be waiting (it stopped at `until`), and whether the stream ended.
async fn take_waiting(stream: &mut EventStream, batch: &mut Vec<Event>, until: Instant) -> (bool, bool) {
    // The clock is read once per `CLOCK_EVERY` events: a burst is tens of thousands.
    const CLOCK_EVERY: usize = 64;
    let mut taken = 0usize;
    loop {
        taken += 1;
        if taken.is_multiple_of(CLOCK_EVERY) && Instant::now() >= until {
            return (true, false);
        }
        match ready_next(stream).await {
            Ready::Item(event) => push_joined(batch, event),
            Ready::Ended => return (false, true),
            Ready::Pending => return (false, false),
        }
    }
}

/// How long after a hand-over of `text` bytes (`since` after the one before) the next one
/// comes: one `pace`, or two while the text arrives faster than `FIREHOSE`.
fn wait_after(pace: Duration, text: usize, since: Duration) -> Duration {
    let rate = text as f64 / since.max(pace).as_secs_f64();
    if rate >= FIREHOSE {
        pace * 2
    } else {
        pace
    }
}

/// Bytes of text (said or thought) in `batch`.
fn text_bytes(batch: &[Event]) -> usize {
    batch
        .iter()
        .map(|event| match event {
            Ok(ProviderEvent::Saying(text)) | Ok(ProviderEvent::Thinking(text)) => text.len(),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saying(text: &str) -> Event {
        Ok(ProviderEvent::Saying(text.into()))
    }

    #[test]
    fn a_firehose_is_handed_over_every_other_interval_and_a_readable_stream_every_interval() {
        let pace = Duration::from_millis(48);
        // 1.3 KB in 48 ms (~27 KB/s, the bench's 1 ms trickle): two intervals.
        assert_eq!(wait_after(pace, 1_300, pace), pace * 2);
        // The same text over the two intervals it then waited: ~13 KB/s, one interval.
        assert_eq!(wait_after(pace, 1_300, pace * 2), pace);
        // 2.6 KB over two intervals (the trickle goes on): still two.
        assert_eq!(wait_after(pace, 2_600, pace * 2), pace * 2);
        // A fast hosted model (~400 tokens/s, ~80 bytes per interval): every interval.
        assert_eq!(wait_after(pace, 80, pace), pace);
        // A short gap never makes a small batch look fast.
        assert_eq!(wait_after(pace, 600, Duration::from_millis(1)), pace);
    }

    #[test]
    fn text_bytes_counts_said_and_thought_text_only() {
        let batch =
            vec![saying("abc"), Ok(ProviderEvent::Thinking("de".into())), Err(ProviderError::Network("cut".into()))];
        assert_eq!(text_bytes(&batch), 5);
    }

    /// `count` text events numbered from `from`, all ready at once.
    fn burst(from: usize, count: usize) -> EventStream {
        futures::stream::iter((from..from + count).map(|i| saying(&format!("{i} ")))).boxed()
    }

    /// A stream with nothing in it for 5 ms.
    fn pause() -> EventStream {
        futures::stream::once(tokio::time::sleep(Duration::from_millis(5))).filter_map(|_| async { None }).boxed()
    }

    /// Reads `events` ahead at a 500 ms pace: the bytes of text that came through, and how long
    /// that took, against the pace.
    async fn read_at_a_long_pace(events: EventStream) -> (usize, Duration, Duration) {
        let pace = Duration::from_millis(500);
        let Ok(stream) = read_ahead(events, Pace::Every(pace)) else { panic!("no reading thread") };
        let started = Instant::now();
        let got: Vec<Event> = stream.collect().await;
        (text_bytes(&got), started.elapsed(), pace)
    }

    /// Bytes of the text of events `0..count`.
    fn bytes_of(count: usize) -> usize {
        (0..count).map(|i| format!("{i} ").len()).sum()
    }

    #[tokio::test]
    async fn a_burst_that_pauses_is_not_held_for_an_interval() {
        // 2,000 events at once, a 5 ms pause, 2,000 more: the batch before the pause does not
        // fill, and waiting the pace (or two, at this rate) there would hold the rest back.
        let events = burst(0, 2_000).chain(pause()).chain(burst(0, 2_000)).boxed();
        let (bytes, took, pace) = read_at_a_long_pace(events).await;
        assert_eq!(bytes, 2 * bytes_of(2_000));
        assert!(took < pace / 2, "the burst took {took:?} with a pace of {pace:?}");
    }

    #[tokio::test]
    async fn a_burst_that_starts_slowly_is_not_held_for_an_interval() {
        // A few events, a 5 ms pause, then 4,000: the first batch does not fill.
        let events = burst(0, 10).chain(pause()).chain(burst(10, 4_000)).boxed();
        let (bytes, took, pace) = read_at_a_long_pace(events).await;
        assert_eq!(bytes, bytes_of(4_010));
        assert!(took < pace / 2, "the burst took {took:?} with a pace of {pace:?}");
    }

    #[tokio::test]
    async fn a_burst_already_waiting_is_handed_over_as_one_batch() {
        // 10,000 events at once: one look takes them all (a count-bounded batch took 40), so
        // the socket behind a real burst is drained once and then left to gather.
        let (tx, mut rx) = mpsc::unbounded_channel();
        pump(burst(0, 10_000), tx, Pace::Every(Duration::from_millis(500))).await;
        let mut batches = Vec::new();
        while let Some(batch) = rx.recv().await {
            batches.push(batch);
        }
        assert_eq!(batches.len(), 1);
        assert_eq!(text_bytes(&batches[0]), bytes_of(10_000));
    }

    #[tokio::test]
    async fn a_stream_that_never_stops_is_still_handed_over_about_once_per_interval() {
        // Always more waiting: the batch ends when its interval is up, not when the stream does.
        let endless = futures::stream::repeat_with(|| saying("x")).boxed();
        let Ok(mut stream) = read_ahead(endless, Pace::Every(Duration::from_millis(20))) else {
            panic!("no reading thread")
        };
        let first = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
        assert!(matches!(first, Ok(Some(Ok(ProviderEvent::Saying(_))))), "nothing was handed over");
        let second = tokio::time::timeout(Duration::from_secs(10), stream.next()).await;
        assert!(matches!(second, Ok(Some(Ok(ProviderEvent::Saying(_))))), "only one batch came");
    }

    #[tokio::test]
    async fn a_stream_paced_by_demand_hands_over_once_per_grant() {
        // 1,000 events 1 ms apart, streaming ahead on their own (as a socket buffers them):
        // after the first hand-over, nothing more comes until the front end grants it.
        let start = tokio::time::Instant::now();
        let events = futures::stream::unfold(0usize, move |i| async move {
            tokio::time::sleep_until(start + Duration::from_millis(i as u64 + 1)).await;
            Some((saying(&format!("{i} ")), i + 1))
        })
        .take(1_000)
        .boxed();
        let demand = super::super::Demand::default();
        let Ok(mut stream) = read_ahead(events, Pace::Asked(demand.clone())) else { panic!("no reading thread") };
        let mut text = 0;
        let first = tokio::time::timeout(Duration::from_secs(60), stream.next()).await;
        let Ok(Some(first)) = first else { panic!("the first text was held") };
        text += text_bytes(&[first]);
        let none = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
        assert!(none.is_err(), "text was handed over without a grant");
        // Each grant lets one batch through: everything waiting by then, joined.
        let mut grants = 0;
        while text < bytes_of(1_000) {
            assert!(demand.owed(), "a stream waits, yet no grant is owed");
            demand.grant();
            grants += 1;
            let Ok(Some(event)) = tokio::time::timeout(Duration::from_secs(60), stream.next()).await else {
                panic!("a grant let nothing through")
            };
            text += text_bytes(&[event]);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(text, bytes_of(1_000));
        assert!(grants < 100, "{grants} grants for 1 s of text granted every 100 ms");
    }

    #[tokio::test]
    async fn a_batch_joins_consecutive_text_of_one_kind_and_keeps_the_order() {
        let mut events: Vec<Event> = (0..100).map(|i| saying(&format!("{i} "))).collect();
        events.push(Ok(ProviderEvent::Thinking("t".into())));
        events.push(Ok(ProviderEvent::Thinking("u".into())));
        events.push(Err(ProviderError::Network("cut".into())));
        events.push(saying("end"));
        let Ok(stream) = read_ahead(futures::stream::iter(events).boxed(), Pace::Every(Duration::from_millis(1)))
        else {
            panic!("no reading thread")
        };
        let got: Vec<Event> = stream.collect().await;
        let text: String = (0..100).map(|i| format!("{i} ")).collect();
        let expected = [
            saying(&text),
            Ok(ProviderEvent::Thinking("tu".into())),
            Err(ProviderError::Network("cut".into())),
            saying("end"),
        ];
        assert_eq!(format!("{got:?}"), format!("{expected:?}"));
    }
}
