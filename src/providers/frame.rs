//! The units a response body is cut into before a provider parses them, shared by both
//! decoders (`sse.rs`, `ndjson.rs`) and importing neither: an SSE event or an NDJSON line
//! (`Frame`), which of the two framings a body uses, why a body cannot be cut, the
//! unfinished line a decoder holds, and the size limit every frame is held to.

/// The most one frame (an SSE event, its lines, or an NDJSON line) may hold. A decoder
/// refuses more before buffering it, so a server sending one endless line costs at most this
/// much memory.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// One complete unit of a stream: an SSE event or an NDJSON line.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The SSE `event:` name, if any.
    pub event: Option<String>,
    pub data: String,
    /// The stream's line of (the last line of) the data, for error messages.
    pub line: usize,
}

/// How a response body is framed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Framing {
    Sse,
    Ndjson,
}

/// Why a body could not be cut into frames.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FrameError {
    #[error("line {line} of the stream is not UTF-8")]
    NotUtf8 { line: usize },
    #[error("one {unit} of the stream is larger than {} (the limit); stopped reading", size(*.limit))]
    TooLarge { unit: &'static str, limit: usize },
}

/// `16 MiB`, or bytes for small test limits.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The unfinished line of a decoder, held to the frame limit. A line that arrives whole in
/// one chunk is never copied: `complete` hands back the chunk's own bytes.
#[derive(Debug)]
pub struct LineBuffer {
    bytes: Vec<u8>,
    limit: usize,
    /// What a frame is called in the error (`event`, `line`).
    unit: &'static str,
}

impl LineBuffer {
    pub fn new(limit: usize, unit: &'static str) -> Self {
        LineBuffer { bytes: Vec::new(), limit, unit }
    }

    /// Refuses a frame of `len` bytes.
    fn check(&self, len: usize) -> Result<(), FrameError> {
        if len > self.limit {
            return Err(FrameError::TooLarge { unit: self.unit, limit: self.limit });
        }
        Ok(())
    }

    /// `head` ends the pending line: the whole line, with `held` bytes of the frame held
    /// elsewhere counted against the limit. Call `clear` once the line is used.
    pub fn complete<'a>(&'a mut self, head: &'a [u8], held: usize) -> Result<&'a [u8], FrameError> {
        self.check(self.bytes.len().saturating_add(head.len()).saturating_add(held))?;
        if self.bytes.is_empty() {
            return Ok(head);
        }
        self.bytes.extend_from_slice(head);
        Ok(&self.bytes)
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Keeps the start of a line whose end has not come yet.
    pub fn keep(&mut self, tail: &[u8], held: usize) -> Result<(), FrameError> {
        self.check(self.bytes.len().saturating_add(tail.len()).saturating_add(held))?;
        self.bytes.extend_from_slice(tail);
        Ok(())
    }

    /// The pending line, if any, emptying the buffer (the body ended).
    pub fn take(&mut self) -> Option<Vec<u8>> {
        Some(std::mem::take(&mut self.bytes)).filter(|line| !line.is_empty())
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.bytes.len()
    }
}
