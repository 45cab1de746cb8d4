//! `elelem acp`: the Agent Client Protocol front end (v1, JSON-RPC over stdio), so an
//! editor (Zed, JetBrains, Neovim and Emacs plugins) runs elelem as its agent. This file
//! reads the client's lines and dispatches them; `rpc` is the framing and the writer,
//! `sessions` the session map and turns, `updates` the `Output` that streams a turn as
//! `session/update` notifications, `approver` the permission requests, `fs` the file
//! tools' reads and writes through the editor, `mcp` the editor's MCP servers.

pub mod approver;
pub mod fs;
pub mod mcp;
pub mod rpc;
pub mod sessions;
pub mod updates;

use crate::startup::Options;
use rpc::{Incoming, Peer, RpcError, INVALID_REQUEST, MAX_LINE, METHOD_NOT_FOUND};
use serde_json::{json, Value};
use sessions::Sessions;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// The protocol version elelem speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// Serves the client on stdin/stdout until it closes stdin.
pub async fn run(options: Options) -> anyhow::Result<()> {
    serve(options, tokio::io::BufReader::new(tokio::io::stdin()), Peer::new(tokio::io::stdout())).await
}

/// Serves one client: every line from `input` is handled, answers go through `peer`.
pub async fn serve(options: Options, mut input: impl AsyncBufRead + Unpin, peer: Peer) -> anyhow::Result<()> {
    let sessions = Arc::new(Sessions::new(peer.clone(), options));
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut input).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line).await?;
        if read == 0 {
            break;
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            // Too long: answered once, and the rest of the line is skipped.
            let error = RpcError::new(INVALID_REQUEST, format!("message longer than {MAX_LINE} bytes"));
            peer.respond(Value::Null, Err(error));
            skip_line(&mut input).await?;
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        handle(rpc::parse(text.trim()), &sessions, &peer);
    }
    sessions.cancel_all();
    peer.close();
    Ok(())
}

/// Reads and drops the rest of a line.
async fn skip_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let n = buffer.len();
                input.consume(n);
            }
        }
    }
}

fn handle(message: Incoming, sessions: &Arc<Sessions>, peer: &Peer) {
    match message {
        Incoming::Invalid { id, error } => peer.respond(id, Err(error)),
        Incoming::Response { id, result } => peer.answer(&id, result),
        Incoming::Notification { method, params } => {
            if method == "session/cancel" {
                sessions.cancel(&params);
            }
        }
        Incoming::Request { id, method, params } => match method.as_str() {
            "initialize" => {
                sessions.set_client_fs(fs::FsCapabilities::from_initialize(&params));
                peer.respond(id, Ok(initialize()))
            }
            "authenticate" => peer.respond(id, Ok(json!({}))),
            "session/new" => {
                let answer = sessions.new_session(&params);
                let session = answer.as_ref().ok().and_then(|a| a["sessionId"].as_str()).map(str::to_string);
                peer.respond(id, answer);
                if let Some(session) = session {
                    sessions.announce_commands(&session);
                }
            }
            "session/load" => {
                let answer = sessions.load_session(&params);
                let loaded = answer.is_ok();
                peer.respond(id, answer);
                if let (true, Some(session)) = (loaded, params["sessionId"].as_str()) {
                    sessions.announce_commands(session);
                }
            }
            "session/prompt" => {
                let (sessions, peer) = (sessions.clone(), peer.clone());
                let ticket = sessions.ticket(&params);
                tokio::spawn(async move {
                    let answer = sessions.prompt(params, ticket).await;
                    peer.respond(id, answer);
                });
            }
            other => peer.respond(id, Err(RpcError::new(METHOD_NOT_FOUND, format!("method not found: {other}")))),
        },
    }
}

/// The answer to `initialize`: protocol 1, sessions that load, text and embedded context.
fn initialize() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": false, "audio": false, "embeddedContext": true},
            "mcpCapabilities": {"http": true, "sse": false},
        },
        "authMethods": [],
        "agentInfo": {"name": "elelem", "title": "elelem", "version": env!("CARGO_PKG_VERSION")},
    })
}
