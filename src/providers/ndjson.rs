//! Newline-delimited JSON framing (Ollama): turns a byte stream cut anywhere into complete
//! lines. Blank lines are skipped; a trailing `\r` is dropped; the JSON itself is parsed by
//! the provider. A line may not grow past the limit (`MAX_FRAME_BYTES`): the decoder
//! refuses before buffering more.

use super::frame::{Frame, FrameError, LineBuffer, MAX_FRAME_BYTES};

/// Incremental NDJSON line splitter.
#[derive(Debug)]
pub struct NdjsonDecoder {
    /// Bytes of an unfinished line.
    line: LineBuffer,
    line_no: usize,
}

impl Default for NdjsonDecoder {
    fn default() -> Self {
        Self::with_limit(MAX_FRAME_BYTES)
    }
}

impl NdjsonDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that refuses lines longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        NdjsonDecoder { line: LineBuffer::new(limit, "line"), line_no: 0 }
    }

    /// Feeds bytes, appending the lines they complete to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) -> Result<(), FrameError> {
        while let Some(end) = memchr::memchr(b'\n', bytes) {
            let line = self.line.complete(&bytes[..end], 0)?;
            let result = line_done(&mut self.line_no, line, out);
            self.line.clear();
            result?;
            bytes = &bytes[end + 1..];
        }
        self.line.keep(bytes, 0)
    }

    /// The stream ended: a last line without `\n` still counts.
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Result<(), FrameError> {
        match self.line.take() {
            Some(line) => line_done(&mut self.line_no, &line, out),
            None => Ok(()),
        }
    }
}

/// One complete line (without its `\n`): a frame unless blank.
fn line_done(line_no: &mut usize, raw: &[u8], out: &mut Vec<Frame>) -> Result<(), FrameError> {
    *line_no += 1;
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let line = std::str::from_utf8(raw).map_err(|_| FrameError::NotUtf8 { line: *line_no })?;
    if !line.trim().is_empty() {
        out.push(Frame { event: None, data: line.to_string(), line: *line_no });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_survive_any_cut() {
        let bytes = "{\"a\":\"ü\"}\r\n\n{\"b\":2}\n{\"c\":3}".as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = NdjsonDecoder::new();
            let mut frames = Vec::new();
            d.push(&bytes[..cut], &mut frames).unwrap();
            d.push(&bytes[cut..], &mut frames).unwrap();
            d.finish(&mut frames).unwrap();
            let data: Vec<_> = frames.into_iter().map(|f| f.data).collect();
            assert_eq!(data, ["{\"a\":\"ü\"}", "{\"b\":2}", "{\"c\":3}"], "cut at {cut}");
        }
    }

    #[test]
    fn a_line_is_refused_as_soon_as_it_passes_the_limit() {
        let mut d = NdjsonDecoder::with_limit(64);
        let mut frames = Vec::new();
        d.push(b"{\"a\":1}\n{\"b\":\"", &mut frames).unwrap();
        d.push(&[b'x'; 58], &mut frames).unwrap();
        let err = d.push(b"xx", &mut frames).unwrap_err();
        assert_eq!(err, FrameError::TooLarge { unit: "line", limit: 64 });
        assert!(d.line.held() <= 64);
        assert_eq!(frames.len(), 1);
    }
}
