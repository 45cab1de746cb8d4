//! The thread that reads the terminal: waits (poll) on the input and on a stop socket,
//! reads what came, decodes it (`decode.rs`) and sends the events of each read to the event
//! loop at once, runs of typed characters joined (`typed.rs`). When
//! an unfinished sequence is pending it waits only `Decoder::wait()` for the rest. Dropping
//! the `Reader` stops the thread and waits for it, so nothing reads the terminal while the
//! user's editor has it. The input ending (the terminal hung up) ends the channel. The
//! channel is bounded (`QUEUED_READS`): when the event loop falls behind, the thread stops
//! reading, and what is typed or pasted waits in the terminal (which then holds its writer
//! back), not in elelem's memory.

use super::decode::Decoder;
use super::typed::group;
use super::Read;
use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::{Sender, UnboundedSender};

/// Bytes read at most per read (a paste comes in several); also the most events sent at once.
const READ_SIZE: usize = 8192;

/// How long the thread waits before trying again to send to a full channel (it wakes at once
/// when stopped).
const FULL_WAIT: Duration = Duration::from_millis(5);

/// The running reader; dropping it stops it.
pub struct Reader {
    /// Closed to stop the thread (its end then polls as hung up).
    stop: Option<UnixStream>,
    thread: Option<JoinHandle<()>>,
}

/// What the reader starts with besides the input: bytes already read from it (decoded
/// first), and where the answers to the background query go (dropped without).
#[derive(Default)]
pub struct Start {
    pub read_before: Vec<u8>,
    pub answers: Option<UnboundedSender<Vec<u8>>>,
}

