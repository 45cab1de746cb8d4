//! What a provider's stream parser is, next to the framing it reads: `WireParser` turns the
//! frames of one reply into events, `Fault` says whether a failure is worth another attempt,
//! and the helpers every parser uses for a frame's JSON and a tool call's arguments.

use super::frame::Frame;
use super::http::error_text::truncate;
use crate::protocol::{ProviderError, ProviderEvent};
use serde_json::Value;

/// A failure while parsing a stream, and whether another attempt could help.
#[derive(Debug)]
pub struct Fault {
    pub error: ProviderError,
    /// Transient (e.g. Anthropic's in-stream `overloaded_error`): retried if nothing was shown.
    pub retryable: bool,
}

impl From<ProviderError> for Fault {
    fn from(error: ProviderError) -> Self {
        Fault { error, retryable: false }
    }
}

/// Turns a provider's frames into events.
pub trait WireParser: Send {
    /// Handles one frame, pushing the events it completes.
    fn frame(&mut self, frame: Frame, out: &mut Vec<ProviderEvent>) -> Result<(), Fault>;
    /// The reply is complete; the rest of the body is not read.
    fn done(&self) -> bool;
    /// The body ended before `done()`: flush what is complete or fail.
    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), Fault>;
}

pub type ParserFactory = Box<dyn Fn() -> Box<dyn WireParser> + Send>;

/// The JSON of one frame, or a protocol error that says where and shows the start of it.
pub fn parse_json(provider: &str, frame: &Frame) -> Result<Value, ProviderError> {
    serde_json::from_str(&frame.data).map_err(|e| {
        ProviderError::Protocol(format!(
            "{provider}: malformed stream at line {}: {e}: {}",
            frame.line,
            truncate(&frame.data, 120)
        ))
    })
}

/// Tool arguments: a JSON object (empty text means `{}`), or a protocol error naming the call.
pub fn tool_arguments(provider: &str, name: &str, id: &str, text: &str) -> Result<Value, ProviderError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| {
        ProviderError::Protocol(format!(
            "{provider}: the arguments of tool call {name} ({id}) are not valid JSON ({e}): {}",
            truncate(text, 120)
        ))
    })
}
