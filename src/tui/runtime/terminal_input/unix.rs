//! The terminal's input on Unix: our own reader of stdin's bytes (`reader.rs`), and
//! `Event::Resize` on SIGWINCH.

use super::{reader, Input, Parts};
use crossterm::event::Event;
use std::os::fd::AsFd;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What reads the terminal: the reader thread, and the task that sends `Event::Resize` into
/// the same channel on SIGWINCH (aborted when dropped).
pub struct Source {
    resizes: JoinHandle<()>,
    /// Stops and joins the thread when dropped.
    _reader: reader::Reader,
}

impl Drop for Source {
    fn drop(&mut self) {
        self.resizes.abort();
    }
}

/// Starts reading stdin (a terminal in raw mode). Must run inside the tokio runtime.
/// `read_before`: bytes the app read from it already (while asking the terminal its
/// background colour), decoded first.
pub fn start(read_before: Vec<u8>) -> std::io::Result<Parts> {
    over(std::io::stdin(), read_before)
}

/// Starts reading `input`.
fn over<F: AsFd + Send + 'static>(input: F, read_before: Vec<u8>) -> std::io::Result<Parts> {
    let mut resized = signal(SignalKind::window_change())?;
    let (tx, events) = mpsc::channel(super::QUEUED_READS);
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
            if tx.send(size).await.is_err() {
                break;
            }
        }
    });
    Ok((events, Some(answers), Source { resizes, _reader: reader }))
}

#[cfg(test)]
mod stream_tests {
    use super::super::TerminalInput;
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
        let mut events = TerminalInput::with(over(input, Vec::new()).unwrap());
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
