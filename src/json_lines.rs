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

/// Writes `text` to `out` as a JSON string literal, escaped exactly as `serde_json` does
/// (`\"`, `\\`, the short forms of `\b \f \n \r \t`, `\u00XX` for the other controls).
/// serde_json looks each byte up in a table (about 7 instructions a byte, the most expensive
/// part of recording a long reply); here a 64-byte block with nothing to escape is passed
/// over in a few vector instructions and written with its neighbours in one piece.
pub fn write_json_string(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    out.write_all(b"\"")?;
    write_json_string_contents(out, text)?;
    out.write_all(b"\"")
}

/// `write_json_string` without the quotes: pieces of text written this way one after the
/// other read as the escape of the whole (escaping goes character by character). Every
/// write is of whole characters.
pub fn write_json_string_contents(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    // Written up to here.
    let mut start = 0;
    for (index, block) in bytes.chunks(BLOCK).enumerate() {
        if crate::bytes::all_bytes(block, |b| b >= 0x20 && b != b'"' && b != b'\\') {
            continue;
        }
        let offset = index * BLOCK;
        for (at, &byte) in block.iter().enumerate() {
            let short: &[u8] = match byte {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                byte if byte < 0x20 => b"",
                _ => continue,
            };
            out.write_all(&bytes[start..offset + at])?;
            if short.is_empty() {
                write!(out, "\\u{byte:04x}")?;
            } else {
                out.write_all(short)?;
            }
            start = offset + at + 1;
        }
    }
    out.write_all(&bytes[start..])
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

    fn json_string(text: &str) -> String {
        let mut out = Vec::new();
        write_json_string(&mut out, text).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_string_is_escaped_as_serde_json_escapes_it() {
        let text =
            "plain \"quoted\" back\\slash \u{0}\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{1b}[2J\u{1f} \u{7f} é✓ 👩\u{200d}💻";
        assert_eq!(json_string(text), serde_json::to_string(text).unwrap());
        assert_eq!(json_string(""), "\"\"");
        // An escape at each edge of a block, and past the last whole block.
        let long = "a".repeat(200);
        for at in [0, 63, 64, 127, 128, 199] {
            let mut text = long.clone();
            text.replace_range(at..at + 1, "\"");
            assert_eq!(json_string(&text), serde_json::to_string(&text).unwrap(), "quote at {at}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Any text comes out as serde_json writes it, and reads back as itself.
        #[test]
        fn any_string_is_written_as_serde_json_writes_it(text in "(\\PC|[\\x00-\\x1f\"\\\\\\x7f-\\u{9f}]){0,300}") {
            let written = json_string(&text);
            proptest::prop_assert_eq!(&written, &serde_json::to_string(&text).unwrap());
            proptest::prop_assert_eq!(serde_json::from_str::<String>(&written).unwrap(), text);
        }
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
