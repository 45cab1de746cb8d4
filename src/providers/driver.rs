//! The driver that turns one `HttpCall` into an `EventStream`: connects, retries before the
//! first shown byte, cuts the body into frames, hands them to the provider's parser, and
//! says what came back when a 200 is not the stream it should be (an HTML page, a body
//! without any event, a stream cut before the end of the reply).
//!
//! The stream is a plain `unfold` over the driver's state: no task is spawned, so dropping
//! the stream drops the request and its connection at once. Each read takes every body chunk
//! that is already there (up to `READ_BATCH` bytes) and parses it in one go. It does not
//! wait for a chunk that is a task away: its reader looks again (`ready_next`), and a
//! look inside a look would count one wait twice.

use super::decoder::Decoder;
use super::frame::{Frame, FrameError};
use super::http::call::HttpCall;
use super::http::error_text::{chain, root_cause, snippet, status_error};
use super::parser::{ParserFactory, WireParser};
use super::retry::RetryPolicy;
use crate::protocol::{EventStream, ProviderError, ProviderEvent};
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use std::collections::VecDeque;
use std::time::Duration;

/// Ready body chunks read together before parsing (a burst of small SSE events arrives as
/// many chunks; parsing them together yields the events in one batch).
const READ_BATCH: usize = 64 * 1024;
/// How much of the start of a body is kept to show when it is not a stream.
const PREVIEW_BYTES: usize = 1024;
/// Characters of that start shown in an error.
const PREVIEW_CHARS: usize = 200;

type Body = BoxStream<'static, reqwest::Result<bytes::Bytes>>;
type Item = Result<ProviderEvent, ProviderError>;

/// What one look at the body brought.
enum BodyItem {
    Chunk(bytes::Bytes),
    /// The connection failed.
    Lost(reqwest::Error),
    /// The body ended.
    End,
    /// No byte came for the idle timeout.
    Stalled,
}

impl From<Option<reqwest::Result<bytes::Bytes>>> for BodyItem {
    fn from(item: Option<reqwest::Result<bytes::Bytes>>) -> Self {
        match item {
            Some(Ok(bytes)) => BodyItem::Chunk(bytes),
            Some(Err(e)) => BodyItem::Lost(e),
            None => BodyItem::End,
        }
    }
}

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
    /// What this attempt's body is, for errors about it.
    content_type: String,
    preview: Vec<u8>,
    frames_seen: bool,
    /// The end of the body (or its error), seen while batching and not handled yet.
    held: Option<BodyItem>,
    /// Reused between reads.
    chunk: Vec<u8>,
    frames: Vec<Frame>,
    events: Vec<ProviderEvent>,
    /// When this attempt's body last gave bytes, and the idle timer: one per attempt,
    /// moved only when it fires early (not one timer per read of a fast stream).
    last_data: tokio::time::Instant,
    /// Bytes came since `last_data` was set: it is moved to now when a read has to wait
    /// (the clock is read once per wait, not once per chunk of a fast stream).
    fresh: bool,
    idle_timer: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

