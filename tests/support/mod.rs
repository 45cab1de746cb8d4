//! A tiny HTTP/1.1 server for the wire-level provider tests: each connection gets the next
//! scripted reply (chunked, cut at awkward byte positions), and every request is recorded.
#![allow(dead_code)]

use elelem::agent::output::RecordingOutput;
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Transcript};
use elelem::agent::{Tool, ToolContext, Toolbox};
use elelem::protocol::{EventStream, Provider, ProviderError, ProviderEvent};
use elelem::providers::http::HttpOptions;
use elelem::providers::retry::RetryPolicy;
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

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
        }
    }
    pub fn sse(body: &str) -> Reply {
        Reply::stream("text/event-stream", body)
    }
    pub fn ndjson(body: &str) -> Reply {
        Reply::stream("application/x-ndjson", body)
    }
    /// A plain (not streamed) reply, e.g. an error status with a JSON body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.as_bytes().to_vec()],
            drop: false,
            stall: false,
        }
    }
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
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
}

impl Server {
    pub async fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let client_gone = Arc::new(tokio::sync::Notify::new());
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let (recorded, gone) = (requests.clone(), client_gone.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let reply = replies.lock().unwrap().pop_front();
                let (recorded, gone) = (recorded.clone(), gone.clone());
                tokio::spawn(async move { serve(socket, reply, recorded, gone).await });
            }
        });
        Server { url, requests, client_gone }
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
) {
    let Some(request) = read_request(&mut socket).await else { return };
    recorded.lock().unwrap().push(request);
    let reply = reply.unwrap_or_else(|| Reply::status(500, r#"{"error":"the test server ran out of replies"}"#));
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
        tokio::time::sleep(Duration::from_millis(1)).await;
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

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
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
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_string())).collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
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
