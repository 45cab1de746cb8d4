//! Pacing, a provider decorator outside the kernel: `Paced` wraps a provider and hands the
//! streams it fetches over in merged batches. `startup` wraps every provider the session's
//! registry builds in it when the front end asks for a pace (`startup::Options::pace`: the
//! TUI, the line REPL, `ask`, ACP), so a switched provider and a sub-agent (which uses its
//! parent's provider) are paced alike. The kernel knows nothing of it: the agent reads
//! whatever provider it holds and shows each event as it comes.
//!
//! A `Pace` is a clock or a front end's demand: the front ends that print lines hand text
//! over about once per interval (`Pace::Every`, `LINE_PACE`); the full-screen app, whose
//! frame scheduler is the only clock on its screen, grants each hand-over when it wants to
//! draw more (`Pace::Asked`, `Demand`).
//!
//! Two ways, chosen by the wrapped provider: a stream that `streams_ahead` (its events keep
//! arriving while nobody polls it: the network providers, the stub's schedule) is read on
//! the read-ahead thread (`read_ahead`, which owns that thread and is then the only clock);
//! any other is read as it comes on the reader's task and its text held (`hold`). Both join
//! text by the one rule of `protocol::joined`, so this is where streamed text is merged
//! for a paced front end.

mod demand;
mod hold;
mod read_ahead;

pub use demand::Demand;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use crate::protocol::{EventStream, ModelInfo, Provider, ProviderError, Request};

/// The pace of front ends that print lines (the line REPL, `ask`, `ask --json`, ACP): short
/// enough that text on a terminal flows, long enough that a reply read as fast as its sender
/// writes it (each network event waking the reader) is gathered into a few reads and writes.
pub const LINE_PACE: Pace = Pace::Every(Duration::from_millis(8));

/// When a paced stream hands its text over.
#[derive(Clone, Debug)]
pub enum Pace {
    /// About once per interval while it trickles (a stream that bursts goes at once).
    Every(Duration),
    /// Once per grant of the front end's `Demand` (a burst still goes at once).
    Asked(Demand),
}

impl From<Duration> for Pace {
    fn from(interval: Duration) -> Self {
        Pace::Every(interval)
    }
}

/// `stream` paced by `pace`: read ahead on the reading thread when it `streams_ahead` (and
/// that thread could be started), otherwise read as it comes with its text held.
pub fn pace(stream: EventStream, pace: Pace, streams_ahead: bool) -> EventStream {
    if !streams_ahead {
        return hold::hold(stream, pace);
    }
    match read_ahead::read_ahead(stream, pace.clone()) {
        Ok(batches) => batches,
        Err(stream) => hold::hold(stream, pace),
    }
}

/// `provider` with every stream it fetches paced by `pace`.
pub fn paced(provider: Arc<dyn Provider>, pace: impl Into<Pace>) -> Arc<dyn Provider> {
    Arc::new(Paced { inner: provider, pace: pace.into() })
}

/// A provider whose streams are paced (`pace`); everything else is the wrapped provider's.
pub struct Paced {
    inner: Arc<dyn Provider>,
    pace: Pace,
}

impl Provider for Paced {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn models(&self) -> Vec<String> {
        self.inner.models()
    }
    fn list_models(&self) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
    fn fetch(&self, request: Request) -> EventStream {
        pace(self.inner.fetch(request), self.pace.clone(), self.inner.streams_ahead())
    }
    fn streams_ahead(&self) -> bool {
        self.inner.streams_ahead()
    }
    fn accepts_images(&self) -> bool {
        self.inner.accepts_images()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ProviderEvent, ProviderSettings, Providers};
    use futures::StreamExt;

    /// A model trickling `0 1 2 … 99 ` one word a millisecond, as a network reply comes.
    struct Trickle;

    impl Provider for Trickle {
        fn name(&self) -> &str {
            "trickle"
        }
        fn model(&self) -> &str {
            "trickle-1"
        }
        fn fetch(&self, _request: Request) -> EventStream {
            futures::stream::iter(0..100)
                .then(|i| async move {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    Ok(ProviderEvent::Saying(format!("{i} ")))
                })
                .boxed()
        }
        fn accepts_images(&self) -> bool {
            true
        }
    }

    /// The events of one fetch, and their text.
    async fn fetched(provider: &dyn Provider) -> (usize, String) {
        let events: Vec<_> = provider.fetch(Request::default()).collect().await;
        let text = events
            .iter()
            .map(|event| match event {
                Ok(ProviderEvent::Saying(text)) => text.as_str(),
                _ => "",
            })
            .collect();
        (events.len(), text)
    }

    #[tokio::test]
    async fn a_paced_provider_is_the_one_it_wraps_but_for_its_streams() {
        let paced = paced(Arc::new(Trickle), Duration::from_millis(20));
        let names = (paced.name(), paced.model(), paced.streams_ahead(), paced.accepts_images());
        assert_eq!(names, ("trickle", "trickle-1", false, true));
        let whole: String = (0..100).map(|i| format!("{i} ")).collect();
        let (events, text) = fetched(paced.as_ref()).await;
        assert_eq!(text, whole);
        assert!(events < 40, "{events} events for 100 words 1 ms apart at a 20 ms pace");
        assert_eq!(fetched(&Trickle).await, (100, whole), "the model itself is not paced");
    }

    #[tokio::test]
    async fn every_provider_a_registry_builds_once_wrapped_is_paced() {
        // As `startup` composes a front end's pace: the first provider, a `/model` switch and
        // a plugin file's provider (registered later) all come out of `build`.
        let mut providers = Providers::default();
        providers.register("early", |_: &ProviderSettings| Ok(Arc::new(Trickle) as Arc<dyn Provider>));
        providers.wrap_each(|provider| paced(provider, Duration::from_millis(20)));
        providers.register("late", |_: &ProviderSettings| Ok(Arc::new(Trickle) as Arc<dyn Provider>));
        for name in ["early", "late"] {
            let Ok(provider) = providers.build(name, &ProviderSettings::default()) else { panic!("{name} not built") };
            let (events, _) = fetched(provider.as_ref()).await;
            assert!(events < 40, "{name}: {events} events for 100 words 1 ms apart at a 20 ms pace");
        }
    }
}