/// Streams the events of `call`, parsed by parsers from `new_parser` (a fresh one per attempt).
pub(crate) fn stream(call: HttpCall, new_parser: ParserFactory) -> EventStream {
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
        content_type: String::new(),
        preview: Vec::new(),
        frames_seen: false,
        held: None,
        chunk: Vec::new(),
        frames: Vec::new(),
        events: Vec::new(),
        last_data: tokio::time::Instant::now(),
        fresh: false,
        idle_timer: None,
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

    /// Ends the stream with `error`, its text redacted.
    fn fail(&mut self, error: ProviderError) {
        let error = self.call.redact_error(error);
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
        let reason = self.call.redact(reason);
        self.queue.push_back(Ok(ProviderEvent::Retrying { attempt: next, max, delay, reason }));
        self.wait = Some(delay);
        true
    }

    async fn connect(&mut self) {
        self.attempt += 1;
        self.produced = false;
        self.parser = (self.new_parser)();
        self.decoder = Decoder::new(self.call.framing);
        self.preview.clear();
        self.frames_seen = false;
        self.held = None;
        let idle = self.call.options.idle_timeout;
        let request =
            self.call.client.post(&self.call.url).headers(self.call.headers.clone()).body(self.call.body.clone());
        let url = self.call.redact(&self.call.url);
        let response = match tokio::time::timeout(idle, request.send()).await {
            Err(_) => {
                let error = format!("{}: no response from {url} within {}s", self.name(), idle.as_secs());
                return self.fail(ProviderError::Network(error));
            }
            Ok(Err(e)) => {
                let error = match e.is_connect() {
                    true => format!("{}: cannot connect to {url}: {}", self.name(), root_cause(&e)),
                    false => format!("{}: request failed: {url}: {}", self.name(), chain(&e)),
                };
                // Connected, then cut before any answer (a server or proxy resetting a fresh
                // or kept-alive connection): nothing came back, so asking again is safe. A
                // server that is not there fails at once.
                if !e.is_connect() && !e.is_timeout() && self.retry(&error, None) {
                    return;
                }
                return self.fail(ProviderError::Network(error));
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            self.content_type =
                response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
            self.body = Some(response.bytes_stream().boxed());
            self.last_data = tokio::time::Instant::now();
            self.fresh = false;
            self.idle_timer = None;
            if self.content_type.to_ascii_lowercase().starts_with("text/html") {
                return self.not_a_stream().await;
            }
            return;
        }
        let headers = response.headers().clone();
        let text = match tokio::time::timeout(idle, response.text()).await {
            Ok(Ok(text)) => text,
            _ => String::new(),
        };
        let message = self.call.redact(&status_error(self.name(), status, &text));
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

    /// A 200 that is a web page: reads the start of it and fails saying what it is.
    async fn not_a_stream(&mut self) {
        let idle = self.call.options.idle_timeout;
        while self.preview.len() < PREVIEW_BYTES {
            let Some(body) = self.body.as_mut() else { break };
            match tokio::time::timeout(idle, body.next()).await {
                Ok(Some(Ok(chunk))) => self.keep_preview(&chunk),
                _ => break,
            }
        }
        let error = format!(
            "{}: the server answered 200 with {}, not an event stream: {}",
            self.name(),
            self.content_type,
            self.shown_body()
        );
        self.fail(ProviderError::Protocol(error));
    }

    fn keep_preview(&mut self, bytes: &[u8]) {
        let room = PREVIEW_BYTES.saturating_sub(self.preview.len());
        self.preview.extend_from_slice(&bytes[..room.min(bytes.len())]);
    }

    /// The start of the body, one line of printable text, or `an empty body`.
    fn shown_body(&self) -> String {
        let text = snippet(&String::from_utf8_lossy(&self.preview), PREVIEW_CHARS);
        if text.is_empty() {
            "an empty body".to_string()
        } else {
            format!("{text:?}")
        }
    }

    /// The body's next item, or `Stalled` when no byte came for the idle timeout (counted
    /// from when the read after the last bytes began waiting). A chunk that is already there
    /// is taken without touching the timer or the clock.
    async fn next_item(&mut self) -> BodyItem {
        let idle = self.call.options.idle_timeout;
        let Some(body) = self.body.as_mut() else { return BodyItem::End };
        let item = match body.next().now_or_never() {
            Some(item) => item,
            None => loop {
                if std::mem::take(&mut self.fresh) {
                    self.last_data = tokio::time::Instant::now();
                }
                let due = self.last_data + idle;
                let timer = self.idle_timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(due)));
                tokio::select! {
                    biased;
                    item = body.next() => break item,
                    _ = timer.as_mut() => {
                        // Data came since the timer was set: wait the rest of the interval.
                        if due > tokio::time::Instant::now() {
                            timer.as_mut().reset(due);
                            continue;
                        }
                        return BodyItem::Stalled;
                    }
                }
            },
        };
        self.fresh = true;
        item.into()
    }

    /// Reads the next chunk and every further chunk that is already there (up to
    /// `READ_BATCH` bytes) into `self.chunk`; false when the body ended.
    async fn read_chunks(&mut self) -> Result<bool, ProviderError> {
        let idle = self.call.options.idle_timeout;
        let name = self.name();
        self.chunk.clear();
        let mut next = match self.held.take() {
            Some(end) => end,
            None => {
                if self.body.is_none() {
                    return Ok(false);
                }
                self.next_item().await
            }
        };
        loop {
            match next {
                BodyItem::Chunk(bytes) => self.chunk.extend_from_slice(&bytes),
                // The end or an error after some bytes: parse those first, then this.
                end if !self.chunk.is_empty() => {
                    self.held = Some(end);
                    return Ok(true);
                }
                BodyItem::Lost(e) => {
                    let error = format!("{name}: the connection was lost mid-reply: {}", chain(&e));
                    return Err(ProviderError::Network(error));
                }
                BodyItem::Stalled => {
                    let error = format!(
                        "{name}: the stream stalled: no data for {}s (ELELEM_IDLE_TIMEOUT_SECS)",
                        idle.as_secs()
                    );
                    return Err(ProviderError::Network(error));
                }
                BodyItem::End => return Ok(false),
            }
            let Some(body) = self.body.as_mut() else { return Ok(true) };
            if self.chunk.len() >= READ_BATCH {
                return Ok(true);
            }
            match body.next().now_or_never() {
                Some(item) => next = item.into(),
                None => return Ok(true),
            }
        }
    }

    async fn read(&mut self) {
        let more = match self.read_chunks().await {
            Ok(more) => more,
            Err(error) => return self.fail(error),
        };
        if self.preview.len() < PREVIEW_BYTES {
            let chunk = std::mem::take(&mut self.chunk);
            self.keep_preview(&chunk);
            self.chunk = chunk;
        }
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let decoded = if more { self.decoder.push(&self.chunk, &mut frames) } else { self.decoder.finish(&mut frames) };
        if let Err(e) = decoded {
            let error = match e {
                FrameError::TooLarge { .. } => format!("{}: {e}", self.name()),
                FrameError::NotUtf8 { .. } => format!("{}: malformed stream: {e}", self.name()),
            };
            return self.fail(ProviderError::Protocol(error));
        }
        self.frames_seen |= !frames.is_empty();
        let mut out = std::mem::take(&mut self.events);
        let mut result = Ok(());
        for frame in frames.drain(..) {
            result = self.parser.frame(frame, &mut out);
            if result.is_err() || self.parser.done() {
                break;
            }
        }
        self.frames = frames;
        if result.is_ok() && !more && !self.parser.done() {
            if !self.frames_seen {
                let error = format!(
                    "{}: the server closed the stream without any event (HTTP 200, content-type {:?}): {}",
                    self.name(),
                    self.content_type,
                    self.shown_body()
                );
                return self.fail(ProviderError::Protocol(error));
            }
            result = self.parser.finish(&mut out);
        }
        self.produced |= out.iter().any(|e| !matches!(e, ProviderEvent::Usage(_) | ProviderEvent::Retrying { .. }));
        self.queue.extend(out.drain(..).map(Ok));
        self.events = out;
        match result {
            Err(fault) => {
                let reason = fault.error.to_string();
                if !(fault.retryable && self.retry(&reason, None)) {
                    self.fail(fault.error);
                }
            }
            Ok(()) if self.parser.done() || !more => {
                self.body = None;
                self.finished = true;
            }
            Ok(()) => {}
        }
    }
}

/// A stream that fails at once (e.g. a request that cannot even be built).
pub(crate) fn failed(error: ProviderError) -> EventStream {
    futures::stream::once(async move { Err(error) }).boxed()
}
