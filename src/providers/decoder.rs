//! The `Decoder` of one response body: the SSE or NDJSON decoder its `Framing` names, behind
//! one `push` / `finish`, so the driver does not care which.

use super::frame::{Frame, FrameError, Framing};
use super::ndjson::NdjsonDecoder;
use super::sse::SseDecoder;

/// The decoder for one body.
#[derive(Debug)]
pub enum Decoder {
    Sse(SseDecoder),
    Ndjson(NdjsonDecoder),
}

impl Decoder {
    pub fn new(framing: Framing) -> Self {
        match framing {
            Framing::Sse => Decoder::Sse(SseDecoder::new()),
            Framing::Ndjson => Decoder::Ndjson(NdjsonDecoder::new()),
        }
    }

    /// Feeds bytes, appending the frames they complete to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) -> Result<(), FrameError> {
        match self {
            Decoder::Sse(d) => d.push(bytes, out),
            Decoder::Ndjson(d) => d.push(bytes, out),
        }
    }

    /// The body ended: appends what its unfinished end completes.
    pub fn finish(&mut self, out: &mut Vec<Frame>) -> Result<(), FrameError> {
        match self {
            Decoder::Sse(d) => d.finish(out),
            Decoder::Ndjson(d) => d.finish(out),
        }
    }
}
