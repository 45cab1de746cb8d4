//! The terminal's bytes (raw mode) as crossterm `Event`s: where each key, escape sequence,
//! bracketed paste or terminal answer ends, and what the single bytes mean (text, C0
//! controls, Esc, Alt as an `ESC` prefix). A sequence cut by the end of a read waits for
//! the next read; when nothing more comes (`Decoder::wait`, then `Decoder::timeout`) a lone
//! `ESC` is the Esc key and an unfinished sequence is dropped. Anything unknown or malformed
//! is skipped alone, never the bytes after it. What a complete sequence means is `csi.rs`.
//!
//! Linear in what it is given (issue 37): each byte is looked at a bounded number of times
//! however the bytes are split across reads. What waits between reads is bounded: a control
//! sequence at most `MAX_SEQUENCE` bytes (the scan goes on where the last read left it); a
//! longer one is dropped whole, up to its final byte. A terminal string (OSC, DCS, APC, PM,
//! SOS) is not held at all: it is dropped as it comes, up to its end (BEL, `ESC \`, or an
//! `ESC` starting something else), and never typed however long it is; only its first
//! `MAX_STRING` bytes are kept, for the answer to the background colour query.

use super::csi;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use std::time::Duration;

/// How long an unfinished sequence (a lone `ESC` above all) waits for the rest: terminals
/// write a key's sequence at once, so this only has to cover a split read; a lone `ESC`
/// is the Esc key after it.
pub const ESC_WAIT: Duration = Duration::from_millis(25);

/// How long a bracketed paste waits for more before what came is the paste (its end marker
/// was lost).
pub const PASTE_WAIT: Duration = Duration::from_secs(1);

/// A paste is handed over in pieces of at most this many bytes (the rest follows as more
/// pastes), so one whose end marker never comes does not grow without bound.
pub const PASTE_PIECE: usize = 8 << 20;

/// Longest control sequence read (the longest real ones are ~40 bytes); a longer one is
/// dropped whole, up to its final byte.
pub const MAX_SEQUENCE: usize = 256;

/// Longest terminal string (OSC, DCS, APC answers) kept as an answer; a longer one is
/// dropped all the same, up to its end.
pub const MAX_STRING: usize = 4096;

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// The decoder's state between reads.
#[derive(Default)]
pub struct Decoder {
    /// The start of an unfinished sequence or character (at most `MAX_SEQUENCE` bytes and
    /// what the last read added).
    pending: Vec<u8>,
    /// How many bytes at the front of `pending` were scanned already without finding where
    /// their sequence ends: the next read's scan goes on from there.
    scanned: usize,
    /// What is open across reads: a paste, a terminal string or an over-long sequence.
    open: Option<Open>,
    /// The terminal's answers to the background colour query (`ESC ] 11 ; …`) read since
    /// the last `take_answers`.
    answers: Vec<Vec<u8>>,
    /// Bytes moved over, counting again those scanned again (the linearity tests read it).
    #[cfg(test)]
    examined: usize,
}

/// Something read across reads, each byte once.
enum Open {
    /// A bracketed paste: its text so far.
    Paste(Vec<u8>),
    /// A terminal string, dropped: its bytes while within `MAX_STRING` (it may be the
    /// answer to the background query), `None` past that.
    String(Option<Vec<u8>>),
    /// A control sequence longer than `MAX_SEQUENCE`, dropped up to its final byte.
    LongSequence,
}

/// Answers to the background query kept at most between two `take_answers`.
const MAX_ANSWERS: usize = 4;

/// What the bytes at the front are.
enum Step {
    /// An event, and the bytes it took.
    Event(Event, usize),
    /// Bytes that mean nothing to the app.
    Skip(usize),
    /// Something read across reads starts after these bytes (`Open`).
    Open(Opens, usize),
    /// Unfinished: the next read may complete it.
    More,
}

/// What a `Step::Open` opens.
enum Opens {
    Paste,
    String,
    LongSequence,
}

