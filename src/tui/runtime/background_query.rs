//! Asks the terminal for its background colour at start (OSC 11), before the first frame and
//! before the key reader exists. Writes `ESC ] 11 ; ? ESC \` and then the primary device
//! attributes query (DA1, `ESC [ c`), which every terminal answers: terminals answer in order,
//! so a DA1 answer with no OSC 11 answer before it means "not supported" and nothing more is
//! waited for. A terminal that answers neither costs `WAIT` once. Owns only the asking and the
//! splitting of what came back (the reading of the colour is `text/background.rs`).

use std::io::Write;
use std::time::{Duration, Instant};

/// How long to wait at most for the answers.
pub const WAIT: Duration = Duration::from_millis(100);

/// The two queries, written in one go.
const QUERY: &[u8] = b"\x1b]11;?\x1b\\\x1b[c";

/// Bytes read at most while waiting (answers are ~30 bytes; anything past this is typing).
const READ_CAP: usize = 4096;

/// What came back: the OSC 11 answer, if any, and the text typed meanwhile.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answers {
    pub osc11: Option<Vec<u8>>,
    /// Printable text that was neither answer (keys typed while the app started).
    pub typed: String,
}

/// Asks the terminal on stdin/stdout (both must be terminals, in raw mode) and waits at most
/// `WAIT` for its answers. Any failure is "no answer".
pub fn ask() -> Answers {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Answers::default();
    }
    let mut out = std::io::stdout();
    if out.write_all(QUERY).and_then(|()| out.flush()).is_err() {
        return Answers::default();
    }
    let stdin = std::io::stdin();
    let mut got = Vec::new();
    let deadline = Instant::now() + WAIT;
    while got.len() < READ_CAP && !has_da1(&got) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let timeout = rustix::event::Timespec { tv_sec: left.as_secs() as _, tv_nsec: left.subsec_nanos() as _ };
        let mut fds = [rustix::event::PollFd::new(&stdin, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) => break,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => break,
        }
        let mut buf = [0u8; 512];
        match rustix::io::read(&stdin, &mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => continue,
            Err(_) => break,
        }
    }
    split(&got)
}

/// Whether `bytes` hold a DA1 answer (`ESC [ ? … c`).
fn has_da1(bytes: &[u8]) -> bool {
    da1_span(bytes).is_some()
}

/// Where the DA1 answer is in `bytes`.
fn da1_span(bytes: &[u8]) -> Option<(usize, usize)> {
    let start = bytes.windows(3).position(|w| w == b"\x1b[?")?;
    let len = bytes[start + 3..].iter().position(|&b| !(b.is_ascii_digit() || b == b';'))?;
    let end = start + 3 + len;
    (bytes[end] == b'c').then_some((start, end + 1))
}

/// Where the OSC 11 answer is in `bytes` (`ESC ] 11 ;` to BEL or `ESC \`).
fn osc11_span(bytes: &[u8]) -> Option<(usize, usize)> {
    let start = bytes.windows(5).position(|w| w == b"\x1b]11;")?;
    let body = &bytes[start..];
    let end = body.iter().skip(5).position(|&b| b == 0x07 || b == 0x1b)? + 5;
    let stop = if body[end] == 0x07 { end + 1 } else { (end + 2).min(body.len()) };
    Some((start, start + stop))
}

/// Splits what came back into the OSC 11 answer and the printable text around the answers.
pub fn split(bytes: &[u8]) -> Answers {
    let mut rest = bytes.to_vec();
    let mut osc11 = None;
    if let Some((start, end)) = osc11_span(&rest) {
        osc11 = Some(rest[start..end].to_vec());
        rest.drain(start..end);
    }
    if let Some((start, end)) = da1_span(&rest) {
        rest.drain(start..end);
    }
    let typed = String::from_utf8_lossy(&rest).chars().filter(|c| !c.is_control() && *c != '\u{fffd}').collect();
    Answers { osc11, typed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_answers_are_taken_out_and_typing_around_them_is_kept() {
        let answers = split(b"hi\x1b]11;rgb:ffff/ffff/ffff\x1b\\ there\x1b[?62;22c!");
        assert_eq!(answers.osc11.as_deref(), Some(&b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"[..]));
        assert_eq!(answers.typed, "hi there!");
    }

    #[test]
    fn a_terminal_without_osc_11_answers_da1_only() {
        let answers = split(b"\x1b[?1;2c");
        assert_eq!(answers, Answers::default());
        assert!(has_da1(b"\x1b[?1;2c"));
        assert!(!has_da1(b"\x1b[?1;2"));
    }

    #[test]
    fn a_bel_ended_answer_and_control_bytes_typed() {
        let answers = split(b"\x1b]11;rgb:0/0/0\x07\x03\x1b[?6c");
        assert_eq!(answers.osc11.as_deref(), Some(&b"\x1b]11;rgb:0/0/0\x07"[..]));
        assert_eq!(answers.typed, "");
    }
}
