//! JSON-RPC 2.0 over newline-delimited JSON, the framing ACP uses on stdio: reading one
//! incoming line into a request, a notification or a response (or the error response a
//! bad line gets), and the `Peer` that writes to the client — responses, notifications
//! and requests of our own, whose answers it routes back to the waiting caller.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// The longest line read from the client (a prompt with embedded files fits easily).
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// A JSON-RPC error: a code and a message.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into() }
    }
    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }
    fn to_value(&self) -> Value {
        json!({"code": self.code, "message": self.message})
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// One line from the client.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    Response {
        id: Value,
        result: Result<Value, RpcError>,
    },
    /// Not a message: answered with this error (`id` null when it could not be read).
    Invalid {
        id: Value,
        error: RpcError,
    },
}

/// Reads one line. Never fails: a line that is not a JSON-RPC message becomes `Invalid`.
pub fn parse(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("parse error: {error}")),
            }
        }
    };
    let Value::Object(mut message) = value else {
        let error =
            RpcError::new(INVALID_REQUEST, "invalid request: a message is a JSON object (batches are not supported)");
        return Incoming::Invalid { id: Value::Null, error };
    };
    let id = message.remove("id");
    let valid_id = |id: &Value| matches!(id, Value::String(_) | Value::Number(_) | Value::Null);
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let id = id.filter(valid_id).unwrap_or(Value::Null);
        return Incoming::Invalid {
            id,
            error: RpcError::new(INVALID_REQUEST, "invalid request: \"jsonrpc\" must be \"2.0\""),
        };
    }
    if let Some(method) = message.get("method") {
        let Some(method) = method.as_str().map(str::to_string) else {
            let id = id.filter(valid_id).unwrap_or(Value::Null);
            return Incoming::Invalid {
                id,
                error: RpcError::new(INVALID_REQUEST, "invalid request: \"method\" must be a string"),
            };
        };
        let params = message.remove("params").unwrap_or(Value::Null);
        return match id {
            None => Incoming::Notification { method, params },
            Some(id) if valid_id(&id) => Incoming::Request { id, method, params },
            Some(_) => Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(INVALID_REQUEST, "invalid request: \"id\" must be a string or a number"),
            },
        };
    }
    let Some(id) = id.filter(valid_id) else {
        return Incoming::Invalid {
            id: Value::Null,
            error: RpcError::new(INVALID_REQUEST, "invalid request: no \"method\""),
        };
    };
    let result = match (message.remove("result"), message.remove("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(RpcError::new(
            error.get("code").and_then(Value::as_i64).unwrap_or(INTERNAL_ERROR),
            error.get("message").and_then(Value::as_str).unwrap_or("error"),
        )),
        _ => {
            let error = RpcError::new(INVALID_REQUEST, "invalid response: one of \"result\" or \"error\"");
            return Incoming::Invalid { id, error };
        }
    };
    Incoming::Response { id, result }
}

/// Answers waiting for requests we sent, by id.
type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>>;

/// The client at the other end: every message to it goes through one writer task, a line
/// each, so messages from concurrent turns never interleave.
#[derive(Clone)]
pub struct Peer {
    lines: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl Peer {
    /// A peer writing to `out`; the writer task ends when every `Peer` clone is dropped.
    pub fn new(out: impl tokio::io::AsyncWrite + Unpin + Send + 'static) -> Peer {
        let (lines, mut receiver) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let mut out = out;
            while let Some(line) = receiver.recv().await {
                if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
                    break;
                }
            }
        });
        Peer { lines, pending: Pending::default(), next_id: Arc::new(AtomicU64::new(0)) }
    }

    fn send(&self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        let _ = self.lines.send(line);
    }

    pub fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        match result {
            Ok(result) => self.send(json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Err(error) => self.send(json!({"jsonrpc": "2.0", "id": id, "error": error.to_value()})),
        }
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its answer (an error when the client goes away).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id, sender);
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        receiver.await.unwrap_or_else(|_| Err(RpcError::new(INTERNAL_ERROR, "the client went away")))
    }

    /// Hands a response from the client to the request waiting for it (an unknown id is
    /// dropped).
    pub fn answer(&self, id: &Value, result: Result<Value, RpcError>) {
        let Some(id) = id.as_u64() else { return };
        let waiting = self.pending.lock().ok().and_then(|mut pending| pending.remove(&id));
        if let Some(waiting) = waiting {
            let _ = waiting.send(result);
        }
    }

    /// The client closed its end: every request still waiting fails.
    pub fn close(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_messages_or_clear_errors() {
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#),
            Incoming::Request { id: json!(1), method: "initialize".into(), params: json!({"protocolVersion": 1}) }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{}}"#),
            Incoming::Notification { method: "session/cancel".into(), params: json!({}) }
        );
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}}"#),
            Incoming::Response { id: json!(3), result: Ok(json!({"outcome": {"outcome": "cancelled"}})) }
        );
        for (line, code) in [
            ("{not json", PARSE_ERROR),
            ("[1,2]", INVALID_REQUEST),
            (r#"{"id":1,"method":"x"}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#, INVALID_REQUEST),
            (r#"{"jsonrpc":"2.0","id":1}"#, INVALID_REQUEST),
        ] {
            match parse(line) {
                Incoming::Invalid { error, .. } => assert_eq!(error.code, code, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }
}
