//! OpenAI Chat Completions over real HTTP: a local server replays the documented SSE chunk
//! stream byte for byte and records what elelem sent.

use crate::support::{collect, fast_http, text_of, Reply, Server};
use elelem::agent::output::TurnEnd;
use elelem::protocol::Message;
use elelem::protocol::Usage;
use elelem::protocol::{Provider, ProviderEvent, Request};
use elelem::providers::frame::Framing;
use elelem::providers::openai::{OpenAiConfig, OpenAiProvider};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-openai-test-0123456789";

fn provider(server: &Server) -> OpenAiProvider {
    provider_at(&server.url)
}

/// The provider for the server at `url` (`http://host:port`).
fn provider_at(url: &str) -> OpenAiProvider {
    let mut config = OpenAiConfig::new(&format!("{url}/v1"), Some(KEY), "gpt-test");
    config.http = fast_http();
    OpenAiProvider::new(config).unwrap()
}

fn request() -> Request {
    Request { messages: vec![Message::system("SYSTEM"), Message::user("hi")], ..Request::default() }
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn usage(prompt: u64, completion: u64) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [],
           "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
}

fn sse(chunks: &[Value], done: bool) -> String {
    let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    body
}

fn text_reply(words: &[&str]) -> String {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(words.iter().map(|w| chunk(json!({"content": w}), None)));
    chunks.push(chunk(json!({}), Some("stop")));
    chunks.push(usage(9, 3));
    sse(&chunks, true)
}

#[tokio::test]
async fn streams_text_reasoning_and_usage_and_sends_the_documented_request() {
    let mut chunks = vec![chunk(json!({"role": "assistant", "reasoning_content": "Hmm, "}), None)];
    chunks.push(chunk(json!({"reasoning": "greet."}), None));
    chunks.push(chunk(json!({"content": "Hi ✓"}), None));
    chunks.push(chunk(json!({}), Some("stop")));
    chunks.push(usage(9, 3));
    let server = Server::start(vec![Reply::sse(&sse(&chunks, true))]).await;
    let (events, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error, None);
    assert_eq!(text_of(&events, true), "Hmm, greet.");
    assert_eq!(text_of(&events, false), "Hi ✓");
    assert_eq!(
        events.last(),
        Some(&ProviderEvent::Usage(Usage { input_tokens: 9, output_tokens: 3, ..Default::default() }))
    );
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(
        sent.body,
        json!({"model": "gpt-test", "stream": true, "stream_options": {"include_usage": true},
               "messages": [{"role": "system", "content": "SYSTEM"}, {"role": "user", "content": "hi"}]})
    );
}

/// Two tool calls streamed interleaved by index; the second request carries them as
/// `tool_calls` with string arguments and the results as `tool` messages.
#[tokio::test]
async fn a_tool_loop_assembles_calls_by_index_and_sends_them_back_in_openais_shape() {
    let call = |index: u64, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut c = json!({"index": index, "function": {"arguments": args}});
        if let Some(id) = id {
            c["id"] = json!(id);
            c["type"] = json!("function");
        }
        if let Some(name) = name {
            c["function"]["name"] = json!(name);
        }
        chunk(json!({"tool_calls": [c]}), None)
    };
    let chunks = vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        call(0, Some("call_a"), Some("read"), ""),
        call(1, Some("call_b"), Some("read"), "{\"path\":"),
        call(0, None, None, "{\"path\": \"a.txt\"}"),
        call(1, None, None, " \"b.txt\"}"),
        chunk(json!({}), Some("tool_calls")),
        usage(20, 10),
    ];
    let server = Server::start(vec![Reply::sse(&sse(&chunks, true)), Reply::sse(&text_reply(&["Done."]))]).await;
    let (mut agent, _output) = crate::support::agent(Arc::new(provider(&server)));
    let outcome = agent.turn("read a and b", CancellationToken::new()).await;
    assert_eq!((outcome.reply.as_str(), outcome.end), ("Done.", TurnEnd::Done));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1].body;
    assert_eq!(
        second["tools"],
        json!([{"type": "function", "function": {"name": "read", "description": "read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}])
    );
    // The agent's system prompt as rendered: the template, then the mode and the date.
    let system = second["messages"][0]["content"].clone();
    assert!(system.as_str().is_some_and(|s| s.starts_with("SYSTEM\n\nMode: ")), "{system}");
    assert_eq!(
        second["messages"],
        json!([
            {"role": "system", "content": system},
            {"role": "user", "content": "read a and b"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}},
                {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b.txt\"}"}}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "{\"content\":\"text of a.txt\",\"path\":\"a.txt\",\"ok\":true}"},
            {"role": "tool", "tool_call_id": "call_b", "content": "{\"content\":\"text of b.txt\",\"path\":\"b.txt\",\"ok\":true}"}
        ])
    );
}

#[tokio::test]
async fn status_429_is_retried_then_succeeds() {
    let server = Server::start(vec![
        Reply::status(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "0"),
        Reply::sse(&text_reply(&["ok"])),
    ])
    .await;
    let (events, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error, None);
    assert!(
        matches!(&events[0], ProviderEvent::Retrying { attempt: 2, max: 4, reason, .. } if reason == "openai: 429 requests: Rate limit reached"),
        "{events:?}"
    );
    assert_eq!(text_of(&events, false), "ok");
}

