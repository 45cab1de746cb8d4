//! A local server that speaks the Anthropic Messages protocol and plays the model by looking
//! at each request (like `scripts/bench_cost.py`): the test gives a function from the request
//! body to the reply's content blocks. Every request body is recorded, as parsed JSON and as
//! the bytes sent. For the cost tests: repeated reads, auto-compaction, the resumed prefix.

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// What the model answers: content blocks (`text` or `tool_use`).
pub type Play = Arc<dyn Fn(&Value) -> Vec<Value> + Send + Sync>;

pub struct ModelServer {
    pub url: String,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl ModelServer {
    pub async fn start(play: impl Fn(&Value) -> Vec<Value> + Send + Sync + 'static) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let (recorded, play): (_, Play) = (bodies.clone(), Arc::new(play));
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (recorded, play) = (recorded.clone(), play.clone());
                tokio::spawn(async move { serve(socket, recorded, play).await });
            }
        });
        ModelServer { url, bodies }
    }

    /// Every request body so far, parsed.
    pub fn requests(&self) -> Vec<Value> {
        self.raw().iter().map(|b| serde_json::from_slice(b).unwrap_or(Value::Null)).collect()
    }

    /// Every request body so far, as sent.
    pub fn raw(&self) -> Vec<Vec<u8>> {
        self.bodies.lock().unwrap().clone()
    }
}

/// `elelem chat --plain -p anthropic ARGS` in `home` against `server`, typing `lines`, with
/// `env` set; panics unless it exits cleanly. Its stdout.
pub async fn chat(
    home: &std::path::Path,
    server: &ModelServer,
    args: &[&str],
    lines: &str,
    env: &[(&str, &str)],
) -> String {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "-p", "anthropic"])
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .env_remove("ELELEM_CACHE_TTL")
        .env_remove("ELELEM_STUB_SCRIPT")
        .env_remove("ELELEM_CONTEXT_WINDOW")
        .env_remove("ELELEM_AUTO_COMPACT")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(lines.as_bytes()).await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A `tool_use` block.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// A `text` block.
pub fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// The tool results since the last prompt of `body` (the current turn's step count).
pub fn results_this_turn(body: &Value) -> usize {
    let mut results = 0;
    for message in body["messages"].as_array().into_iter().flatten().rev() {
        if message["role"] != "user" {
            continue;
        }
        let blocks: Vec<Value> = match &message["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        if blocks.iter().any(|b| b["type"] == "text") {
            break;
        }
        results += blocks.iter().filter(|b| b["type"] == "tool_result").count();
    }
    results
}

/// The text of a tool result block (its content as a string, or its text blocks joined).
pub fn result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => other.to_string(),
    }
}

/// Every tool result block of `body`, in order.
pub fn tool_results(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

/// `value` without any `cache_control` (what the cache compares).
pub fn without_marks(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter().filter(|(k, _)| *k != "cache_control").map(|(k, v)| (k.clone(), without_marks(v))).collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_marks).collect()),
        other => other.clone(),
    }
}

async fn serve(mut socket: TcpStream, recorded: Arc<Mutex<Vec<Vec<u8>>>>, play: Play) {
    let Some((_, body)) = crate::support::read_raw(&mut socket).await else { return };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    recorded.lock().unwrap().push(body);
    let blocks = play(&parsed);
    let payload = sse(&blocks);
    let head = format!(
        "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
        payload.len()
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(payload.as_bytes()).await;
    let _ = socket.shutdown().await;
}

fn sse(blocks: &[Value]) -> String {
    let tool = blocks.iter().any(|b| b["type"] == "tool_use");
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg", "type": "message", "role": "assistant",
            "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        if block["type"] == "text" {
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "text_delta", "text": block["text"]}}),
            ));
        } else {
            let mut start = block.clone();
            start["input"] = json!({});
            events.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            ));
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": block["input"].to_string()}}),
            ));
        }
        events.push(("content_block_stop", json!({"type": "content_block_stop", "index": index})));
    }
    let reason = if tool { "tool_use" } else { "end_turn" };
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}