impl Decoder {
    /// Decodes one read's `bytes`, adding the events they finish to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.pending.extend_from_slice(bytes);
        self.run(false, out);
    }

    /// How long to wait for more bytes before `timeout`: `None` when nothing is unfinished.
    pub fn wait(&self) -> Option<Duration> {
        match self.open {
            Some(Open::Paste(_)) => Some(PASTE_WAIT),
            Some(_) => Some(ESC_WAIT),
            None if !self.pending.is_empty() => Some(ESC_WAIT),
            None => None,
        }
    }

    /// No more bytes came within `wait()`: what is unfinished is decided now (a lone `ESC`
    /// is Esc, an open paste is handed over, a cut sequence or string dropped).
    pub fn timeout(&mut self, out: &mut Vec<Event>) {
        self.run(true, out);
        match self.open.take() {
            Some(Open::Paste(paste)) => out.push(paste_event(&paste)),
            Some(Open::String(kept)) => self.keep_answer(kept),
            Some(Open::LongSequence) | None => {}
        }
        self.pending.clear();
        self.scanned = 0;
    }

    /// The answers to the background colour query (OSC 11) among the terminal strings read
    /// since the last call, whole (`ESC ] 11 ; rgb:… ST`); they are never events.
    pub fn take_answers(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.answers)
    }

    /// Bytes moved over since the start, each scan of an unfinished sequence counted again.
    #[cfg(test)]
    pub fn examined(&self) -> usize {
        self.examined
    }

    /// Bytes held between reads: the unfinished sequence, the part of a string kept.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        let open = match &self.open {
            Some(Open::Paste(paste)) => paste.len(),
            Some(Open::String(kept)) => kept.as_ref().map_or(0, Vec::len),
            Some(Open::LongSequence) | None => 0,
        };
        self.pending.len() + open
    }

    #[cfg(test)]
    fn count(&mut self, bytes: usize) {
        self.examined += bytes;
    }

    #[cfg(not(test))]
    fn count(&mut self, _: usize) {}

    fn run(&mut self, end: bool, out: &mut Vec<Event>) {
        let mut at = 0;
        while at < self.pending.len() {
            if self.open.is_some() {
                match self.take_open(at, end, out) {
                    Some(used) => at += used,
                    None => break,
                }
                continue;
            }
            // Only the front of `pending` can have been scanned by an earlier read.
            let scanned = if at == 0 { std::mem::take(&mut self.scanned) } else { 0 };
            let step = step(&self.pending[at..], end, scanned);
            let left = self.pending.len() - at;
            let moved = match step {
                Step::Event(_, used) | Step::Skip(used) | Step::Open(_, used) => used,
                Step::More => left,
            };
            self.count(moved.saturating_sub(scanned));
            match step {
                Step::Event(event, used) => {
                    out.push(event);
                    at += used;
                }
                Step::Skip(used) => at += used,
                Step::Open(opens, used) => {
                    self.open = Some(match opens {
                        Opens::Paste => Open::Paste(Vec::new()),
                        Opens::String => Open::String(Some(self.pending[at..at + used].to_vec())),
                        Opens::LongSequence => Open::LongSequence,
                    });
                    at += used;
                }
                Step::More => {
                    self.scanned = left;
                    break;
                }
            }
        }
        self.pending.drain(..at);
    }

    /// Reads the pending bytes from `at` into what is open; returns how many it took, or
    /// `None` to wait for the next read (an `ESC` ends them: is it `ESC \`?).
    fn take_open(&mut self, at: usize, end: bool, out: &mut Vec<Event>) -> Option<usize> {
        let input = &self.pending[at..];
        let (used, closed) = match self.open.as_mut()? {
            Open::Paste(paste) => {
                let (used, closed) = take_paste(paste, input, out);
                (used, closed)
            }
            Open::String(kept) => {
                let (used, closed) = take_string(input, end)?;
                if let Some(bytes) = kept.as_mut() {
                    if bytes.len() + used <= MAX_STRING {
                        bytes.extend_from_slice(&input[..used]);
                    } else {
                        *kept = None;
                    }
                }
                (used, closed)
            }
            Open::LongSequence => take_long_sequence(input),
        };
        self.count(used);
        if closed {
            if let Some(Open::String(kept)) = self.open.take() {
                self.keep_answer(kept);
            }
        }
        Some(used)
    }

    /// A terminal string that ended: kept when it is an answer to the background query.
    fn keep_answer(&mut self, kept: Option<Vec<u8>>) {
        if let Some(kept) = kept.filter(|bytes| bytes.starts_with(b"\x1b]11;")) {
            if self.answers.len() < MAX_ANSWERS {
                self.answers.push(kept);
            }
        }
    }
}