#[tokio::test]
async fn a_connection_reset_before_any_answer_is_retried_then_succeeds() {
    let server = Server::start(vec![Reply::reset(), Reply::sse(&text_reply(&["ok"]))]).await;
    let (events, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error, None, "{events:?}");
    assert!(
        matches!(&events[0], ProviderEvent::Retrying { attempt: 2, max: 4, reason, .. } if reason.contains("request failed")),
        "{events:?}"
    );
    assert_eq!(text_of(&events, false), "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_server_that_is_not_there_fails_at_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (events, error) = collect(provider_at(&url).fetch(request())).await;
    assert!(events.iter().all(|e| !matches!(e, ProviderEvent::Retrying { .. })), "{events:?}");
    assert!(error.unwrap().to_string().contains("cannot connect to"));
}

#[tokio::test]
async fn status_401_fails_at_once_and_never_shows_the_key() {
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = Server::start(vec![Reply::status(401, &body)]).await;
    let (_, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error.unwrap().to_string(), "openai: 401 invalid_request_error: Incorrect API key provided: ***.");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_in_stream_error_chunk_is_an_error() {
    let body = format!(
        "{}data: {}\n\n",
        sse(&[chunk(json!({"content": "a"}), None)], false),
        json!({"error": {"message": "upstream failed", "type": "server_error"}})
    );
    let server = Server::start(vec![Reply::sse(&body)]).await;
    let (_, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error.unwrap().to_string(), "openai: server_error: upstream failed");
}

#[tokio::test]
async fn a_dropped_connection_and_a_missing_done_are_errors() {
    let partial = sse(&[chunk(json!({"content": "Half"}), None)], false);
    let server = Server::start(vec![Reply::sse(&partial).dropped(), Reply::sse(&partial)]).await;
    let (events, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(text_of(&events, false), "Half");
    assert!(error.unwrap().to_string().starts_with("openai: the connection was lost mid-reply"));
    let (_, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(
        error.unwrap().to_string(),
        "openai: the server closed the stream before the end of the reply (no finish_reason or [DONE])"
    );
}

#[tokio::test]
async fn a_200_that_is_not_an_event_stream_says_what_came_back() {
    let build: crate::support::BuildProvider = Box::new(|server| Arc::new(provider(server)));
    crate::support::bad_200s_say_what_came_back("openai", Framing::Sse, build).await;
    let server = Server::start(vec![
        Reply::stream("application/json", r#"{"error": "quota exceeded"}"#),
        Reply::sse("data: [DONE]\n\n"),
    ])
    .await;
    let (_, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(
        error.unwrap().to_string(),
        r#"openai: the server closed the stream without any event (HTTP 200, content-type "application/json"): "{\"error\": \"quota exceeded\"}""#
    );
    let (_, error) = collect(provider(&server).fetch(request())).await;
    assert_eq!(error.unwrap().to_string(), "openai: the server ended the stream without any reply (only [DONE])");
}

#[tokio::test]
async fn a_password_in_the_base_url_and_the_key_never_show_in_errors_or_debug() {
    let server = Server::start(vec![
        Reply::status(500, &format!("upstream http://me:hunter2@proxy.local/v1 rejected {KEY}")),
        Reply::sse(&format!("data: {}\n\n", json!({"error": {"message": format!("bad key {KEY}")}}))),
    ])
    .await;
    let with_password = |url: &str| {
        let url = url.replace("http://", "http://me:hunter2@");
        let mut config = OpenAiConfig::new(&format!("{url}/v1"), Some(KEY), "gpt-test");
        config.http = fast_http();
        config.http.retry.max_attempts = 1;
        config
    };
    let config = with_password(&server.url);
    let debug = format!("{config:?}");
    assert!(!debug.contains("hunter2") && !debug.contains(KEY), "{debug}");
    let p = OpenAiProvider::new(config).unwrap();
    let (_, error) = collect(p.fetch(request())).await;
    assert_eq!(error.unwrap().to_string(), "openai: 500 upstream http://***@proxy.local/v1 rejected ***");
    let (_, error) = collect(p.fetch(request())).await;
    assert_eq!(error.unwrap().to_string(), "openai: bad key ***");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let p = OpenAiProvider::new(with_password(&format!("http://{closed}"))).unwrap();
    let (_, error) = collect(p.fetch(request())).await;
    let message = error.unwrap().to_string();
    assert!(
        message.starts_with(&format!("openai: cannot connect to http://***@{closed}/v1/chat/completions")),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "{message}");
}

#[tokio::test]
async fn a_malformed_chunk_and_bad_tool_arguments_are_errors_with_context() {
    let bad_args = sse(
        &[
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
            "function": {"name": "read", "arguments": "{\"path\""}}]}),
                None,
            ),
            chunk(json!({}), Some("tool_calls")),
        ],
        true,
    );
    let server = Server::start(vec![Reply::sse("data: {\"choices\": [\n\n"), Reply::sse(&bad_args)]).await;
    let (_, error) = collect(provider(&server).fetch(request())).await;
    let message = error.unwrap().to_string();
    assert!(message.starts_with("openai: malformed stream at line 1: "), "{message}");
    let (_, error) = collect(provider(&server).fetch(request())).await;
    let message = error.unwrap().to_string();
    assert!(message.starts_with("openai: the arguments of tool call read (call_x) are not valid JSON"), "{message}");
}

#[tokio::test]
async fn a_compatible_server_without_a_key_gets_no_authorization_header() {
    let server = Server::start(vec![Reply::sse(&text_reply(&["hi"]))]).await;
    let mut config = OpenAiConfig::new(&format!("{}/v1/", server.url), None, "local");
    config.http = fast_http();
    let (_, error) = collect(OpenAiProvider::new(config).unwrap().fetch(request())).await;
    assert_eq!(error, None);
    assert_eq!(server.requests()[0].header("authorization"), None);
    assert_eq!(server.requests()[0].path, "/v1/chat/completions");
}
