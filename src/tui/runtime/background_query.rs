//! Asks the terminal for its background colour at start (OSC 11), before the first frame and
//! before the key reader exists. Writes `ESC ] 11 ; ? ESC \` and then the primary device
//! attributes query (DA1, `ESC [ c`), which every terminal answers: terminals answer in order,
//! so a DA1 answer with no OSC 11 answer before it means "not supported" and nothing more is
//! waited for. A terminal that answers neither costs the whole wait (`WAIT`, or
//! `ELELEM_TERMINAL_WAIT_MS`) once. Owns only the asking and the splitting of what came back
//! (keys typed meanwhile included); the reading of the colour is `text/background.rs`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::io::Write;
use std::time::{Duration, Instant};

/// How long to wait at most for the answers, unless `ELELEM_TERMINAL_WAIT_MS` says otherwise
/// (a slow link may want more; at most `MAX_WAIT`).
pub const WAIT: Duration = Duration::from_millis(100);

/// The longest `ELELEM_TERMINAL_WAIT_MS` may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(3);

/// `WAIT`, or `ELELEM_TERMINAL_WAIT_MS` when it is a number (capped at `MAX_WAIT`).
fn wait() -> Duration {
    std::env::var("ELELEM_TERMINAL_WAIT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(WAIT, |ms| Duration::from_millis(ms).min(MAX_WAIT))
}

/// The two queries, written in one go.
const QUERY: &[u8] = b"\x1b]11;?\x1b\\\x1b[c";

/// Bytes read at most while waiting (answers are ~30 bytes; anything past this is typing).
const READ_CAP: usize = 4096;

/// What came back: the OSC 11 answer, if any, and the keys typed meanwhile.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answers {
    pub osc11: Option<Vec<u8>>,
    /// What was neither answer: keys typed while the app started (text, Enter, Backspace, Tab,
    /// Ctrl+letter; escape sequences such as arrows are dropped).
    pub typed: Vec<KeyEvent>,
}

/// The queries sent and what has come back so far.
pub struct Query {
    got: Vec<u8>,
    deadline: Instant,
    done: bool,
}

impl Query {
    /// Writes the queries on stdout; `None` when stdin or stdout is not a terminal (they must
    /// be, in raw mode) or the write fails.
    pub fn send() -> Option<Query> {
        use std::io::IsTerminal;
        if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            return None;
        }
        let mut out = std::io::stdout();
        out.write_all(QUERY).and_then(|()| out.flush()).ok()?;
        Some(Query { got: Vec::new(), deadline: Instant::now() + wait(), done: false })
    }

    /// Reads what the terminal sends until it has answered, `until` or the whole wait after
    /// the queries, whichever is first; whether the asking is over (answered, out of time, or
    /// the input failed). Any failure is "no answer".
    pub fn wait(&mut self, until: Instant) -> bool {
        let stdin = std::io::stdin();
        let until = until.min(self.deadline);
        while !self.done {
            if self.got.len() >= READ_CAP || has_da1(&self.got) || Instant::now() >= self.deadline {
                self.done = true;
                break;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let timeout = rustix::event::Timespec { tv_sec: left.as_secs() as _, tv_nsec: left.subsec_nanos() as _ };
            let mut fds = [rustix::event::PollFd::new(&stdin, rustix::event::PollFlags::IN)];
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => {}
                Err(_) => self.done = true,
            }
            if self.done {
                break;
            }
            let mut buf = [0u8; 512];
            match rustix::io::read(&stdin, &mut buf) {
                Ok(0) => self.done = true,
                Ok(n) => self.got.extend_from_slice(&buf[..n]),
                Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
                Err(_) => self.done = true,
            }
        }
        self.done
    }

    /// What came back so far.
    pub fn answers(&self) -> Answers {
        split(&self.got)
    }
}

impl Answers {
    /// The keys typed and the OSC 11 answer.
    pub fn into_parts(self) -> (Vec<KeyEvent>, Option<Vec<u8>>) {
        (self.typed, self.osc11)
    }
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
    Answers { osc11, typed: keys(&rest) }
}

/// The keys in bytes typed at a terminal in raw mode, as far as they can be told without
/// waiting: characters, Enter, Backspace, Tab and Ctrl+letter; escape sequences are skipped.
fn keys(bytes: &[u8]) -> Vec<KeyEvent> {
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.chars().peekable();
    let mut keys = Vec::new();
    while let Some(c) = chars.next() {
        let key = match c {
            '\r' | '\n' => KeyEvent::from(KeyCode::Enter),
            '\t' => KeyEvent::from(KeyCode::Tab),
            '\x7f' | '\x08' => KeyEvent::from(KeyCode::Backspace),
            '\x01'..='\x1a' => KeyEvent::new(KeyCode::Char(char::from(b'a' + (c as u8 - 1))), KeyModifiers::CONTROL),
            '\x1b' => {
                // CSI (`ESC [`, parameters, a final byte) or SS3 (`ESC O x`): one key we drop.
                match chars.next() {
                    Some('[') => {
                        while chars.next_if(|c| !('\x40'..='\x7e').contains(c)).is_some() {}
                        chars.next();
                    }
                    Some('O') => {
                        chars.next();
                    }
                    _ => {}
                }
                continue;
            }
            c if c.is_control() || c == '\u{fffd}' => continue,
            c => KeyEvent::from(KeyCode::Char(c)),
        };
        keys.push(key);
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters among `keys`.
    fn text(keys: &[KeyEvent]) -> String {
        keys.iter().filter_map(|k| if let KeyCode::Char(c) = k.code { Some(c) } else { None }).collect()
    }

    #[test]
    fn keys_typed_ahead_keep_enter_and_backspace_and_drop_arrows() {
        let keys = keys("fix\x7fx it\x1b[A\x1bOB ✓\r".as_bytes());
        assert_eq!(text(&keys), "fixx it ✓");
        assert_eq!(keys.iter().filter(|k| k.code == KeyCode::Backspace).count(), 1);
        assert_eq!(keys.last().map(|k| k.code), Some(KeyCode::Enter));
        assert_eq!(keys.len(), 11);
    }

    #[test]
    fn both_answers_are_taken_out_and_typing_around_them_is_kept() {
        let answers = split(b"hi\x1b]11;rgb:ffff/ffff/ffff\x1b\\ there\x1b[?62;22c!");
        assert_eq!(answers.osc11.as_deref(), Some(&b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"[..]));
        assert_eq!(text(&answers.typed), "hi there!");
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
        assert_eq!(answers.typed, vec![KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)]);
    }
}
