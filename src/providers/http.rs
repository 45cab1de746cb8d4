//! The HTTP side shared by the network providers: the client and its timeouts, API keys that
//! never print, status → error mapping, and the driver that turns one POST into an
//! `EventStream` (framing, idle timeout, retries before the first shown byte).
//!
//! The stream is a plain `unfold` over the driver's state: no task is spawned, so dropping
//! the stream drops the request and its connection at once.

pub use super::frame::{Frame, Framing};
use super::ndjson::NdjsonDecoder;
use super::retry::RetryPolicy;
use super::sse::SseDecoder;
use crate::protocol::{EventStream, ProviderError, ProviderEvent};
use futures::stream::BoxStream;
use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use std::collections::VecDeque;
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

enum Decoder {
    Sse(SseDecoder),
    Ndjson(NdjsonDecoder),
}

impl Decoder {
    fn new(framing: Framing) -> Self {
        match framing {
            Framing::Sse => Decoder::Sse(SseDecoder::new()),
            Framing::Ndjson => Decoder::Ndjson(NdjsonDecoder::new()),
        }
    }
    fn push(&mut self, bytes: &[u8]) -> Result<Vec<Frame>, String> {
        match self {
            Decoder::Sse(d) => d.push(bytes),
            Decoder::Ndjson(d) => d.push(bytes),
        }
    }
    fn finish(&mut self) -> Result<Vec<Frame>, String> {
        match self {
            Decoder::Sse(d) => d.finish(),
            Decoder::Ndjson(d) => d.finish(),
        }
    }
}

type Body = BoxStream<'static, reqwest::Result<Vec<u8>>>;
type Item = Result<ProviderEvent, ProviderError>;

/// The state of one call: attempts, the open body, and events not yet handed out.
struct Driver {
    call: HttpCall,
    new_parser: ParserFactory,
    parser: Box<dyn WireParser>,
    decoder: Decoder,
    attempt: u32,
    body: Option<Body>,
    queue: VecDeque<Item>,
    wait: Option<Duration>,
    /// This attempt has produced text, thinking or a tool call: no more retries.
    produced: bool,
    finished: bool,
}

/// Streams the events of `call`, parsed by parsers from `new_parser` (a fresh one per attempt).
pub fn stream(call: HttpCall, new_parser: ParserFactory) -> EventStream {
    let driver = Driver {
        parser: new_parser(),
        decoder: Decoder::new(call.framing),
        call,
        new_parser,
        attempt: 0,
        body: None,
        queue: VecDeque::new(),
        wait: None,
        produced: false,
        finished: false,
    };
    futures::stream::unfold(driver, |mut driver| async move { driver.next().await.map(|item| (item, driver)) }).boxed()
}

