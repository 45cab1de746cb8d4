//! Server-sent events framing: turns a byte stream, cut anywhere (inside a line, a `\r\n`
//! pair or a multi-byte character), into complete `event:`/`data:` frames.
//!
//! Follows the WHATWG event-stream rules that matter for model APIs: lines end in `\n`,
//! `\r\n` or `\r`; a blank line dispatches; `data:` lines are joined with `\n`; one space
//! after the colon is dropped; comments (`:`) and `id:`/`retry:` are ignored. Complete
//! lines are read straight from the pushed bytes; only a line cut by a chunk boundary is
//! copied. An event (its unfinished line plus its data so far) may not grow past the limit
//! (`MAX_FRAME_BYTES`): the decoder refuses before buffering more.

use super::frame::{Frame, FrameError, LineBuffer, MAX_FRAME_BYTES};

/// Incremental SSE decoder.
#[derive(Debug)]
pub struct SseDecoder {
    /// Bytes of an unfinished line.
    line: LineBuffer,
    /// The previous chunk ended in `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
    event: EventFields,
}

/// The fields of the event being read, and where the stream is (for error context).
#[derive(Debug, Default)]
struct EventFields {
    event: Option<String>,
    data: Option<String>,
    /// Lines seen so far, and the last `data:` line.
    line_no: usize,
    data_line: usize,
    started: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limit(MAX_FRAME_BYTES)
    }
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that refuses events larger than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        SseDecoder { line: LineBuffer::new(limit, "event"), after_cr: false, event: EventFields::default() }
    }

    /// Feeds bytes, appending the frames they complete to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) -> Result<(), FrameError> {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            let line = self.line.complete(&bytes[..end], self.event.data_len())?;
            let result = self.event.line(line, out);
            self.line.clear();
            result?;
            let cr = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if cr {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.keep(bytes, self.event.data_len())
    }

    /// The stream ended: an unterminated last event is still delivered (lenient, as many
    /// compatible servers omit the final blank line).
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Result<(), FrameError> {
        if let Some(line) = self.line.take() {
            self.event.line(&line, out)?;
        }
        if let Some(frame) = self.event.dispatch() {
            out.push(frame);
        }
        Ok(())
    }
}

impl EventFields {
    /// Bytes of data held for the event, counted against the limit with its next line.
    fn data_len(&self) -> usize {
        self.data.as_ref().map_or(0, String::len)
    }

    fn line(&mut self, raw: &[u8], out: &mut Vec<Frame>) -> Result<(), FrameError> {
        self.line_no += 1;
        let mut line = std::str::from_utf8(raw).map_err(|_| FrameError::NotUtf8 { line: self.line_no })?;
        if !self.started {
            self.started = true;
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.is_empty() {
            if let Some(frame) = self.dispatch() {
                out.push(frame);
            }
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        // `memchr`, not `split_once`: its char searcher cost more than the rest of the line.
        let (field, value) = match memchr::memchr(b':', line.as_bytes()) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                self.data_line = self.line_no;
                match self.data.as_mut() {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_string()),
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self) -> Option<Frame> {
        let event = self.event.take();
        let data = self.data.take()?;
        Some(Frame { event, data, line: self.data_line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], cut: usize) -> Vec<Frame> {
        let mut d = SseDecoder::new();
        let mut frames = Vec::new();
        d.push(&bytes[..cut], &mut frames).unwrap();
        d.push(&bytes[cut..], &mut frames).unwrap();
        d.finish(&mut frames).unwrap();
        frames
    }

    #[test]
    fn frames_are_the_same_wherever_the_bytes_are_cut() {
        let text = "event: a\r\ndata: {\"t\":\"é→\"}\r\n\r\n: comment\n\nevent: b\ndata: x\ndata:y\n\ndata: last\r\r";
        let bytes = text.as_bytes();
        let whole = all(bytes, 0);
        let summary: Vec<_> = whole.iter().map(|f| (f.event.clone(), f.data.clone())).collect();
        assert_eq!(
            summary,
            vec![(Some("a".into()), "{\"t\":\"é→\"}".into()), (Some("b".into()), "x\ny".into()), (None, "last".into()),]
        );
        for cut in 0..=bytes.len() {
            let got: Vec<_> = all(bytes, cut).iter().map(|f| (f.event.clone(), f.data.clone())).collect();
            assert_eq!(got, summary, "cut at {cut}");
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_with_the_line() {
        let mut d = SseDecoder::new();
        let err = d.push(b"data: ok\n\ndata: \xff\n", &mut Vec::new()).unwrap_err();
        assert_eq!(err, FrameError::NotUtf8 { line: 3 });
    }

    #[test]
    fn a_line_is_refused_as_soon_as_it_passes_the_limit() {
        let mut d = SseDecoder::with_limit(100);
        let mut frames = Vec::new();
        d.push(b"data: ok\n\ndata: ", &mut frames).unwrap();
        d.push(&[b'x'; 90], &mut frames).unwrap();
        let err = d.push(&[b'x'; 10], &mut frames).unwrap_err();
        assert_eq!(err, FrameError::TooLarge { unit: "event", limit: 100 });
        assert!(d.line.held() <= 100, "buffered {} bytes", d.line.held());
        assert_eq!(frames.len(), 1);
    }

    #[test]
    fn many_data_lines_count_together_against_the_limit() {
        let mut d = SseDecoder::with_limit(100);
        let line = format!("data: {}\n", "y".repeat(40));
        d.push(line.repeat(2).as_bytes(), &mut Vec::new()).unwrap();
        assert!(matches!(d.push(line.as_bytes(), &mut Vec::new()), Err(FrameError::TooLarge { .. })));
    }

    #[test]
    fn a_complete_line_longer_than_the_limit_in_one_chunk_is_refused() {
        let mut d = SseDecoder::with_limit(100);
        let mut body = b"data: ".to_vec();
        body.extend_from_slice(&[b'z'; 200]);
        body.extend_from_slice(b"\n\n");
        assert!(matches!(d.push(&body, &mut Vec::new()), Err(FrameError::TooLarge { .. })));
    }
}
