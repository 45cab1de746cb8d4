//! The terminal's input for the event loop, read by elelem itself instead of crossterm's
//! `EventStream` (whose parser drops xterm's modifyOtherKeys keys, `CSI 27;2;13~` for
//! Shift+Enter under tmux). `TerminalInput` is a stream of `Input`s: crossterm `Event`s
//! (keys, mouse, paste and focus) and runs of typed characters (`typed.rs`) from the reader
//! thread (`reader.rs`, decoding with `decode.rs`, `csi.rs`, `kitty_keys.rs`), and
//! `Event::Resize` on SIGWINCH, all through one channel, so polling it when nothing came is
//! one lock-free look at that channel (the event loop polls input on every turn). A read's
//! inputs come together: `ready` gives the next one already read without waiting, so the
//! event loop can take them all before one frame. Dropping it stops the reader thread
//! before it returns.
//!
//! That is Unix (`unix.rs`). On Windows (`windows.rs`) the console gives key events, not
//! bytes: crossterm's own reader is read on a thread (key releases dropped), its events
//! grouped the same way (`typed.rs`), and no background colour answer is looked for.

#[cfg(unix)]
mod csi;
#[cfg(unix)]
mod decode;
#[cfg(unix)]
mod kitty_keys;
#[cfg(unix)]
mod reader;
#[cfg(all(test, unix))]
mod tests;
mod typed;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

pub use typed::{typed_key, Input};
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
use windows as os;

use futures::Stream;
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// What one read gave, in order (or why reading stopped).
type Read = std::io::Result<Vec<Input>>;

/// Reads that may wait for the event loop (each at most a read's worth, 8 KB on Unix): past
/// them the reader waits, and input waits in the terminal instead of in memory.
const QUEUED_READS: usize = 64;

/// What a system's `start` gives: the reads, the background colour answers (Unix), and
/// what reads the terminal (stopped when dropped).
type Parts = (mpsc::Receiver<Read>, Option<mpsc::UnboundedReceiver<Vec<u8>>>, os::Source);

/// The terminal's events while it lives; the stream ends when the terminal does.
pub struct TerminalInput {
    events: mpsc::Receiver<Read>,
    /// The rest of the last read, in order.
    ready: VecDeque<Input>,
    /// The terminal's answers to the background colour query (`ESC ] 11 ; …`), until taken.
    answers: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
    /// Dropped after `events` (fields drop in order): stops what reads the terminal.
    _source: os::Source,
}

impl TerminalInput {
    /// Starts reading the terminal (`os::start`). Must run inside the tokio runtime.
    /// `read_before`: bytes the app read from it already (while asking the terminal its
    /// background colour), decoded first.
    pub fn start(read_before: Vec<u8>) -> std::io::Result<TerminalInput> {
        os::start(read_before).map(TerminalInput::with)
    }

    fn with((events, answers, source): Parts) -> TerminalInput {
        TerminalInput { events, ready: VecDeque::new(), answers, _source: source }
    }

    /// The next input if it was read already (`None`: nothing now, or the terminal is gone,
    /// which the stream then says).
    pub fn ready(&mut self) -> Option<std::io::Result<Input>> {
        if let Some(input) = self.ready.pop_front() {
            return Some(Ok(input));
        }
        match self.events.try_recv() {
            Ok(Ok(read)) => {
                self.ready.extend(read);
                self.ready.pop_front().map(Ok)
            }
            Ok(Err(error)) => Some(Err(error)),
            Err(_) => None,
        }
    }

    /// Puts `input` back in front, to be the next one (what the event loop had no time
    /// for).
    pub fn put_back(&mut self, input: Input) {
        self.ready.push_front(input);
    }

    /// The terminal's answers to the background colour query, each whole (`ESC ] 11 ; rgb:…
    /// ST`); once.
    pub fn take_answers(&mut self) -> Option<mpsc::UnboundedReceiver<Vec<u8>>> {
        self.answers.take()
    }
}

impl Stream for TerminalInput {
    type Item = std::io::Result<Input>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(input) = self.ready.pop_front() {
                return Poll::Ready(Some(Ok(input)));
            }
            match std::task::ready!(self.events.poll_recv(cx)) {
                Some(Ok(read)) => self.ready.extend(read),
                Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                None => return Poll::Ready(None),
            }
        }
    }
}
