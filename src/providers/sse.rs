//! Server-sent events framing: turns a byte stream, cut anywhere (inside a line, a `\r\n`
//! pair or a multi-byte character), into complete `event:`/`data:` frames.
//!
//! Follows the WHATWG event-stream rules that matter for model APIs: lines end in `\n`,
//! `\r\n` or `\r`; a blank line dispatches; `data:` lines are joined with `\n`; one space
//! after the colon is dropped; comments (`:`) and `id:`/`retry:` are ignored.

use super::frame::Frame;

/// Incremental SSE decoder.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of an unfinished line.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
    /// Lines seen so far, and the last `data:` line (for error context).
    line_no: usize,
    data_line: usize,
    started: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the frames they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, String> {
        let mut frames = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut frames)?,
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut frames)?;
                }
                _ => self.line.push(b),
            }
        }
        Ok(frames)
    }

    /// The stream ended: an unterminated last event is still delivered (lenient, as many
    /// compatible servers omit the final blank line).
    pub fn finish(&mut self) -> Result<Vec<Frame>, String> {
        let mut frames = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut frames)?;
        }
        if let Some(frame) = self.dispatch() {
            frames.push(frame);
        }
        Ok(frames)
    }

    fn end_line(&mut self, frames: &mut Vec<Frame>) -> Result<(), String> {
        self.line_no += 1;
        let raw = std::mem::take(&mut self.line);
        let mut line =
            String::from_utf8(raw).map_err(|_| format!("line {} of the event stream is not UTF-8", self.line_no))?;
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_string();
            }
        }
        if line.is_empty() {
            if let Some(frame) = self.dispatch() {
                frames.push(frame);
            }
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        if field == "data" {
            self.data_line = self.line_no;
        }
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match self.data.as_mut() {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
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
        let mut frames = d.push(&bytes[..cut]).unwrap();
        frames.extend(d.push(&bytes[cut..]).unwrap());
        frames.extend(d.finish().unwrap());
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
        let err = d.push(b"data: ok\n\ndata: \xff\n").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
    }
}