/// `input` into the open `paste`, closing it at its end marker: (bytes taken, closed).
fn take_paste(paste: &mut Vec<u8>, input: &[u8], out: &mut Vec<Event>) -> (usize, bool) {
    // The marker may have begun in an earlier read.
    let from = paste.len().saturating_sub(PASTE_END.len() - 1);
    paste.extend_from_slice(input);
    if let Some(found) = memchr::memmem::find(&paste[from..], PASTE_END) {
        let end = from + found;
        let after = paste.len() - (end + PASTE_END.len());
        paste.truncate(end);
        out.push(paste_event(paste));
        return (input.len() - after, true);
    }
    while paste.len() > PASTE_PIECE {
        // Keep what may be the start of the marker, and characters whole.
        let most = PASTE_PIECE.min(paste.len() - (PASTE_END.len() - 1));
        let cut = (most.saturating_sub(3)..=most).rev().find(|&i| paste[i] & 0xc0 != 0x80).unwrap_or(most);
        out.push(paste_event(&paste[..cut]));
        paste.drain(..cut);
    }
    (input.len(), false)
}

/// The bytes of an open terminal string at the front of `input`: (bytes taken, ended), or
/// `None` when it ends in an `ESC` whose next byte is still to come. BEL and `ESC \` end it
/// and are its own; another `ESC` cuts it short and is read anew (`ESC [ A`, an arrow key).
fn take_string(input: &[u8], end: bool) -> Option<(usize, bool)> {
    let Some(i) = memchr::memchr2(0x07, 0x1b, input) else { return Some((input.len(), false)) };
    if input[i] == 0x07 {
        return Some((i + 1, true));
    }
    match input.get(i + 1) {
        Some(b'\\') => Some((i + 2, true)),
        Some(_) => Some((i, true)),
        // The `ESC` goes with the string when nothing follows it.
        None if end => Some((input.len(), true)),
        None if i == 0 => None,
        // Up to the `ESC`; it waits for its next byte.
        None => Some((i, false)),
    }
}

/// The bytes of an over-long control sequence at the front of `input`: (bytes taken,
/// ended). Its final byte ends it (and is its own); a byte that cannot be in a sequence
/// ends it too and is read anew.
fn take_long_sequence(input: &[u8]) -> (usize, bool) {
    match input.iter().position(|c| !(0x20..=0x3f).contains(c)) {
        Some(i) if (0x40..=0x7e).contains(&input[i]) => (i + 1, true),
        Some(i) => (i, true),
        None => (input.len(), false),
    }
}

