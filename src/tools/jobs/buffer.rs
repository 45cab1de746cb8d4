//! A job's output: the newest `capacity` bytes it wrote (the oldest dropped and counted),
//! and how far the model has read.

pub struct Ring {
    /// The kept bytes: byte N of the stream at index N until it is full, then at index
    /// N % capacity.
    kept: Vec<u8>,
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
        Ring { kept: Vec::new(), capacity: capacity.max(1), written: 0, read: 0 }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.kept.len() < self.capacity {
            if self.kept.len() + bytes.len() <= self.capacity {
                self.kept.extend_from_slice(bytes);
                self.written += bytes.len() as u64;
                return;
            }
            self.kept.resize(self.capacity, 0);
        }
        let skip = bytes.len().saturating_sub(self.capacity);
        self.written += skip as u64;
        bytes = &bytes[skip..];
        while !bytes.is_empty() {
            let at = (self.written % self.capacity as u64) as usize;
            let n = (self.capacity - at).min(bytes.len());
            self.kept[at..at + n].copy_from_slice(&bytes[..n]);
            self.written += n as u64;
            bytes = &bytes[n..];
        }
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
        let start = self.written.saturating_sub(self.kept.len() as u64);
        let dropped = start.saturating_sub(self.read);
        let from = self.read.max(start);
        let mut bytes = Vec::with_capacity((self.written - from) as usize);
        let mut at = from;
        while at < self.written {
            let i = (at % self.capacity as u64) as usize;
            let n = ((self.written - at) as usize).min(self.kept.len() - i);
            bytes.extend_from_slice(&self.kept[i..i + n]);
            at += n as u64;
        }
        if !whole {
            let cut = incomplete_tail(&bytes);
            bytes.truncate(bytes.len() - cut);
        }
        self.read = from + bytes.len() as u64;
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

    /// Against a model that keeps everything: pushes and reads of many sizes.
    #[test]
    fn matches_a_buffer_that_keeps_everything() {
        let mut ring = Ring::new(37);
        let mut all: Vec<u8> = Vec::new();
        let mut read = 0usize;
        for step in 0..500usize {
            let piece: Vec<u8> = (0..(step * 7) % 90).map(|i| b'a' + ((step + i) % 26) as u8).collect();
            ring.push(&piece);
            all.extend_from_slice(&piece);
            if step % 3 == 0 {
                let start = all.len().saturating_sub(37);
                let got = ring.take(true);
                assert_eq!(got.dropped as usize, start.saturating_sub(read), "step {step}");
                assert_eq!(got.bytes, all[read.max(start)..], "step {step}");
                read = all.len();
            }
        }
    }
}
