//! Asks the terminal for its background colour at start (OSC 11), before the first frame.
//! Writes `ESC ] 11 ; ? ESC \` and then the primary device attributes query (DA1, `ESC [ c`),
//! which every terminal answers: terminals answer in order, so a DA1 answer with no OSC 11
//! answer before it means "not supported". The first frame waits at most `FIRST_FRAME_WAIT`
//! (or `ELELEM_TERMINAL_WAIT_MS`) for the answers: a local terminal answers well within it,
//! so the first frame has the right palette; a later answer reaches the app through the
//! input reader (`terminal_input/`), which is handed whatever was read here (keys typed
//! meanwhile included) and reports OSC 11 answers apart from keys. Owns only the asking;
//! the reading of the colour is `text/background.rs`. Not on Windows, whose console input
//! is key events: there `ask` says no and the default palette is used.
#![cfg_attr(windows, allow(dead_code))]

#[cfg(unix)]
use std::io::Write;
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;

/// How long the first frame waits at most for the answers, unless `ELELEM_TERMINAL_WAIT_MS`
/// says otherwise (at most `MAX_WAIT`).
pub const FIRST_FRAME_WAIT: Duration = Duration::from_millis(20);

/// The longest `ELELEM_TERMINAL_WAIT_MS` may ask for.
const MAX_WAIT: Duration = Duration::from_secs(3);

/// `FIRST_FRAME_WAIT`, or `ELELEM_TERMINAL_WAIT_MS` when it is a number (capped at `MAX_WAIT`).
fn wait() -> Duration {
    std::env::var("ELELEM_TERMINAL_WAIT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(FIRST_FRAME_WAIT, |ms| Duration::from_millis(ms).min(MAX_WAIT))
}

/// The two queries, written in one go.
const QUERY: &[u8] = b"\x1b]11;?\x1b\\\x1b[c";

/// Bytes read at most while waiting (answers are ~30 bytes; anything past this is typing).
const READ_CAP: usize = 4096;

/// Writes the queries on stdout when stdin and stdout are terminals; whether it did. The
/// answers are for whoever reads the terminal next (`Query`, or the key reader).
#[cfg(unix)]
pub fn ask() -> bool {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return false;
    }
    let mut out = std::io::stdout();
    out.write_all(QUERY).and_then(|()| out.flush()).is_ok()
}

/// No query on Windows: the console's input is key events, and the answers would come
/// as keys (the default palette is used).
#[cfg(windows)]
pub fn ask() -> bool {
    false
}

/// The queries sent and what has come back so far.
pub struct Query {
    got: Vec<u8>,
}

impl Query {
    /// Writes the queries on stdout; `None` when stdin or stdout is not a terminal (they must
    /// be, in raw mode) or the write fails.
    pub fn send() -> Option<Query> {
        ask().then(|| Query { got: Vec::new() })
    }

    /// Reads what the terminal sends until it has answered (DA1 came) or the wait is over.
    /// Any failure ends the wait.
    #[cfg(unix)]
    pub fn wait(&mut self) {
        let stdin = std::io::stdin();
        let deadline = Instant::now() + wait();
        while self.got.len() < READ_CAP && !has_da1(&self.got) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let timeout = rustix::event::Timespec { tv_sec: left.as_secs() as _, tv_nsec: left.subsec_nanos() as _ };
            let mut fds = [rustix::event::PollFd::new(&stdin, rustix::event::PollFlags::IN)];
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => {}
                Err(_) => break,
            }
            let mut buf = [0u8; 512];
            match rustix::io::read(&stdin, &mut buf) {
                Ok(0) => break,
                Ok(n) => self.got.extend_from_slice(&buf[..n]),
                Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
                Err(_) => break,
            }
        }
    }

    /// Nothing to wait for on Windows (`send` never sends).
    #[cfg(windows)]
    pub fn wait(&mut self) {}

    /// The OSC 11 answer among what came back, whole, if it came.
    pub fn osc11(&self) -> Option<&[u8]> {
        osc11_span(&self.got).map(|(start, end)| &self.got[start..end])
    }

    /// Everything read (answers and keys typed meanwhile), for the input reader.
    pub fn into_read(self) -> Vec<u8> {
        self.got
    }
}

/// Whether `bytes` hold a DA1 answer (`ESC [ ? … c`).
fn has_da1(bytes: &[u8]) -> bool {
    let Some(start) = bytes.windows(3).position(|w| w == b"\x1b[?") else { return false };
    let Some(len) = bytes[start + 3..].iter().position(|&b| !(b.is_ascii_digit() || b == b';')) else {
        return false;
    };
    bytes[start + 3 + len] == b'c'
}

/// Where the OSC 11 answer is in `bytes` (`ESC ] 11 ;` to BEL or `ESC \`).
fn osc11_span(bytes: &[u8]) -> Option<(usize, usize)> {
    let start = bytes.windows(5).position(|w| w == b"\x1b]11;")?;
    let body = &bytes[start..];
    let end = body.iter().skip(5).position(|&b| b == 0x07 || b == 0x1b)? + 5;
    let stop = if body[end] == 0x07 { end + 1 } else { (end + 2).min(body.len()) };
    Some((start, start + stop))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn osc11(bytes: &[u8]) -> Option<&[u8]> {
        osc11_span(bytes).map(|(start, end)| &bytes[start..end])
    }

    #[test]
    fn the_answer_is_found_among_keys_typed_around_it() {
        let bytes = b"hi\x1b]11;rgb:ffff/ffff/ffff\x1b\\ there\x1b[?62;22c!";
        assert_eq!(osc11(bytes), Some(&b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"[..]));
        assert!(has_da1(bytes));
    }

    #[test]
    fn a_terminal_without_osc_11_answers_da1_only() {
        assert_eq!(osc11(b"\x1b[?1;2c"), None);
        assert!(has_da1(b"\x1b[?1;2c"));
        assert!(!has_da1(b"\x1b[?1;2"));
        assert!(!has_da1(b"\x1b[A"));
    }

    #[test]
    fn a_bel_ended_answer() {
        assert_eq!(osc11(b"\x1b]11;rgb:0/0/0\x07\x03\x1b[?6c"), Some(&b"\x1b]11;rgb:0/0/0\x07"[..]));
    }
}
