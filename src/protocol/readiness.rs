//! Stream readiness (`Ready`, `ready_next`): taking what a stream has ready without
//! waiting for the network: its next item if it is there now, or once the tasks already
//! queued on the runtime have run.
//!
//! An HTTP client hands a body over one chunk at a time: the connection's task decodes the
//! next chunk only once the last was taken. A reader that finds nothing ready lets that task
//! run and looks again, a few times, before it counts what it has as all there is. It
//! yields with `requeue`, not `tokio::task::yield_now`: that one waits for the runtime to
//! poll its sockets first (a system call per look, for each small event of a stream), while
//! the task that has the next chunk is already queued.
//!
//! Used by the agent (every event already waiting is shown in one go) and by the pacing
//! adapter (`crate::pacing`, which batches what is waiting on its own clock).

use futures::{FutureExt, Stream, StreamExt};
use std::future::Future;
use std::task::Poll;

/// Empty looks before a stream counts as having nothing ready.
const LOOKS: usize = 3;

/// What a stream has ready: its next item, its end, or nothing yet.
#[derive(Debug, PartialEq)]
pub enum Ready<T> {
    /// The next item was there now or once the queued tasks had run.
    Item(T),
    /// The stream ended (do not poll it again).
    Ended,
    /// Nothing was there after `LOOKS` looks: the next item is a wait away.
    Pending,
}

/// What `stream` has ready now or once the queued tasks have run.
pub async fn ready_next<S: Stream + Unpin>(stream: &mut S) -> Ready<S::Item> {
    for look in 0..=LOOKS {
        match stream.next().now_or_never() {
            Some(Some(item)) => return Ready::Item(item),
            Some(None) => return Ready::Ended,
            None => {}
        }
        if look < LOOKS {
            requeue().await;
        }
    }
    Ready::Pending
}

/// Lets the runtime run the tasks already queued, then goes on: pending once, with this task
/// queued again at once (behind them) instead of after the next look at the sockets.
fn requeue() -> impl Future<Output = ()> {
    let mut yielded = false;
    std::future::poll_fn(move |cx| {
        if yielded {
            return Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_item_a_task_away_is_ready_and_a_silent_stream_is_not() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<u32>();
        let mut rx = tokio_stream_from(rx);
        // Sent by a task that is queued, not yet run: one look later it is there.
        let sender = tx.clone();
        tokio::spawn(async move { sender.send(7).unwrap() });
        assert_eq!(ready_next(&mut rx).await, Ready::Item(7));
        // Nothing queued will send: not ready.
        assert_eq!(ready_next(&mut rx).await, Ready::Pending);
        drop(tx);
        assert_eq!(ready_next(&mut rx).await, Ready::Ended);
    }

    fn tokio_stream_from(rx: tokio::sync::mpsc::UnboundedReceiver<u32>) -> impl Stream<Item = u32> + Unpin {
        Box::pin(futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|v| (v, rx)) }))
    }
}
