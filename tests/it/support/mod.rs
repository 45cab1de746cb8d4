//! A tiny HTTP/1.1 server for the wire-level provider tests: each connection gets the next
//! scripted reply (chunked, cut at awkward byte positions), and every request is recorded.
#![allow(dead_code)]

pub mod home;
pub mod permissions;

use elelem::agent::output::RecordingOutput;
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Transcript};
use elelem::agent::{Tool, ToolContext, Toolbox};
use elelem::protocol::{EventStream, Message, Provider, ProviderError, ProviderEvent, Request};
use elelem::providers::frame::{Framing, MAX_FRAME_BYTES};
use elelem::providers::http::HttpOptions;
use elelem::providers::retry::RetryPolicy;
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A session's input from a list of lines, ended when it runs out.
pub struct Lines(pub Vec<String>);

impl Lines {
    pub fn of(lines: &[&str]) -> Self {
        Lines(lines.iter().map(|l| l.to_string()).collect())
    }
}

impl elelem::agent::input::Input for Lines {
    fn read_line(&mut self, _prompt: &str) -> futures::future::BoxFuture<'_, Option<String>> {
        let line = (!self.0.is_empty()).then(|| self.0.remove(0));
        Box::pin(async move { line })
    }
}

/// What the server does with one request.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub chunks: Vec<Vec<u8>>,
    /// Close the connection after the chunks, without the final empty chunk.
    pub drop: bool,
    /// Keep the connection open after the chunks until the client goes away.
    pub stall: bool,
    /// After the chunks, write this many bytes of `x` (one endless line) in 64 KiB chunks,
    /// or until the client goes away.
    pub endless: usize,
    /// Write the chunks back to back (a burst), not 1 ms apart.
    pub burst: bool,
    /// Read the request, then reset the connection without answering.
    pub reset: bool,
}

impl Reply {
    /// A streamed 200 whose body is `body` cut into 7-byte chunks (splitting lines, `\r\n`
    /// pairs and multi-byte characters).
    pub fn stream(content_type: &str, body: &str) -> Reply {
        let chunks = body.as_bytes().chunks(7).map(<[u8]>::to_vec).collect();
        Reply {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            chunks,
            drop: false,
            stall: false,
            endless: 0,
            burst: false,
            reset: false,
        }
    }
    /// The connection reset once the request is read, before any answer.
    pub fn reset() -> Reply {
        Reply { reset: true, ..Reply::status(500, "") }
    }
    pub fn sse(body: &str) -> Reply {
        Reply::stream("text/event-stream", body)
    }
    pub fn ndjson(body: &str) -> Reply {
        Reply::stream("application/x-ndjson", body)
    }
    /// Anthropic's documented stream of one text reply, `text`, as SSE.
    pub fn anthropic_text(text: &str) -> Reply {
        let events = [
            json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [],
                   "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
            json!({"type": "message_stop"}),
        ];
        let body: String = events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or_default()))
            .collect();
        Reply::sse(&body)
    }
    /// A plain (not streamed) reply, e.g. an error status with a JSON body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.as_bytes().to_vec()],
            drop: false,
            stall: false,
            endless: 0,
            burst: false,
            reset: false,
        }
    }
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// The body in `size`-byte chunks written back to back: a burst the client reads many
    /// chunks of at once.
    pub fn burst(mut self, size: usize) -> Reply {
        self.chunks = self.chunks.concat().chunks(size).map(<[u8]>::to_vec).collect();
        self.burst = true;
        self
    }
    pub fn dropped(mut self) -> Reply {
        self.drop = true;
        self
    }
    pub fn stalled(mut self) -> Reply {
        self.stall = true;
        self
    }
    /// Continues the last chunk with `bytes` bytes of `x` and no line end.
    pub fn endless(mut self, bytes: usize) -> Reply {
        self.endless = bytes;
        self
    }
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

pub struct Server {
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// Set when a stalled connection saw the client go away.
    pub client_gone: Arc<tokio::sync::Notify>,
    /// Body bytes the server managed to write, over all connections.
    pub written: Arc<AtomicUsize>,
}

