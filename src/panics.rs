//! Caught panics, a leaf: a panic in a tool, hook, command, plugin or the highlighter
//! becomes an error value (a tool result) instead of ending the program. While a tool,
//! hook or command runs — on the async thread that polls it, or on the blocking thread
//! `run_blocking` gives it — the thread is marked, so a panic hook can tell a caught
//! panic (reported to the model, nothing printed, the terminal left alone) from one that
//! will end the program.

use futures::FutureExt;
use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    /// How many catching regions are active on this thread right now.
    static CATCHING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// True while a tool, hook or command runs on this thread: a panic here will be caught and
/// turned into a result, so a panic hook should neither print it nor restore the terminal.
pub fn panic_is_caught() -> bool {
    CATCHING.with(|c| c.get() > 0)
}

/// Marks the current thread as catching until dropped.
struct Mark;

impl Mark {
    fn enter() -> Self {
        CATCHING.with(|c| c.set(c.get() + 1));
        Mark
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        CATCHING.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Marks the polling thread as "panics are caught" while the inner future is polled.
struct Marked<F>(F);

impl<F: Future + Unpin> Future for Marked<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _mark = Mark::enter();
        Pin::new(&mut self.0).poll(cx)
    }
}

/// Runs `future` with panics caught: `Err(message)` when it panicked.
pub async fn catch<F: Future + Unpin>(future: F) -> Result<F::Output, String> {
    AssertUnwindSafe(Marked(future)).catch_unwind().await.map_err(panic_message)
}

/// Runs a synchronous closure with panics caught: `Err(message)` when it panicked.
pub fn catch_sync<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    let _mark = Mark::enter();
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(panic_message)
}

/// Runs blocking work (a file walk, a search) on tokio's blocking pool with the thread
/// marked, so a panic there is caught like one in the tool itself. A panic is raised
/// again in the caller, where the toolbox turns it into a failed result.
pub async fn run_blocking<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> anyhow::Result<R> {
    let joined = tokio::task::spawn_blocking(move || {
        let _mark = Mark::enter();
        std::panic::catch_unwind(AssertUnwindSafe(f))
    })
    .await;
    match joined {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(error) => Err(anyhow::anyhow!("blocking task failed: {error}")),
    }
}

/// `panicked: <message>`.
pub fn panic_message(panic: Box<dyn Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("panicked: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_on_the_blocking_pool_is_marked_and_caught() {
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = seen.clone();
        let result = catch(Box::pin(run_blocking(move || {
            flag.store(panic_is_caught(), std::sync::atomic::Ordering::SeqCst);
            panic!("deep inside a walk")
        })))
        .await;
        assert!(seen.load(std::sync::atomic::Ordering::SeqCst), "the blocking thread was not marked");
        assert_eq!(result.err().as_deref(), Some("panicked: deep inside a walk"));
        assert!(!panic_is_caught());
    }
}