impl Reader {
    /// Starts reading `input` (the terminal, in raw mode) on a thread of its own, sending
    /// what it decodes to `events`.
    #[cfg(test)]
    pub fn start<F: AsFd + Send + 'static>(input: F, events: Sender<Read>) -> std::io::Result<Reader> {
        Reader::start_with(input, events, Start::default())
    }

    /// `start`, with `start`'s bytes decoded first and its answers sent on.
    pub fn start_with<F: AsFd + Send + 'static>(
        input: F,
        events: Sender<Read>,
        start: Start,
    ) -> std::io::Result<Reader> {
        let (stop, stopped) = UnixStream::pair()?;
        let thread = std::thread::Builder::new()
            .name("terminal-input".into())
            .spawn(move || read_until_stopped(&input, &stopped, &events, start))?;
        Ok(Reader { stop: Some(stop), thread: Some(thread) })
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Sends `read`, waiting while the channel is full (the event loop behind) unless the reader
/// is stopped meanwhile: whether it was sent (false: stop reading).
fn send(events: &Sender<Read>, read: Read, stopped: &UnixStream) -> bool {
    let mut read = read;
    loop {
        match events.try_send(read) {
            Ok(()) => return true,
            Err(TrySendError::Closed(_)) => return false,
            Err(TrySendError::Full(back)) => read = back,
        }
        let mut fds = [PollFd::new(stopped, PollFlags::IN)];
        if !matches!(rustix::event::poll(&mut fds, Some(&timespec(FULL_WAIT))), Ok(0) | Err(Errno::INTR)) {
            return false;
        }
    }
}

fn read_until_stopped(input: &impl AsFd, stopped: &UnixStream, events: &Sender<Read>, start: Start) {
    let mut decoder = Decoder::default();
    let mut buf = vec![0u8; READ_SIZE];
    let mut decoded = Vec::new();
    decoder.feed(&start.read_before, &mut decoded);
    loop {
        for answer in decoder.take_answers() {
            if let Some(answers) = &start.answers {
                let _ = answers.send(answer);
            }
        }
        if !decoded.is_empty() && !send(events, Ok(group(decoded.drain(..))), stopped) {
            return;
        }
        let timeout = decoder.wait().map(timespec);
        let mut fds = [PollFd::new(input, PollFlags::IN), PollFd::new(stopped, PollFlags::IN)];
        match rustix::event::poll(&mut fds, timeout.as_ref()) {
            Ok(0) => decoder.timeout(&mut decoded),
            Ok(_) if !fds[1].revents().is_empty() => return,
            Ok(_) => match rustix::io::read(input, &mut buf) {
                Ok(0) => return,
                Ok(n) => decoder.feed(&buf[..n], &mut decoded),
                Err(Errno::INTR | Errno::AGAIN) => continue,
                // The terminal is gone (hung up).
                Err(Errno::IO) => return,
                Err(error) => {
                    send(events, Err(error.into()), stopped);
                    return;
                }
            },
            Err(Errno::INTR) => continue,
            Err(error) => {
                send(events, Err(error.into()), stopped);
                return;
            }
        }
    }
}

fn timespec(wait: Duration) -> Timespec {
    Timespec { tv_sec: wait.as_secs() as _, tv_nsec: wait.subsec_nanos() as _ }
}

#[cfg(test)]
mod tests {
    use super::super::Input;
    use super::*;
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    use std::io::{Read as _, Write};
    use std::time::Instant;
    use tokio::sync::mpsc;

    fn next(rx: &mut mpsc::Receiver<Read>) -> Vec<Input> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match rx.try_recv() {
                Ok(read) => return read.unwrap(),
                Err(mpsc::error::TryRecvError::Empty) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1))
                }
                Err(error) => panic!("no event: {error}"),
            }
        }
    }

    #[test]
    fn keys_arrive_a_lone_esc_after_its_wait_and_a_stopped_reader_reads_nothing_more() {
        let (mut terminal, input) = UnixStream::pair().unwrap();
        let (tx, mut rx) = mpsc::channel(super::super::QUEUED_READS);
        let reader = Reader::start(input.try_clone().unwrap(), tx).unwrap();
        terminal.write_all(b"a\x1b[27;2;13~").unwrap();
        let a = Input::Event(Event::Key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE)));
        let shift_enter = Input::Event(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT)));
        assert_eq!(next(&mut rx), [a, shift_enter], "one read, sent at once");
        terminal.write_all(b"typed\r").unwrap();
        let enter = Input::Event(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
        assert_eq!(next(&mut rx), [Input::Typed("typed".into()), enter]);
        let sent = Instant::now();
        terminal.write_all(b"\x1b").unwrap();
        assert_eq!(next(&mut rx), [Input::Event(Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)))]);
        assert!(sent.elapsed() < Duration::from_millis(500), "Esc took {:?}", sent.elapsed());
        drop(reader);
        // Stopped: what the terminal sends now stays for whoever reads next (the editor).
        terminal.write_all(b"typed in the editor").unwrap();
        let mut left = [0u8; 64];
        let mut input = input;
        input.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
        let n = input.read(&mut left).unwrap();
        assert_eq!(&left[..n], b"typed in the editor");
        assert!(rx.try_recv().is_err(), "the channel is closed and empty");
    }

    #[test]
    fn the_input_ending_ends_the_channel() {
        let (terminal, input) = UnixStream::pair().unwrap();
        let (tx, mut rx) = mpsc::channel(super::super::QUEUED_READS);
        let _reader = Reader::start(input, tx).unwrap();
        drop(terminal);
        assert!(rx.blocking_recv().is_none());
    }

    /// A flood the event loop does not take: at most `QUEUED_READS` reads wait in elelem,
    /// the rest stays in the terminal, whose writer is then held back; and a reader stopped
    /// while the channel is full still stops.
    #[test]
    fn a_flood_waits_in_the_terminal_not_in_memory_and_a_full_reader_still_stops() {
        let (mut terminal, input) = UnixStream::pair().unwrap();
        let (tx, mut rx) = mpsc::channel(super::super::QUEUED_READS);
        let reader = Reader::start(input, tx).unwrap();
        terminal.set_nonblocking(true).unwrap();
        let chunk = [b'x'; 4096];
        let (mut written, mut held_back) = (0usize, false);
        let deadline = Instant::now() + Duration::from_secs(30);
        while written < 256 << 20 && Instant::now() < deadline {
            match terminal.write(&chunk) {
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    // Full now; once more after the reader had time to take what it would.
                    std::thread::sleep(Duration::from_millis(50));
                    if terminal.write(&chunk).is_err() {
                        held_back = true;
                        break;
                    }
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(held_back, "{written} bytes went in and the terminal's writer was never held back");
        assert!(written < 16 << 20, "{written} bytes taken with nobody reading the channel");
        assert!(rx.len() <= super::super::QUEUED_READS);
        let started = Instant::now();
        drop(reader);
        assert!(started.elapsed() < Duration::from_secs(5), "stopping took {:?}", started.elapsed());
        // What was queued is all there, in order.
        let mut queued = 0;
        while let Ok(Ok(read)) = rx.try_recv() {
            queued += read.iter().map(|i| if let Input::Typed(t) = i { t.len() } else { 1 }).sum::<usize>();
        }
        assert!(queued > 0 && queued <= written, "{queued} of {written}");
    }
}
