//! A job's output: the newest `capacity` bytes it wrote (the oldest dropped and counted),
//! and how far the model has read.

use std::collections::VecDeque;

pub struct Ring {
    kept: VecDeque<u8>,
    capacity: usize,
    /// Bytes written in all.
    written: u64,
    /// Bytes read (`take`) in all, dropped ones included.
    read: u64,
}

/// What arrived since the last read.
#[derive(Debug, PartialEq, Eq)]
pub struct Unread {
    pub bytes: Vec<u8>,
    /// Bytes that arrived since the last read but were dropped before it (the buffer full).
    pub dropped: u64,
}

impl Ring {
    pub fn new(capacity: usize) -> Self {
        Ring { kept: VecDeque::new(), capacity, written: 0, read: 0 }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.written += bytes.len() as u64;
        if bytes.len() > self.capacity {
            bytes = &bytes[bytes.len() - self.capacity..];
        }
        let over = (self.kept.len() + bytes.len()).saturating_sub(self.capacity);
        self.kept.drain(..over);
        self.kept.extend(bytes);
    }

    /// Bytes written in all.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Whether anything arrived since the last read.
    pub fn has_unread(&self) -> bool {
        self.written > self.read
    }

    /// Takes what arrived since the last read; `whole`: up to the end even when it stops
    /// inside a UTF-8 character (the job ended), else such a tail is left for next time.
    pub fn take(&mut self, whole: bool) -> Unread {
        let start = self.written - self.kept.len() as u64;
        let dropped = start.saturating_sub(self.read);
        let from = (self.read.max(start) - start) as usize;
        let mut bytes: Vec<u8> = self.kept.range(from..).copied().collect();
        if !whole {
            let cut = incomplete_tail(&bytes);
            bytes.truncate(bytes.len() - cut);
        }
        self.read = self.read.max(start) + bytes.len() as u64;
        Unread { bytes, dropped }
    }
}

/// How many bytes at the end of `bytes` begin a UTF-8 character that is not complete yet.
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        if byte & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let needs = match byte {
            b if b >= 0xF0 => 4,
            b if b >= 0xE0 => 3,
            b if b >= 0xC0 => 2,
            _ => 1,
        };
        return if needs > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_arrived_since_the_last_read() {
        let mut ring = Ring::new(8);
        ring.push(b"abc");
        assert_eq!(ring.take(false), Unread { bytes: b"abc".to_vec(), dropped: 0 });
        assert!(!ring.has_unread());
        ring.push(b"de");
        assert_eq!(ring.take(false), Unread { bytes: b"de".to_vec(), dropped: 0 });
        assert_eq!(ring.take(false).bytes, b"");
    }

    #[test]
    fn the_oldest_bytes_are_dropped_and_counted() {
        let mut ring = Ring::new(4);
        ring.push(b"ab");
        ring.take(false);
        ring.push(b"cdefgh");
        assert_eq!(ring.take(false), Unread { bytes: b"efgh".to_vec(), dropped: 2 });
        ring.push(&[b'x'; 100]);
        assert_eq!(ring.take(false), Unread { bytes: b"xxxx".to_vec(), dropped: 96 });
        assert_eq!(ring.written(), 108);
        assert!(ring.kept.len() <= 4);
    }

    #[test]
    fn a_character_cut_in_two_waits_for_its_end() {
        let mut ring = Ring::new(16);
        let e = "é".as_bytes();
        ring.push(&[b'a', e[0]]);
        assert_eq!(ring.take(false).bytes, b"a");
        ring.push(&e[1..]);
        assert_eq!(ring.take(false).bytes, e);
        ring.push(&e[..1]);
        assert_eq!(ring.take(true).bytes, &e[..1]);
    }
}
