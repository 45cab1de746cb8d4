//! The HTTP side shared by the network providers: the client and its timeouts, API keys that
//! never print, one model call (`HttpCall`) and the redaction of its secrets from every
//! error, the parser interface, and status → error mapping. The driver that runs a call
//! lives in `driver.rs`.

pub use super::driver::{failed, stream};
pub use super::frame::{Frame, Framing};
use super::redact;
use super::retry::RetryPolicy;
use crate::protocol::ProviderError;
use crate::protocol::ProviderEvent;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// An API key. Its `Debug` and `Display` never show it.
#[derive(Clone, Default, PartialEq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }
    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// A header value marked sensitive (hyper keeps it out of its own debug output).
    pub fn header(&self, prefix: &str) -> Result<HeaderValue, ProviderError> {
        let mut value = HeaderValue::from_str(&format!("{prefix}{}", self.0))
            .map_err(|_| ProviderError::Config("the API key contains characters not allowed in a header".into()))?;
        value.set_sensitive(true);
        Ok(value)
    }
    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Timeouts and retries, from `ELELEM_*` environment variables or set directly by tests.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpOptions {
    pub connect_timeout: Duration,
    /// No byte for this long (waiting for the headers or inside the stream) ends the turn.
    pub idle_timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    /// Reads `ELELEM_CONNECT_TIMEOUT_SECS`, `ELELEM_IDLE_TIMEOUT_SECS`, `ELELEM_RETRY_ATTEMPTS`,
    /// `ELELEM_RETRY_BASE_MS` and `ELELEM_RETRY_MAX_MS`; unset means the default.
    pub fn from_env() -> Result<Self, ProviderError> {
        let d = HttpOptions::default();
        Ok(HttpOptions {
            connect_timeout: env_number("ELELEM_CONNECT_TIMEOUT_SECS")?.map_or(d.connect_timeout, Duration::from_secs),
            idle_timeout: env_number("ELELEM_IDLE_TIMEOUT_SECS")?.map_or(d.idle_timeout, Duration::from_secs),
            retry: RetryPolicy {
                max_attempts: env_number("ELELEM_RETRY_ATTEMPTS")?
                    .map_or(d.retry.max_attempts, |n| n.clamp(1, 10) as u32),
                base_delay: env_number("ELELEM_RETRY_BASE_MS")?.map_or(d.retry.base_delay, Duration::from_millis),
                max_delay: env_number("ELELEM_RETRY_MAX_MS")?.map_or(d.retry.max_delay, Duration::from_millis),
            },
        })
    }

    /// A client with these timeouts (there is no overall timeout: replies can be long).
    pub fn client(&self) -> Result<reqwest::Client, ProviderError> {
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("elelem/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build the HTTP client: {}", chain(&e))))
    }
}

/// A non-negative whole number from the environment.
fn env_number(name: &str) -> Result<Option<u64>, ProviderError> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| ProviderError::Config(format!("{name} must be a whole number, not {text:?}"))),
        _ => Ok(None),
    }
}

/// An environment variable that is set and not blank.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

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

/// One model call over HTTP.
pub struct HttpCall {
    /// Prefix of every error message (`anthropic`, `openai`, `ollama`).
    pub provider: &'static str,
    pub client: reqwest::Client,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub framing: Framing,
    pub options: HttpOptions,
    /// Redacted from any error text.
    pub key: Option<ApiKey>,
}

impl HttpCall {
    /// `text` without the key or the user and password of any URL in it.
    pub fn redact(&self, text: &str) -> String {
        redact::redact(text, self.key.as_ref())
    }

    /// `error` with its text redacted.
    pub fn redact_error(&self, error: ProviderError) -> ProviderError {
        redact::redact_error(error, self.key.as_ref())
    }
}

/// An error and its causes, joined (reqwest's own message hides the interesting part).
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `provider: 401 authentication_error: invalid x-api-key`, from whatever error body the
/// server sent (Anthropic, OpenAI and Ollama shapes, or plain text).
pub fn status_error(provider: &str, status: u16, body: &str) -> String {
    let detail = serde_json::from_str::<Value>(body).ok().and_then(|v| error_detail(&v)).unwrap_or_else(|| {
        let text = body.trim();
        if text.is_empty() {
            reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("error")
                .to_lowercase()
        } else {
            truncate(text, 300)
        }
    });
    format!("{provider}: {status} {detail}")
}

/// `type: message` from `{"error": {...}}`, `{"error": "..."}` or `{"message": "..."}`.
pub fn error_detail(value: &Value) -> Option<String> {
    let error = value.get("error").unwrap_or(value);
    if let Some(text) = error.as_str() {
        return Some(text.to_string());
    }
    let message = error.get("message").and_then(Value::as_str);
    let kind = error.get("type").or_else(|| error.get("code")).and_then(Value::as_str).filter(|k| *k != "error");
    match (kind, message) {
        (Some(kind), Some(message)) => Some(format!("{kind}: {message}")),
        (None, Some(message)) => Some(message.to_string()),
        (Some(kind), None) => Some(kind.to_string()),
        (None, None) => None,
    }
}

/// `text` as one line of printable characters (controls and runs of whitespace become one
/// space), at most `max` characters: the start of a body that was not what it should be.
pub fn snippet(text: &str, max: usize) -> String {
    let mut line = String::new();
    for c in text.trim().chars() {
        let c = if c.is_control() || c.is_whitespace() { ' ' } else { c };
        if c == ' ' && line.ends_with(' ') {
            continue;
        }
        line.push(c);
    }
    truncate(&line, max)
}

/// At most `max` characters, with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_each_provider_read_well() {
        let anthropic = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(status_error("anthropic", 401, anthropic), "anthropic: 401 authentication_error: invalid x-api-key");
        let openai = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            status_error("openai", 401, openai),
            "openai: 401 invalid_request_error: Incorrect API key provided"
        );
        assert_eq!(
            status_error("ollama", 404, r#"{"error":"model \"x\" not found"}"#),
            "ollama: 404 model \"x\" not found"
        );
        assert_eq!(status_error("openai", 502, ""), "openai: 502 bad gateway");
        assert_eq!(status_error("openai", 500, "oops"), "openai: 500 oops");
    }

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.redact("bad key sk-secret-123!"), "bad key ***!");
        assert!(key.header("Bearer ").unwrap().is_sensitive());
    }
}
