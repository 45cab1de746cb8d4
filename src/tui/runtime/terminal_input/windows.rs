//! The terminal's input on Windows: crossterm's console reader on a thread of its own,
//! each batch of events it has ready grouped (`typed.rs`) and sent through one channel;
//! key releases (which the Windows console reports) are dropped. Dropping the input stops
//! the thread (it looks for events in short waits) and joins it.

use super::typed::{group, Input};
use super::Parts;
use crossterm::event::{Event, KeyEventKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long the reader thread waits for an event before looking whether to stop.
const TICK: Duration = Duration::from_millis(50);

/// The reader thread: told to stop and joined when dropped.
pub struct Source {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Starts reading the console. `_read_before` is empty: no background colour query is
/// made on Windows (`background_query::ask`), so there are no answers either.
pub fn start(_read_before: Vec<u8>) -> std::io::Result<Parts> {
    let (tx, events) = mpsc::channel(super::QUEUED_READS);
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    let thread = std::thread::Builder::new().name("terminal-input".into()).spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            let read = next_events();
            let end = read.is_err();
            let empty = read.as_ref().is_ok_and(Vec::is_empty);
            // Waits while the event loop is behind (the console keeps what is typed meanwhile).
            if (!empty && tx.blocking_send(read).is_err()) || end {
                break;
            }
        }
    })?;
    Ok((events, None, Source { stop, thread: Some(thread) }))
}

/// The events the console has within `TICK`, and all that follow at once: none when it
/// had none; an error when the console cannot be read.
fn next_events() -> std::io::Result<Vec<Input>> {
    let mut events = Vec::new();
    let mut wait = TICK;
    while crossterm::event::poll(wait)? {
        match crossterm::event::read()? {
            Event::Key(key) if key.kind == KeyEventKind::Release => {}
            event => events.push(event),
        }
        wait = Duration::ZERO;
    }
    Ok(group(events))
}

impl Drop for Source {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
