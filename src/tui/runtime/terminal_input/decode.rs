//! The terminal's bytes (raw mode) as crossterm `Event`s: where each key, escape sequence,
//! bracketed paste or terminal answer ends, and what the single bytes mean (text, C0
//! controls, Esc, Alt as an `ESC` prefix). A sequence cut by the end of a read waits for
//! the next read; when nothing more comes (`Decoder::wait`, then `Decoder::timeout`) a lone
//! `ESC` is the Esc key and an unfinished sequence is dropped. Anything unknown or malformed
//! is skipped alone, never the bytes after it. What a complete sequence means is `csi.rs`.

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

/// Longest control sequence waited for (the longest real ones are ~40 bytes).
const MAX_SEQUENCE: usize = 256;

/// Longest terminal string (OSC, DCS, APC answers) waited for.
const MAX_STRING: usize = 4096;

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// The decoder's state between reads.
#[derive(Default)]
pub struct Decoder {
    /// The start of an unfinished sequence or character.
    pending: Vec<u8>,
    /// The bracketed paste being read, if one is open.
    paste: Option<Vec<u8>>,
    /// The terminal's answers to the background colour query (`ESC ] 11 ; …`) read since
    /// the last `take_answers`.
    answers: Vec<Vec<u8>>,
}

/// Answers to the background query kept at most between two `take_answers`.
const MAX_ANSWERS: usize = 4;

/// What the bytes at the front are.
enum Step {
    /// An event, and the bytes it took.
    Event(Event, usize),
    /// Bytes that mean nothing to the app.
    Skip(usize),
    /// A bracketed paste starts after these bytes.
    PasteStart(usize),
    /// Unfinished: the next read may complete it.
    More,
}

impl Decoder {
    /// Decodes one read's `bytes`, adding the events they finish to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.pending.extend_from_slice(bytes);
        self.run(false, out);
    }

    /// How long to wait for more bytes before `timeout`: `None` when nothing is unfinished.
    pub fn wait(&self) -> Option<Duration> {
        if self.paste.is_some() {
            Some(PASTE_WAIT)
        } else if !self.pending.is_empty() {
            Some(ESC_WAIT)
        } else {
            None
        }
    }

    /// No more bytes came within `wait()`: what is unfinished is decided now (a lone `ESC`
    /// is Esc, an open paste is handed over, a cut sequence dropped).
    pub fn timeout(&mut self, out: &mut Vec<Event>) {
        if let Some(paste) = self.paste.take() {
            out.push(paste_event(&paste));
        }
        self.run(true, out);
        self.pending.clear();
    }

    /// The answers to the background colour query (OSC 11) among the terminal strings read
    /// since the last call, whole (`ESC ] 11 ; rgb:… ST`); they are never events.
    pub fn take_answers(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.answers)
    }

    fn run(&mut self, end: bool, out: &mut Vec<Event>) {
        let mut at = 0;
        while at < self.pending.len() {
            if self.paste.is_some() {
                at += self.take_paste(at, out);
                continue;
            }
            match step(&self.pending[at..], end) {
                Step::Event(event, used) => {
                    out.push(event);
                    at += used;
                }
                Step::Skip(used) => {
                    let skipped = &self.pending[at..at + used];
                    if skipped.starts_with(b"\x1b]11;") && self.answers.len() < MAX_ANSWERS {
                        self.answers.push(skipped.to_vec());
                    }
                    at += used;
                }
                Step::PasteStart(used) => {
                    at += used;
                    self.paste = Some(Vec::new());
                }
                Step::More => break,
            }
        }
        self.pending.drain(..at);
    }

    /// Moves the pending bytes from `at` into the open paste, closing it at its end marker;
    /// returns how many bytes it took.
    fn take_paste(&mut self, at: usize, out: &mut Vec<Event>) -> usize {
        let Some(paste) = self.paste.as_mut() else { return 0 };
        let input = &self.pending[at..];
        // The marker may have begun in an earlier read.
        let from = paste.len().saturating_sub(PASTE_END.len() - 1);
        paste.extend_from_slice(input);
        if let Some(found) = memchr::memmem::find(&paste[from..], PASTE_END) {
            let end = from + found;
            let after = paste.len() - (end + PASTE_END.len());
            paste.truncate(end);
            out.push(paste_event(paste));
            self.paste = None;
            return input.len() - after;
        }
        while paste.len() > PASTE_PIECE {
            // Keep what may be the start of the marker, and characters whole.
            let most = PASTE_PIECE.min(paste.len() - (PASTE_END.len() - 1));
            let cut = (most.saturating_sub(3)..=most).rev().find(|&i| paste[i] & 0xc0 != 0x80).unwrap_or(most);
            out.push(paste_event(&paste[..cut]));
            paste.drain(..cut);
        }
        input.len()
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

/// The bytes at the front of `b` (not empty); `end`: no more bytes will follow.
fn step(b: &[u8], end: bool) -> Step {
    let event = match b[0] {
        0x1b => return escape(b, end),
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
fn escape(b: &[u8], end: bool) -> Step {
    let esc = Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1);
    let Some(&next) = b.get(1) else {
        return if end { esc } else { Step::More };
    };
    match next {
        b'[' => control_sequence(b, end),
        b'O' => ss3(b, end),
        b']' | b'P' | b'_' | b'^' | b'X' => terminal_string(b, end),
        // Alt+Enter, Alt+Tab, Alt+Backspace; before another control byte (Esc, then
        // Ctrl+C typed quickly) the `ESC` is the Esc key of its own.
        b'\r' | b'\t' | 0x7f | 0x08 => with_alt(step(&b[1..], end)).unwrap_or(esc),
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

/// `ESC [ …`: parameters and intermediates up to a final byte, or a mouse report.
fn control_sequence(b: &[u8], end: bool) -> Step {
    match b.get(2) {
        None => return if end { alt_char(b'[') } else { Step::More },
        Some(b'M') => return x10_mouse(b, end),
        Some(b'[') => return linux_function_key(b, end),
        _ => {}
    }
    for (i, &c) in b.iter().enumerate().skip(2) {
        if i > MAX_SEQUENCE {
            return Step::Skip(i);
        }
        match c {
            0x20..=0x3f => {}
            0x40..=0x7e => {
                let params = &b[2..i];
                if params == &PASTE_START[2..PASTE_START.len() - 1] && c == b'~' {
                    return Step::PasteStart(i + 1);
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
/// or `ESC \`, skipped whole (a late answer to the background colour query must not be
/// typed into the prompt). Alone, it is Alt with that character.
fn terminal_string(b: &[u8], end: bool) -> Step {
    if b.len() == 2 {
        return if end { alt_char(b[1]) } else { Step::More };
    }
    for (i, &c) in b.iter().enumerate().skip(2) {
        if i > MAX_STRING {
            return Step::Skip(i);
        }
        match c {
            0x07 => return Step::Skip(i + 1),
            0x1b => {
                return match b.get(i + 1) {
                    Some(b'\\') => Step::Skip(i + 2),
                    // Cut short by another sequence: that one is read anew.
                    Some(_) => Step::Skip(i),
                    None if end => Step::Skip(b.len()),
                    None => Step::More,
                };
            }
            _ => {}
        }
    }
    if end {
        Step::Skip(b.len())
    } else {
        Step::More
    }
}
