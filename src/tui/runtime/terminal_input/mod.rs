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

mod csi;
mod decode;
mod kitty_keys;
mod reader;
#[cfg(test)]
mod tests;
mod typed;

pub use typed::{typed_key, Input};

use crossterm::event::Event;
use futures::Stream;
use std::collections::VecDeque;
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The terminal's events while it lives; the stream ends when the terminal does.
pub struct TerminalInput {
    events: mpsc::UnboundedReceiver<reader::Read>,
    /// The rest of the last read, in order.
    ready: VecDeque<Input>,
    /// The terminal's answers to the background colour query (`ESC ] 11 ; …`), until taken.
    answers: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
    /// Sends `Event::Resize` into the same channel on SIGWINCH.
    resizes: JoinHandle<()>,
    /// Dropped after `events` (fields drop in order): stops and joins the thread.
    _reader: reader::Reader,
}

impl TerminalInput {
    /// Starts reading stdin (a terminal in raw mode). Must run inside the tokio runtime.
    /// `read_before`: bytes the app read from it already (while asking the terminal its
    /// background colour), decoded first.
    pub fn start(read_before: Vec<u8>) -> std::io::Result<TerminalInput> {
        TerminalInput::over(std::io::stdin(), read_before)
    }

    /// Starts reading `input`.
    fn over<F: AsFd + Send + 'static>(input: F, read_before: Vec<u8>) -> std::io::Result<TerminalInput> {
        let mut resized = signal(SignalKind::window_change())?;
        let (tx, events) = mpsc::unbounded_channel();
        let (answers_tx, answers) = mpsc::unbounded_channel();
        // Weak: the channel ends when the reader does (the terminal is gone), not when this
        // task does.
        let weak = tx.downgrade();
        let start = reader::Start { read_before, answers: Some(answers_tx) };
        let reader = reader::Reader::start_with(input, tx, start)?;
        let resizes = tokio::spawn(async move {
            while resized.recv().await.is_some() {
                let Some(tx) = weak.upgrade() else { break };
                let size =
                    crossterm::terminal::size().map(|(columns, rows)| vec![Input::Event(Event::Resize(columns, rows))]);
                if tx.send(size).is_err() {
                    break;
                }
            }
        });
        Ok(TerminalInput { events, ready: VecDeque::new(), answers: Some(answers), resizes, _reader: reader })
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

impl Drop for TerminalInput {
    fn drop(&mut self) {
        self.resizes.abort();
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

#[cfg(test)]
mod stream_tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use futures::StreamExt;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    async fn next(input: &mut TerminalInput) -> Option<std::io::Result<Input>> {
        tokio::time::timeout(Duration::from_secs(5), input.next()).await.expect("no event within 5 s")
    }

    #[tokio::test]
    async fn keys_and_resizes_come_through_and_the_stream_ends_with_the_terminal() {
        let (mut terminal, input) = UnixStream::pair().unwrap();
        let mut events = TerminalInput::over(input, Vec::new()).unwrap();
        terminal.write_all(b"x").unwrap();
        let x = Input::Event(Event::Key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE)));
        assert_eq!(next(&mut events).await.unwrap().unwrap(), x);
        // SAFETY: raising a signal the runtime handles (SIGWINCH is ignored by default).
        assert_eq!(unsafe { libc::raise(libc::SIGWINCH) }, 0);
        // The size of a terminal the test may not have: a Resize or the error asking gave.
        match next(&mut events).await {
            Some(Ok(Input::Event(Event::Resize(..))) | Err(_)) => {}
            other => panic!("not a resize: {other:?}"),
        }
        drop(terminal);
        assert!(next(&mut events).await.is_none(), "the stream goes on without a terminal");
    }
}