impl Server {
    pub async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let client_gone = Arc::new(tokio::sync::Notify::new());
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let written = Arc::new(AtomicUsize::new(0));
        let (recorded, gone, count) = (requests.clone(), client_gone.clone(), written.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let reply = replies.lock().unwrap().pop_front();
                let (recorded, gone, count) = (recorded.clone(), gone.clone(), count.clone());
                tokio::spawn(async move { serve(socket, reply, recorded, gone, count).await });
            }
        });
        Server { url, requests, client_gone, written }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    reply: Option<Reply>,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    gone: Arc<tokio::sync::Notify>,
    written: Arc<AtomicUsize>,
) {
    let Some(request) = read_request(&mut socket).await else { return };
    recorded.lock().unwrap().push(request);
    let reply = reply.unwrap_or_else(|| Reply::status(500, r#"{"error":"the test server ran out of replies"}"#));
    if reply.reset {
        // Closing with a zero linger sends a reset instead of a FIN.
        let linger = libc::linger { l_onoff: 1, l_linger: 0 };
        let size = std::mem::size_of::<libc::linger>() as libc::socklen_t;
        // SAFETY: the descriptor is the live socket's, the option value a local of the type
        // SO_LINGER takes, and its size is that type's.
        unsafe {
            let value = (&linger as *const libc::linger).cast();
            libc::setsockopt(socket.as_raw_fd(), libc::SOL_SOCKET, libc::SO_LINGER, value, size);
        }
        return;
    }
    let reason = match reply.status {
        200 => "OK",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {} {reason}\r\nconnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if reply.status != 200 {
        let body: Vec<u8> = reply.chunks.concat();
        head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
        let _ = socket.write_all(head.as_bytes()).await;
        let _ = socket.write_all(&body).await;
        let _ = socket.shutdown().await;
        return;
    }
    head.push_str("transfer-encoding: chunked\r\n\r\n");
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for chunk in &reply.chunks {
        let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
        framed.extend_from_slice(chunk);
        framed.extend_from_slice(b"\r\n");
        if socket.write_all(&framed).await.is_err() || socket.flush().await.is_err() {
            return;
        }
        written.fetch_add(chunk.len(), Ordering::Relaxed);
        if !reply.burst {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    let filler = vec![b'x'; 64 * 1024];
    let mut left = reply.endless;
    while left > 0 {
        let n = left.min(filler.len());
        let mut framed = format!("{n:x}\r\n").into_bytes();
        framed.extend_from_slice(&filler[..n]);
        framed.extend_from_slice(b"\r\n");
        if socket.write_all(&framed).await.is_err() {
            gone.notify_one();
            return;
        }
        written.fetch_add(n, Ordering::Relaxed);
        left -= n;
    }
    if reply.stall {
        let mut buf = [0u8; 64];
        while let Ok(n) = socket.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
        gone.notify_one();
        return;
    }
    if !reply.drop {
        let _ = socket.write_all(b"0\r\n\r\n").await;
        let _ = socket.shutdown().await;
    }
}

/// One HTTP request off `socket`: its head (request line and headers) and its body as sent.
pub async fn read_raw(socket: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let head_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let length: usize = head
        .split("\r\n")
        .filter_map(|l| l.split_once(':'))
        .find(|(n, _)| n.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some((head, body))
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let (head, body) = read_raw(socket).await?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_string())).collect();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Recorded { method, path, headers, body })
}

/// Fast retries and a short idle timeout, so failure tests stay quick.
pub fn fast_http() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
        },
    }
}

/// All events of a stream, and the error that ended it (if one did).
pub async fn collect(mut stream: EventStream) -> (Vec<ProviderEvent>, Option<ProviderError>) {
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return (events, Some(error));
            }
        }
    }
    (events, None)
}

/// Concatenated text of one kind of event.
pub fn text_of(events: &[ProviderEvent], thinking: bool) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            ProviderEvent::Saying(t) if !thinking => Some(t.as_str()),
            ProviderEvent::Thinking(t) if thinking => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// A `read` tool that answers `{"content": "text of <path>", "path": <path>}`.
pub fn read_tool() -> Tool {
    Tool::new(
        "read",
        "read a file",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        |args: Value, _ctx: ToolContext| async move {
            Ok(json!({"content": format!("text of {}", args["path"].as_str().unwrap_or("")), "path": args["path"]}))
        },
    )
    .unwrap()
    .summarized_by("path")
}

/// An agent over `provider` with the `read` tool and the system prompt `SYSTEM`.
pub fn agent(provider: Arc<dyn Provider>) -> (Agent, Arc<RecordingOutput>) {
    let output = Arc::new(RecordingOutput::default());
    let mut toolbox = Toolbox::new();
    toolbox.add(read_tool());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()).with_template("SYSTEM"));
    (Agent::new(provider, toolbox, output.clone(), transcript), output)
}

/// A provider built for a test server.
pub type BuildProvider = Box<dyn Fn(&Server) -> Arc<dyn Provider>>;

/// Checks that a 200 which is not the provider's stream fails saying what came back: an
/// empty body, an HTML page, and one endless line, refused at the frame limit long before
/// the server has sent it all.
pub async fn bad_200s_say_what_came_back(name: &str, framing: Framing, build: BuildProvider) {
    let (content_type, prefix, unit) = match framing {
        Framing::Sse => ("text/event-stream", "data: ", "event"),
        Framing::Ndjson => ("application/x-ndjson", "{\"message\": \"", "line"),
    };
    let html = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body>Please \x1b[2J log in</body></html>";
    let endless = 64 * MAX_FRAME_BYTES;
    let server = Server::start(vec![
        Reply::stream(content_type, ""),
        Reply::stream("text/html; charset=utf-8", html),
        Reply::stream(content_type, prefix).endless(endless),
    ])
    .await;
    let provider = build(&server);
    let request = || Request { messages: vec![Message::system("SYSTEM"), Message::user("hi")], ..Request::default() };
    let message = |error: Option<ProviderError>| error.expect("an error").to_string();

    let (events, error) = collect(provider.fetch(request())).await;
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        message(error),
        format!("{name}: the server closed the stream without any event (HTTP 200, content-type {content_type:?}): an empty body")
    );

    let (_, error) = collect(provider.fetch(request())).await;
    assert_eq!(
        message(error),
        format!(
            "{name}: the server answered 200 with text/html; charset=utf-8, not an event stream: \
             \"<!DOCTYPE html> <html><head><title>Sign in</title></head> <body>Please [2J log in</body></html>\""
        )
    );

    let (_, error) = collect(provider.fetch(request())).await;
    assert_eq!(
        message(error),
        format!("{name}: one {unit} of the stream is larger than 16 MiB (the limit); stopped reading")
    );
    let gone = server.client_gone.notified();
    tokio::time::timeout(Duration::from_secs(30), gone).await.expect("the client kept reading the endless line");
    let written = server.written.load(Ordering::Relaxed);
    assert!(written < 3 * MAX_FRAME_BYTES, "the client read {written} bytes of one line before refusing it");
}

/// Live processes (not zombies) whose environment holds `marker`, as `pid: stat` lines.
pub fn marked_processes(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        if String::from_utf8_lossy(&environ).contains(marker) {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            if stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) != Some("Z") {
                found.push(format!("{pid}: {stat}"));
            }
        }
    }
    found
}
