//! `WokenOnly`: a stream polled only after it woke its task (or gave an item), so the event
//! loop, which polls the terminal's input first on every turn, does not ask the terminal on
//! the turns a streamed reply or a frame woke it. crossterm's `EventStream` answers each poll
//! by taking the input reader's lock, which its own reader thread holds while it waits, so
//! every such poll spun and yielded (~8% of the UI thread's CPU while a reply streamed).
//! Owns only when the inner stream is polled, not what it yields.

use futures::task::AtomicWaker;
use futures::Stream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// Whether the inner stream asked to be polled again, and the task to tell.
#[derive(Default)]
struct Flag {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.task.wake();
    }
}

/// `inner`, polled only when it may have something: at first, after it gave an item, and
/// after it woke the waker it was polled with.
pub struct WokenOnly<S> {
    inner: S,
    flag: Arc<Flag>,
    waker: Waker,
}

impl<S> WokenOnly<S> {
    pub fn new(inner: S) -> Self {
        let flag = Arc::new(Flag { woken: AtomicBool::new(true), task: AtomicWaker::new() });
        let waker = Waker::from(flag.clone());
        WokenOnly { inner, flag, waker }
    }
}

impl<S: Stream + Unpin> Stream for WokenOnly<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.flag.task.register(cx.waker());
        if !self.flag.woken.swap(false, Ordering::SeqCst) {
            return Poll::Pending;
        }
        let this = &mut *self;
        let mut inner_cx = Context::from_waker(&this.waker);
        let polled = Pin::new(&mut this.inner).poll_next(&mut inner_cx);
        if polled.is_ready() {
            // More may be waiting: the next poll asks again.
            this.flag.woken.store(true, Ordering::SeqCst);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use std::sync::atomic::AtomicUsize;

    /// A stream that counts its polls and gives an item on every third, waking its waker
    /// on the others only when `wakes`.
    struct Counting {
        polls: Arc<AtomicUsize>,
        wakes: bool,
    }

    impl Stream for Counting {
        type Item = usize;
        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<usize>> {
            let n = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
            if n.is_multiple_of(3) {
                return Poll::Ready(Some(n));
            }
            if self.wakes {
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        }
    }

    #[test]
    fn an_unwoken_stream_is_not_polled_again() {
        let polls = Arc::new(AtomicUsize::new(0));
        let mut stream = WokenOnly::new(Counting { polls: polls.clone(), wakes: false });
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        for _ in 0..5 {
            assert!(stream.poll_next_unpin(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::SeqCst), 1, "polled once, then only after a wake");
    }

    #[test]
    fn a_stream_that_wakes_or_gives_items_is_polled_again_and_loses_nothing() {
        let polls = Arc::new(AtomicUsize::new(0));
        let stream = WokenOnly::new(Counting { polls: polls.clone(), wakes: true });
        let items: Vec<usize> = futures::executor::block_on(stream.take(3).collect());
        assert_eq!(items, [3, 6, 9]);
    }

    #[test]
    fn a_wake_reaches_the_task_polling_the_wrapper() {
        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let polls = Arc::new(AtomicUsize::new(0));
        let mut stream = WokenOnly::new(Counting { polls, wakes: true });
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(stream.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
    }
}
