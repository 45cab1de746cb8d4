//! Anthropic over real HTTP: a local server replays the documented Messages SSE stream
//! byte for byte (cut into 7-byte chunks) and records what elelem sent.

use crate::support::{collect, fast_http, text_of, Reply, Server};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::Message;
use elelem::protocol::ToolCall;
use elelem::protocol::Usage;
use elelem::protocol::{Provider, ProviderError, ProviderEvent, Request};
use elelem::providers::anthropic::{AnthropicConfig, AnthropicProvider};
use elelem::providers::frame::Framing;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-ant-test-key-0123456789";

fn provider(server: &Server, thinking: Option<u32>) -> AnthropicProvider {
    let mut config = AnthropicConfig::new(&server.url, KEY, "claude-test");
    config.http = fast_http();
    config.thinking_budget = thinking;
    AnthropicProvider::new(config).unwrap()
}

fn request(prompt: &str) -> Request {
    Request { messages: vec![Message::system("SYSTEM"), Message::user(prompt)], ..Request::default() }
}

/// Builds an SSE body from (event, data) pairs, as the API sends it.
fn sse(events: &[(&str, serde_json::Value)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

fn start(input: u64) -> (&'static str, serde_json::Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
        "content": [], "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": input, "output_tokens": 1}}}),
    )
}

fn block_start(index: u64, block: serde_json::Value) -> (&'static str, serde_json::Value) {
    ("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": block}))
}

fn delta(index: u64, delta: serde_json::Value) -> (&'static str, serde_json::Value) {
    ("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta}))
}

fn text(index: u64, text: &str) -> (&'static str, serde_json::Value) {
    delta(index, json!({"type": "text_delta", "text": text}))
}

fn stop(index: u64) -> (&'static str, serde_json::Value) {
    ("content_block_stop", json!({"type": "content_block_stop", "index": index}))
}

fn end(reason: &str, output: u64) -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": {"output_tokens": output}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
}

fn text_reply(words: &[&str]) -> String {
    let mut events =
        vec![start(25), block_start(0, json!({"type": "text", "text": ""})), ("ping", json!({"type": "ping"}))];
    events.extend(words.iter().map(|w| text(0, w)));
    events.push(stop(0));
    events.extend(end("end_turn", 12));
    sse(&events)
}