impl Driver {
    async fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                if item.is_err() {
                    self.stop();
                }
                return Some(item);
            }
            if self.finished {
                return None;
            }
            if let Some(delay) = self.wait.take() {
                tokio::time::sleep(delay).await;
            }
            if self.body.is_none() {
                self.connect().await;
            } else {
                self.read().await;
            }
        }
    }

    fn stop(&mut self) {
        self.finished = true;
        self.body = None;
        self.queue.clear();
    }

    fn fail(&mut self, error: ProviderError) {
        self.queue.push_back(Err(error));
    }

    fn name(&self) -> &'static str {
        self.call.provider
    }

    /// Schedules another attempt if the policy allows; returns false when it does not.
    fn retry(&mut self, reason: &str, headers: Option<&HeaderMap>) -> bool {
        let max = self.call.options.retry.max_attempts;
        if self.attempt >= max || self.produced {
            return false;
        }
        let next = self.attempt + 1;
        let delay = self.call.options.retry.delay(next, headers);
        self.body = None;
        self.queue.retain(|item| !matches!(item, Ok(ProviderEvent::Usage(_))));
        self.queue.push_back(Ok(ProviderEvent::Retrying { attempt: next, max, delay, reason: reason.to_string() }));
        self.wait = Some(delay);
        true
    }

    async fn connect(&mut self) {
        self.attempt += 1;
        self.produced = false;
        self.parser = (self.new_parser)();
        self.decoder = Decoder::new(self.call.framing);
        let idle = self.call.options.idle_timeout;
        let request =
            self.call.client.post(&self.call.url).headers(self.call.headers.clone()).body(self.call.body.clone());
        let response = match tokio::time::timeout(idle, request.send()).await {
            Err(_) => {
                let error = format!("{}: no response from {} within {}s", self.name(), self.call.url, idle.as_secs());
                return self.fail(ProviderError::Network(error));
            }
            Ok(Err(e)) => {
                let what = if e.is_connect() { "cannot connect to" } else { "request failed:" };
                let error = format!("{}: {what} {}: {}", self.name(), self.call.url, self.redact(&chain(&e)));
                return self.fail(ProviderError::Network(error));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            self.body = Some(response.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec())).boxed());
            return;
        }
        let headers = response.headers().clone();
        let text = match tokio::time::timeout(idle, response.text()).await {
            Ok(Ok(text)) => text,
            _ => String::new(),
        };
        let message = self.redact(&status_error(self.name(), status, &text));
        if RetryPolicy::retryable_status(status) && self.retry(&message, Some(&headers)) {
            return;
        }
        let message = if RetryPolicy::retryable_status(status) && self.attempt > 1 {
            format!("{message} (gave up after {} attempts)", self.attempt)
        } else {
            message
        };
        self.fail(ProviderError::Api(message));
    }

    async fn read(&mut self) {
        let idle = self.call.options.idle_timeout;
        let Some(body) = self.body.as_mut() else { return };
        let chunk = match tokio::time::timeout(idle, body.next()).await {
            Err(_) => {
                let error = format!(
                    "{}: the stream stalled: no data for {}s (ELELEM_IDLE_TIMEOUT_SECS)",
                    self.name(),
                    idle.as_secs()
                );
                return self.fail(ProviderError::Network(error));
            }
            Ok(Some(Err(e))) => {
                let error = format!("{}: the connection was lost mid-reply: {}", self.name(), self.redact(&chain(&e)));
                return self.fail(ProviderError::Network(error));
            }
            Ok(None) => None,
            Ok(Some(Ok(chunk))) => Some(chunk),
        };
        let frames = match &chunk {
            Some(bytes) => self.decoder.push(bytes),
            None => self.decoder.finish(),
        };
        let frames = match frames {
            Ok(frames) => frames,
            Err(e) => return self.fail(ProviderError::Protocol(format!("{}: malformed stream: {e}", self.name()))),
        };
        let mut out = Vec::new();
        let mut result = Ok(());
        for frame in frames {
            result = self.parser.frame(frame, &mut out);
            if result.is_err() || self.parser.done() {
                break;
            }
        }
        if result.is_ok() && chunk.is_none() && !self.parser.done() {
            result = self.parser.finish(&mut out);
        }
        self.produced |= out.iter().any(|e| !matches!(e, ProviderEvent::Usage(_) | ProviderEvent::Retrying { .. }));
        self.queue.extend(out.into_iter().map(Ok));
        match result {
            Err(fault) => {
                let reason = fault.error.to_string();
                if !(fault.retryable && self.retry(&reason, None)) {
                    self.fail(fault.error);
                }
            }
            Ok(()) if self.parser.done() || chunk.is_none() => {
                self.body = None;
                self.finished = true;
            }
            Ok(()) => {}
        }
    }

    fn redact(&self, text: &str) -> String {
        match &self.call.key {
            Some(key) => key.redact(text),
            None => text.to_string(),
        }
    }
}

/// A stream that fails at once (e.g. a request that cannot even be built).
pub fn failed(error: ProviderError) -> EventStream {
    futures::stream::once(async move { Err(error) }).boxed()
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