fn paste_event(bytes: &[u8]) -> Event {
    Event::Paste(String::from_utf8_lossy(bytes).into_owned())
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

fn ctrl(c: char) -> Event {
    key(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// The bytes at the front of `b` (not empty); `end`: no more bytes will follow;
/// `scanned`: how many of them an earlier read scanned without finding their end.
fn step(b: &[u8], end: bool, scanned: usize) -> Step {
    let event = match b[0] {
        0x1b => return escape(b, end, scanned),
        b'\r' => key(KeyCode::Enter, KeyModifiers::NONE),
        b'\t' => key(KeyCode::Tab, KeyModifiers::NONE),
        0x7f | 0x08 => key(KeyCode::Backspace, KeyModifiers::NONE),
        0 => ctrl(' '),
        c @ 0x01..=0x1a => ctrl(char::from(c - 1 + b'a')),
        c @ 0x1c..=0x1f => ctrl(char::from(c - 0x1c + b'4')),
        _ => return text(b, end),
    };
    Step::Event(event, 1)
}

/// A UTF-8 character typed (an upper-case letter with Shift, as crossterm has it).
fn text(b: &[u8], end: bool) -> Step {
    let len = match b[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Step::Skip(1),
    };
    // A byte that cannot continue the character: the lead byte alone is skipped.
    if b.iter().take(len).skip(1).any(|&c| c & 0xc0 != 0x80) {
        return Step::Skip(1);
    }
    if b.len() < len {
        return if end { Step::Skip(b.len()) } else { Step::More };
    }
    let Some(c) = std::str::from_utf8(&b[..len]).ok().and_then(|s| s.chars().next()) else {
        return Step::Skip(1);
    };
    let modifiers = if c.is_uppercase() { KeyModifiers::SHIFT } else { KeyModifiers::NONE };
    Step::Event(key(KeyCode::Char(c), modifiers), len)
}

/// `ESC` and what follows it.
fn escape(b: &[u8], end: bool, scanned: usize) -> Step {
    let esc = Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1);
    let Some(&next) = b.get(1) else {
        return if end { esc } else { Step::More };
    };
    match next {
        b'[' => control_sequence(b, end, scanned),
        b'O' => ss3(b, end),
        b']' | b'P' | b'_' | b'^' | b'X' => terminal_string(b, end),
        // Alt+Enter, Alt+Tab, Alt+Backspace; before another control byte (Esc, then
        // Ctrl+C typed quickly) the `ESC` is the Esc key of its own.
        b'\r' | b'\t' | 0x7f | 0x08 => with_alt(step(&b[1..], end, 0)).unwrap_or(esc),
        0x00..=0x1f => esc,
        _ => match text(&b[1..], end) {
            Step::More => Step::More,
            found => with_alt(found).unwrap_or(esc),
        },
    }
}

/// A key after `ESC` as that key with Alt (`None`: not a key).
fn with_alt(found: Step) -> Option<Step> {
    match found {
        Step::Event(Event::Key(mut key), used) => {
            key.modifiers |= KeyModifiers::ALT;
            Some(Step::Event(Event::Key(key), used + 1))
        }
        _ => None,
    }
}

/// Alt with the character of `ESC c` (for `ESC [` and the like with nothing after them).
fn alt_char(c: u8) -> Step {
    with_alt(text(&[c], true)).unwrap_or(Step::Skip(2))
}

/// `ESC O x`: an SS3 key.
fn ss3(b: &[u8], end: bool) -> Step {
    let Some(&last) = b.get(2) else {
        return if end { alt_char(b'O') } else { Step::More };
    };
    match csi::ss3(last) {
        Some(event) => Step::Event(event, 3),
        None if (0x40..=0x7e).contains(&last) => Step::Skip(3),
        None => alt_char(b'O'),
    }
}

/// `ESC [ …`: parameters and intermediates up to a final byte, or a mouse report. The
/// scan starts after the `scanned` bytes an earlier read looked at (all parameters).
fn control_sequence(b: &[u8], end: bool, scanned: usize) -> Step {
    match b.get(2) {
        None => return if end { alt_char(b'[') } else { Step::More },
        Some(b'M') => return x10_mouse(b, end),
        Some(b'[') => return linux_function_key(b, end),
        _ => {}
    }
    for (i, &c) in b.iter().enumerate().skip(scanned.max(2)) {
        if i > MAX_SEQUENCE {
            // Too long to be a key: dropped whole, up to its final byte.
            return Step::Open(Opens::LongSequence, i);
        }
        match c {
            0x20..=0x3f => {}
            0x40..=0x7e => {
                let params = &b[2..i];
                if params == &PASTE_START[2..PASTE_START.len() - 1] && c == b'~' {
                    return Step::Open(Opens::Paste, i + 1);
                }
                return match csi::csi(params, c) {
                    Some(event) => Step::Event(event, i + 1),
                    None => Step::Skip(i + 1),
                };
            }
            // Not part of a sequence: what came before it is skipped, it is read anew
            // (`ESC [` alone before it was Alt+[).
            _ if i == 2 => return alt_char(b'['),
            _ => return Step::Skip(i),
        }
    }
    if end {
        Step::Skip(b.len())
    } else {
        Step::More
    }
}

/// `ESC [ M cb cx cy`: the mouse report of terminals without SGR mouse.
fn x10_mouse(b: &[u8], end: bool) -> Step {
    if b.len() < 6 {
        return if end { Step::Skip(b.len()) } else { Step::More };
    }
    match csi::x10_mouse(b[3], b[4], b[5]) {
        Some(event) => Step::Event(event, 6),
        None => Step::Skip(6),
    }
}

/// `ESC [ [ A`–`E`: F1–F5 on the Linux console.
fn linux_function_key(b: &[u8], end: bool) -> Step {
    match b.get(3) {
        None => {
            if end {
                Step::Skip(3)
            } else {
                Step::More
            }
        }
        Some(&c @ b'A'..=b'E') => Step::Event(key(KeyCode::F(c - b'A' + 1), KeyModifiers::NONE), 4),
        Some(_) => Step::Skip(3),
    }
}

/// `ESC ]` (OSC), `ESC P` (DCS), `ESC _`, `ESC ^`, `ESC X`: a terminal's answer, up to BEL
/// or `ESC \`, skipped whole however long (a late answer to the background colour query
/// must not be typed into the prompt); its bytes are read as they come (`Open::String`).
/// Alone, it is Alt with that character.
fn terminal_string(b: &[u8], end: bool) -> Step {
    if b.len() == 2 {
        return if end { alt_char(b[1]) } else { Step::More };
    }
    Step::Open(Opens::String, 2)
}