#[tokio::test]
async fn streams_text_and_usage_and_sends_the_documented_request() {
    let server = Server::start(vec![Reply::sse(&text_reply(&["Hello", ", wörld ✓"]))]).await;
    let (events, error) = collect(provider(&server, None).fetch(request("hi"))).await;
    assert_eq!(error, None);
    assert_eq!(text_of(&events, false), "Hello, wörld ✓");
    assert_eq!(
        events.last(),
        Some(&ProviderEvent::Usage(Usage { input_tokens: 25, output_tokens: 12, ..Default::default() }))
    );
    let sent = &server.requests()[0];
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(
        sent.body,
        json!({"model": "claude-test", "max_tokens": 8192, "stream": true,
               "system": [{"type": "text", "text": "SYSTEM", "cache_control": {"type": "ephemeral"}}],
               "messages": [{"role": "user", "content": [
                   {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]})
    );
}

#[tokio::test]
async fn thinking_streams_with_its_signature_when_a_budget_is_set() {
    let mut events = vec![start(10), block_start(0, json!({"type": "thinking", "thinking": ""}))];
    events.push(delta(0, json!({"type": "thinking_delta", "thinking": "Let me "})));
    events.push(delta(0, json!({"type": "thinking_delta", "thinking": "think."})));
    events.push(delta(0, json!({"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"})));
    events.push(stop(0));
    events.extend([block_start(1, json!({"type": "text", "text": ""})), text(1, "42"), stop(1)]);
    events.extend(end("end_turn", 30));
    let server = Server::start(vec![Reply::sse(&sse(&events))]).await;
    let (got, error) = collect(provider(&server, Some(2048)).fetch(request("q"))).await;
    assert_eq!(error, None);
    assert_eq!(
        got,
        vec![
            ProviderEvent::Thinking("Let me ".into()),
            ProviderEvent::Thinking("think.".into()),
            ProviderEvent::ThinkingSignature("EqQBCgIYAhIM1gbcDa9GJwZA2b3h".into()),
            ProviderEvent::Saying("42".into()),
            ProviderEvent::Usage(Usage { input_tokens: 10, output_tokens: 30, ..Default::default() }),
        ]
    );
    let body = &server.requests()[0].body;
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
    assert_eq!(body["max_tokens"], json!(2048 + 8192));
}

#[tokio::test]
async fn a_redacted_thinking_block_is_kept_as_opaque_data() {
    let mut events =
        vec![start(10), block_start(0, json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}))];
    events.push(stop(0));
    events.extend([block_start(1, json!({"type": "text", "text": ""})), text(1, "ok"), stop(1)]);
    events.extend(end("end_turn", 5));
    let server = Server::start(vec![Reply::sse(&sse(&events))]).await;
    let (got, error) = collect(provider(&server, Some(2048)).fetch(request("q"))).await;
    assert_eq!(error, None);
    assert_eq!(got[0], ProviderEvent::RedactedThinking("EmwKAhgBEgy3va3pzix".into()));
    assert_eq!(got[1], ProviderEvent::Saying("ok".into()));
}

/// The first reply thinks, says a word and calls `read` twice (arguments streamed in
/// pieces); the second request must carry the thinking with its signature, the text, both
/// `tool_use` blocks, and both results in one user message.
#[tokio::test]
async fn a_tool_loop_sends_thinking_tool_use_and_results_back_in_anthropics_shape() {
    let mut first = vec![start(50), block_start(0, json!({"type": "thinking", "thinking": ""}))];
    first.push(delta(0, json!({"type": "thinking_delta", "thinking": "Read both."})));
    first.push(delta(0, json!({"type": "signature_delta", "signature": "sig-1"})));
    first.extend([stop(0), block_start(1, json!({"type": "text", "text": ""})), text(1, "Looking."), stop(1)]);
    for (index, id, path) in [(2, "toolu_01", "a.txt"), (3, "toolu_02", "b.txt")] {
        first.push(block_start(index, json!({"type": "tool_use", "id": id, "name": "read", "input": {}})));
        first.push(delta(index, json!({"type": "input_json_delta", "partial_json": ""})));
        first.push(delta(index, json!({"type": "input_json_delta", "partial_json": "{\"pa"})));
        first.push(delta(index, json!({"type": "input_json_delta", "partial_json": format!("th\": \"{path}\"}}")})));
        first.push(stop(index));
    }
    first.extend(end("tool_use", 40));
    let server = Server::start(vec![Reply::sse(&sse(&first)), Reply::sse(&text_reply(&["Both read."]))]).await;
    let (mut agent, output) = crate::support::agent(Arc::new(provider(&server, Some(1024))));
    let outcome = agent.turn("read a and b", CancellationToken::new()).await;
    assert_eq!((outcome.reply.as_str(), outcome.end), ("Both read.", TurnEnd::Done));
    let started: Vec<ToolCall> = output
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { call, .. } => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 2);
    assert_eq!(started[1].arguments, json!({"path": "b.txt"}));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1].body;
    assert_eq!(
        second["tools"],
        json!([{"name": "read", "description": "read a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(
        second["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "read a and b", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Read both.", "signature": "sig-1"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_01", "name": "read", "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "toolu_02", "name": "read", "input": {"path": "b.txt"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "{\"content\":\"text of a.txt\",\"path\":\"a.txt\",\"ok\":true}"},
                {"type": "tool_result", "tool_use_id": "toolu_02", "content": "{\"content\":\"text of b.txt\",\"path\":\"b.txt\",\"ok\":true}",
                 "cache_control": {"type": "ephemeral"}}]}
        ])
    );
}

