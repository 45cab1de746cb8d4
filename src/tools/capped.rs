//! `CappedText`: keeps the head and the tail of a byte stream that may be huge, with a note
//! on what was cut, so a runaway command cannot fill memory or the model's context.

/// Head and tail of a stream, at most `cap` bytes kept.
pub struct CappedText {
    cap: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

impl CappedText {
    pub fn new(cap: usize) -> Self {
        CappedText { cap, head: Vec::new(), tail: Vec::new(), total: 0 }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        let half = self.cap / 2;
        if self.head.len() < half {
            let take = bytes.len().min(half - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * half.max(1) {
            let excess = self.tail.len() - half;
            self.tail.drain(..excess);
        }
    }

    /// Bytes seen in all.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The kept text; when something was cut, a line says how much and where.
    pub fn finish(mut self) -> String {
        let half = self.cap / 2;
        let kept = self.head.len() + self.tail.len();
        if self.total <= self.cap || kept == self.total {
            self.head.extend_from_slice(&self.tail);
            return String::from_utf8_lossy(&self.head).into_owned();
        }
        if self.tail.len() > half {
            let excess = self.tail.len() - half;
            self.tail.drain(..excess);
        }
        let cut = self.total - self.head.len() - self.tail.len();
        format!(
            "{}\n[... {cut} bytes cut from the middle of {} bytes of output ...]\n{}",
            String::from_utf8_lossy(&self.head),
            self.total,
            String::from_utf8_lossy(&self.tail)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_under_the_cap() {
        let mut text = CappedText::new(100);
        text.push(b"hello ");
        text.push(b"world");
        assert_eq!(text.finish(), "hello world");
    }

    #[test]
    fn keeps_head_and_tail_over_the_cap() {
        let mut text = CappedText::new(10);
        for _ in 0..100 {
            text.push(b"0123456789");
        }
        assert_eq!(text.total(), 1000);
        assert_eq!(text.finish(), "01234\n[... 990 bytes cut from the middle of 1000 bytes of output ...]\n56789");
    }
}
