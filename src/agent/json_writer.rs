//! Writes a serialised JSON record (a session record, an `ask --json` line) to its file in
//! pieces of about `WRITE_CHUNK` bytes, so a record holding a long reply is never built
//! whole in memory. Owns that piece size for every writer of JSON lines; knows nothing of
//! what the records mean. An optional `escape` rewrites the text on its way (the `ask`
//! front end passes its terminal-safe escaping).

use std::borrow::Cow;
use std::io::Write;

/// A record goes out in pieces of about this size.
pub const WRITE_CHUNK: usize = 64 * 1024;

/// How a piece of serialised JSON is rewritten before it is written (whole characters only).
pub type Escape = fn(&str) -> Cow<'_, str>;

/// Serialised JSON on its way to `out`: collected in `buffer` (the caller's, reused) and
/// written out whenever that passes `WRITE_CHUNK`. Call `finish` after the record to write
/// the rest.
pub struct ChunkedJson<'a> {
    buffer: &'a mut Vec<u8>,
    out: &'a mut dyn Write,
    escape: Option<Escape>,
    /// The start of a character cut between two writes (only when escaping).
    tail: Vec<u8>,
}

impl<'a> ChunkedJson<'a> {
    /// Appends to `buffer` (which may already hold the start of a line) and writes to `out`.
    pub fn new(buffer: &'a mut Vec<u8>, out: &'a mut dyn Write, escape: Option<Escape>) -> Self {
        ChunkedJson { buffer, out, escape, tail: Vec::new() }
    }

    /// Writes out what is buffered and flushes `out`; the buffer keeps its memory for the
    /// next record unless it grew past twice the piece size.
    pub fn finish(self) -> std::io::Result<()> {
        write_out(self.buffer, self.out)
    }

    fn escaped(&mut self, bytes: &[u8], escape: Escape) -> std::io::Result<()> {
        let joined;
        let whole = if self.tail.is_empty() {
            bytes
        } else {
            joined = [std::mem::take(&mut self.tail).as_slice(), bytes].concat();
            &joined
        };
        let valid = match std::str::from_utf8(whole) {
            Ok(text) => text.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8")),
        };
        let (text, rest) = whole.split_at(valid);
        let text = std::str::from_utf8(text).map_err(std::io::Error::other)?;
        self.buffer.extend_from_slice(escape(text).as_bytes());
        self.tail.extend_from_slice(rest);
        Ok(())
    }
}

/// Writes `buffer` to `out`, flushes, and empties it (dropping its memory when it grew
/// past twice the piece size).
pub fn write_out(buffer: &mut Vec<u8>, out: &mut dyn Write) -> std::io::Result<()> {
    let written = out.write_all(buffer).and_then(|_| out.flush());
    buffer.clear();
    if buffer.capacity() > 2 * WRITE_CHUNK {
        *buffer = Vec::new();
    }
    written
}

impl Write for ChunkedJson<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self.escape {
            Some(escape) => self.escaped(bytes, escape)?,
            None if bytes.len() >= WRITE_CHUNK => {
                // A long run of text without escapes goes out as it is, not through the buffer.
                self.out.write_all(self.buffer)?;
                self.buffer.clear();
                self.out.write_all(bytes)?;
            }
            None => self.buffer.extend_from_slice(bytes),
        }
        if self.buffer.len() >= WRITE_CHUNK {
            self.out.write_all(self.buffer)?;
            self.buffer.clear();
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What was written.
    #[derive(Default)]
    struct Writes {
        bytes: Vec<u8>,
    }

    impl Write for Writes {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.bytes.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn upper(text: &str) -> Cow<'_, str> {
        Cow::Owned(text.to_uppercase())
    }

    #[test]
    fn a_record_goes_out_whole_in_pieces_with_its_characters_escaped_whole() {
        let text = "é✓ a \"q\"\n".repeat(30_000);
        let record = serde_json::json!({ "text": text });
        for escape in [None, Some(upper as Escape)] {
            let mut out = Writes::default();
            let mut buffer = b"start ".to_vec();
            let mut writer = ChunkedJson::new(&mut buffer, &mut out, escape);
            // Bytes cut inside characters: a character waits for its rest.
            let line = serde_json::to_vec(&record).unwrap();
            for piece in line.chunks(7) {
                writer.write_all(piece).unwrap();
            }
            assert!(writer.buffer.len() < WRITE_CHUNK + 64);
            writer.finish().unwrap();
            let line = String::from_utf8(line).unwrap();
            let expected = format!("start {}", if escape.is_some() { line.to_uppercase() } else { line });
            assert!(out.bytes == expected.as_bytes(), "the record changed on its way");
            assert!(buffer.is_empty() && buffer.capacity() <= 2 * WRITE_CHUNK);
        }
    }
}