fn in_stream_error() -> (&'static str, serde_json::Value) {
    ("error", json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
}

#[tokio::test]
async fn an_in_stream_error_after_shown_text_ends_the_turn_and_is_not_retried() {
    let body =
        sse(&[start(5), block_start(0, json!({"type": "text", "text": ""})), text(0, "Partial"), in_stream_error()]);
    let server = Server::start(vec![Reply::sse(&body), Reply::sse(&text_reply(&["never"]))]).await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(text_of(&events, false), "Partial");
    assert_eq!(error, Some(ProviderError::Api("anthropic: overloaded_error: Overloaded".into())));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_in_stream_overload_before_any_text_is_retried() {
    let body = sse(&[start(5), in_stream_error()]);
    let server = Server::start(vec![Reply::sse(&body), Reply::sse(&text_reply(&["ok"]))]).await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(error, None);
    assert!(
        matches!(&events[0], ProviderEvent::Retrying { attempt: 2, max: 4, reason, .. } if reason.contains("overloaded_error"))
    );
    assert_eq!(text_of(&events, false), "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn status_429_and_529_are_retried_honouring_retry_after_ms() {
    let server = Server::start(vec![
        Reply::status(429, r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#)
            .header("retry-after-ms", "20"),
        Reply::status(529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
        Reply::sse(&text_reply(&["fine"])),
    ])
    .await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(error, None);
    match &events[0] {
        ProviderEvent::Retrying { attempt, max, delay, reason } => {
            assert_eq!((*attempt, *max, *delay), (2, 4, Duration::from_millis(20)));
            assert_eq!(reason, "anthropic: 429 rate_limit_error: slow down");
        }
        other => panic!("expected a retry, got {other:?}"),
    }
    assert!(
        matches!(&events[1], ProviderEvent::Retrying { attempt: 3, reason, .. } if reason.contains("529 overloaded_error"))
    );
    assert_eq!(text_of(&events, false), "fine");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_give_up_after_the_last_attempt() {
    let overloaded =
        Reply::status(529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    let server = Server::start(vec![overloaded.clone(), overloaded.clone(), overloaded.clone(), overloaded]).await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(
        error.map(|e| e.to_string()),
        Some("anthropic: 529 overloaded_error: Overloaded (gave up after 4 attempts)".into())
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn status_401_fails_at_once_with_the_servers_words_and_never_the_key() {
    let server = Server::start(vec![Reply::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )])
    .await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert!(events.is_empty());
    let message = error.unwrap().to_string();
    assert_eq!(message, "anthropic: 401 authentication_error: invalid x-api-key");
    assert_eq!(server.requests().len(), 1);
    let debug = format!("{:?}", AnthropicConfig::new(&server.url, KEY, "m"));
    assert!(!debug.contains(KEY), "{debug}");
}

#[tokio::test]
async fn a_dropped_connection_mid_stream_is_a_clear_error() {
    let body = sse(&[start(5), block_start(0, json!({"type": "text", "text": ""})), text(0, "Half a")]);
    let server = Server::start(vec![Reply::sse(&body).dropped()]).await;
    let (events, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(text_of(&events, false), "Half a");
    let message = error.unwrap().to_string();
    assert!(message.starts_with("anthropic: the connection was lost mid-reply"), "{message}");
}

#[tokio::test]
async fn a_stream_that_ends_without_message_stop_is_an_error() {
    let body = sse(&[start(5), block_start(0, json!({"type": "text", "text": ""})), text(0, "Half")]);
    let server = Server::start(vec![Reply::sse(&body)]).await;
    let (_, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(
        error,
        Some(ProviderError::Protocol(
            "anthropic: the server closed the stream before the end of the reply (no message_stop)".into()
        ))
    );
}

#[tokio::test]
async fn a_200_that_is_not_an_event_stream_says_what_came_back() {
    let build: crate::support::BuildProvider = Box::new(|server| Arc::new(provider(server, None)));
    crate::support::bad_200s_say_what_came_back("anthropic", Framing::Sse, build).await;
    let server = Server::start(vec![Reply::sse(&sse(&[("message_stop", json!({"type": "message_stop"}))]))]).await;
    let (_, error) = collect(provider(&server, None).fetch(request("q"))).await;
    assert_eq!(
        error.unwrap().to_string(),
        "anthropic: the server ended the stream without a message (message_stop before message_start)"
    );
}

#[tokio::test]
async fn a_malformed_line_is_an_error_with_context() {
    let body =
        format!("{}event: content_block_delta\ndata: {{\"type\": \"content_block_delta\", \"ind\n\n", sse(&[start(5)]));
    let server = Server::start(vec![Reply::sse(&body)]).await;
    let (_, error) = collect(provider(&server, None).fetch(request("q"))).await;
    let message = error.unwrap().to_string();
    assert!(message.starts_with("anthropic: malformed stream at line 5: "), "{message}");
    assert!(message.contains("\"ind"), "{message}");
}

#[tokio::test]
async fn tool_arguments_that_are_not_json_are_an_error_naming_the_call() {
    let body = sse(&[
        start(5),
        block_start(0, json!({"type": "tool_use", "id": "toolu_9", "name": "read", "input": {}})),
        delta(0, json!({"type": "input_json_delta", "partial_json": "{\"path\": "})),
        stop(0),
    ]);
    let server = Server::start(vec![Reply::sse(&body)]).await;
    let (_, error) = collect(provider(&server, None).fetch(request("q"))).await;
    let message = error.unwrap().to_string();
    assert!(
        message.starts_with("anthropic: the arguments of tool call read (toolu_9) are not valid JSON"),
        "{message}"
    );
}

#[tokio::test]
async fn a_stalled_stream_times_out_and_dropping_the_stream_closes_the_connection() {
    let body = sse(&[start(5), block_start(0, json!({"type": "text", "text": ""})), text(0, "wait")]);
    let server = Server::start(vec![Reply::sse(&body).stalled(), Reply::sse(&body).stalled()]).await;
    let mut config = AnthropicConfig::new(&server.url, KEY, "m");
    config.http = fast_http();
    config.http.idle_timeout = Duration::from_secs(1);
    let (events, error) = collect(AnthropicProvider::new(config).unwrap().fetch(request("q"))).await;
    assert_eq!(text_of(&events, false), "wait");
    assert_eq!(error.unwrap().to_string(), "anthropic: the stream stalled: no data for 1s (ELELEM_IDLE_TIMEOUT_SECS)");
    // Cancelling: read the first piece, drop the stream, and the server sees the client go.
    let gone = server.client_gone.notified();
    tokio::pin!(gone);
    gone.as_mut().enable();
    let mut stream = provider(&server, None).fetch(request("q"));
    use futures::StreamExt;
    assert_eq!(stream.next().await.unwrap().unwrap(), ProviderEvent::Saying("wait".into()));
    drop(stream);
    tokio::time::timeout(Duration::from_secs(30), gone).await.expect("the connection was not closed");
}
