//! The units a response body is cut into before a provider parses them: an SSE event or an
//! NDJSON line (`Frame`), and which of the two framings a body uses.

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
