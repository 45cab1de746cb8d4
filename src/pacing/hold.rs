//! Paces a stream that does not stream ahead (its events move on only while it is polled,
//! so it cannot be left alone on the read-ahead thread): it is read as it comes, on the
//! reader's own task, and text that arrives within one interval of the last hand-over is
//! held and joined (`protocol::joined`) until the interval is up (or, paced by a front
//! end's demand, until its next grant). The first events after a
//! pause go at once; any other event than text goes at once too, after the text before it.
//! A reply trickling in 1 ms events thus reaches the agent a few times per interval
//! instead of once per event, and the stream is never slowed.

use std::collections::VecDeque;

use futures::StreamExt;
use tokio::time::Instant;

use crate::protocol::joined::{push_joined, Joinable};
use crate::protocol::readiness::{ready_next, Ready};
use crate::protocol::{EventStream, ProviderError, ProviderEvent};

use super::{Demand, Pace};

type Event = Result<ProviderEvent, ProviderError>;

/// Events already waiting that go through with the first one after a pause (bounded, so a
/// stream that is always ready still hands over as it goes).
const FIRST_BATCH: usize = 256;

struct Hold {
    stream: EventStream,
    pace: Pace,
    /// While set, text is held until then.
    until: Option<Until>,
    /// Events to hand over, in order.
    out: VecDeque<Event>,
    /// Text held (joined) for the next hand-over.
    held: Vec<Event>,
    ended: bool,
}

/// Until when text is held: a time, or a grant of `Demand` after the one taken.
enum Until {
    Time(Instant),
    GrantAfter(Demand, u64),
}

/// `stream`, read as it comes with its text handed over as `pace` says.
pub(super) fn hold(stream: EventStream, pace: Pace) -> EventStream {
    let state = Hold { stream, pace, until: None, out: VecDeque::new(), held: Vec::new(), ended: false };
    futures::stream::unfold(state, |mut state| async move { state.next().await.map(|event| (event, state)) }).boxed()
}

impl Hold {
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.out.pop_front() {
                return Some(event);
            }
            if self.ended {
                return None;
            }
            let Some(until) = &self.until else {
                self.hand_over_at_once().await;
                continue;
            };
            tokio::select! {
                biased;
                event = self.stream.next() => match event {
                    Some(mut event) => {
                        if event.text_mut().is_some() {
                            push_joined(&mut self.held, event);
                        } else {
                            self.out.extend(self.held.drain(..));
                            self.out.push_back(event);
                        }
                    }
                    None => self.end(),
                },
                _ = held_until(until) => {
                    self.out.extend(self.held.drain(..));
                    self.until = None;
                }
            }
        }
    }

    /// Not holding: the next event and those already waiting go out now, and text after
    /// them is held for one interval.
    async fn hand_over_at_once(&mut self) {
        let Some(first) = self.stream.next().await else { return self.end() };
        self.out.push_back(first);
        for _ in 1..FIRST_BATCH {
            match ready_next(&mut self.stream).await {
                Ready::Item(event) => self.out.push_back(event),
                Ready::Ended => return self.end(),
                Ready::Pending => break,
            }
        }
        self.until = Some(match &self.pace {
            Pace::Every(interval) => Until::Time(Instant::now() + *interval),
            Pace::Asked(demand) => Until::GrantAfter(demand.clone(), demand.take()),
        });
    }

    fn end(&mut self) {
        self.out.extend(self.held.drain(..));
        self.ended = true;
    }
}

/// Completes when text held `until` may go.
async fn held_until(until: &Until) {
    match until {
        Until::Time(time) => tokio::time::sleep_until(*time).await,
        Until::GrantAfter(demand, seen) => demand.wait(*seen).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn saying(text: &str) -> Event {
        Ok(ProviderEvent::Saying(text.into()))
    }

    /// A stream of `events`, each `gap` after the one before.
    fn trickle(events: Vec<Event>, gap: Duration) -> EventStream {
        futures::stream::iter(events)
            .then(move |event| async move {
                tokio::time::sleep(gap).await;
                event
            })
            .boxed()
    }

    #[tokio::test]
    async fn a_trickle_is_handed_over_in_few_pieces_in_order_with_other_events_at_once() {
        let mut events: Vec<Event> = (0..100).map(|i| saying(&format!("{i} "))).collect();
        events.insert(50, Ok(ProviderEvent::Usage(Default::default())));
        let got: Vec<Event> =
            hold(trickle(events, Duration::from_millis(1)), Pace::Every(Duration::from_millis(20))).collect().await;
        let mut joined: Vec<Event> = Vec::new();
        for event in got.iter().cloned() {
            push_joined(&mut joined, event);
        }
        let first: String = (0..50).map(|i| format!("{i} ")).collect();
        let rest: String = (50..100).map(|i| format!("{i} ")).collect();
        let expected = vec![saying(&first), Ok(ProviderEvent::Usage(Default::default())), saying(&rest)];
        assert_eq!(joined, expected);
        assert!(got.len() < 40, "{} pieces for 100 events 1 ms apart at a 20 ms pace", got.len());
    }

    #[tokio::test]
    async fn text_paced_by_demand_is_held_until_the_next_grant() {
        let demand = super::super::Demand::default();
        let events: Vec<Event> = (0..1_000).map(|i| saying(&format!("{i} "))).collect();
        let mut stream = hold(trickle(events, Duration::from_millis(1)), Pace::Asked(demand.clone()));
        let first = tokio::time::timeout(Duration::from_secs(60), stream.next()).await;
        assert_eq!(first, Ok(Some(saying("0 "))), "the first text waits for nothing");
        // The rest trickles in (for 1 s) and is held: nothing more until the front end grants it.
        let none = tokio::time::timeout(Duration::from_millis(200), stream.next()).await;
        assert!(none.is_err(), "text was handed over without a grant");
        assert!(demand.owed());
        demand.grant();
        let next = tokio::time::timeout(Duration::from_secs(60), stream.next()).await;
        let Ok(Some(Ok(ProviderEvent::Saying(held)))) = next else { panic!("the grant let nothing through: {next:?}") };
        assert!(held.starts_with("1 2 3 "), "the held text, joined: {held}");
        // The end of the stream hands over what is held without waiting for a grant.
        let rest: Vec<Event> = stream.collect().await;
        let all: String = (0..1_000).map(|i| format!("{i} ")).collect();
        let got: String = std::iter::once(format!("0 {held}"))
            .chain(rest.into_iter().map(|event| match event {
                Ok(ProviderEvent::Saying(text)) => text,
                _ => String::new(),
            }))
            .collect();
        assert_eq!(got, all);
    }

    #[tokio::test]
    async fn what_is_waiting_after_a_pause_goes_at_once() {
        let events: Vec<Event> = (0..10).map(|i| saying(&i.to_string())).collect();
        let mut stream = hold(futures::stream::iter(events).boxed(), Pace::Every(Duration::from_secs(3600)));
        // All ten are there at once: none is held for the hour-long pace.
        let got = tokio::time::timeout(Duration::from_secs(60), (&mut stream).collect::<Vec<_>>()).await;
        assert_eq!(got.map(|events| events.len()), Ok(10));
    }
}
