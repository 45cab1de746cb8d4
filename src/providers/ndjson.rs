//! Newline-delimited JSON framing (Ollama): turns a byte stream cut anywhere into complete
//! lines. Blank lines are skipped; a trailing `\r` is dropped; the JSON itself is parsed by
//! the provider.

use super::frame::Frame;

/// Incremental NDJSON line splitter.
#[derive(Debug, Default)]
pub struct NdjsonDecoder {
    line: Vec<u8>,
    line_no: usize,
}

impl NdjsonDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the lines they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, String> {
        let mut frames = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                self.end_line(&mut frames)?;
            } else {
                self.line.push(b);
            }
        }
        Ok(frames)
    }

    /// The stream ended: a last line without `\n` still counts.
    pub fn finish(&mut self) -> Result<Vec<Frame>, String> {
        let mut frames = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut frames)?;
        }
        Ok(frames)
    }

    fn end_line(&mut self, frames: &mut Vec<Frame>) -> Result<(), String> {
        self.line_no += 1;
        let mut raw = std::mem::take(&mut self.line);
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
        let line = String::from_utf8(raw).map_err(|_| format!("line {} of the stream is not UTF-8", self.line_no))?;
        if !line.trim().is_empty() {
            frames.push(Frame { event: None, data: line, line: self.line_no });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_survive_any_cut() {
        let bytes = "{\"a\":\"ü\"}\r\n\n{\"b\":2}\n{\"c\":3}".as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = NdjsonDecoder::new();
            let mut frames = d.push(&bytes[..cut]).unwrap();
            frames.extend(d.push(&bytes[cut..]).unwrap());
            frames.extend(d.finish().unwrap());
            let data: Vec<_> = frames.into_iter().map(|f| f.data).collect();
            assert_eq!(data, ["{\"a\":\"ü\"}", "{\"b\":2}", "{\"c\":3}"], "cut at {cut}");
        }
    }
}
