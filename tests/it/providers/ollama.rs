//! Ollama over real HTTP: a local server replays the documented `/api/chat` NDJSON stream
//! byte for byte and records what elelem sent.

use crate::support::{collect, fast_http, text_of, Reply, Server};
use elelem::agent::output::TurnEnd;
use elelem::protocol::Message;
use elelem::protocol::Usage;
use elelem::protocol::{Provider, ProviderEvent, Request};
use elelem::providers::frame::Framing;
use elelem::providers::ollama::{OllamaConfig, OllamaProvider};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn provider(server: &Server, think: bool) -> OllamaProvider {
    let mut config = OllamaConfig::new(&server.url, "llama-test");
    config.http = fast_http();
    config.think = think;
    OllamaProvider::new(config).unwrap()
}

fn request() -> Request {
    Request { messages: vec![Message::system("SYSTEM"), Message::user("hi")], ..Request::default() }
}

fn line(message: Value) -> String {
    format!(
        "{}\n",
        json!({"model": "llama-test", "created_at": "2025-01-01T00:00:00Z", "message": message, "done": false})
    )
}

fn done() -> String {
    format!(
        "{}\n",
        json!({"model": "llama-test", "created_at": "2025-01-01T00:00:01Z", "message": {"role": "assistant", "content": ""},
               "done": true, "done_reason": "stop", "total_duration": 1, "prompt_eval_count": 17, "eval_count": 4})
    )
}

fn text_reply(words: &[&str]) -> String {
    let mut body: String = words.iter().map(|w| line(json!({"role": "assistant", "content": w}))).collect();
    body.push_str(&done());
    body
}

#[tokio::test]
async fn streams_thinking_text_and_usage_and_sends_the_documented_request() {
    let body = [
        line(json!({"role": "assistant", "content": "", "thinking": "Short "})),
        line(json!({"role": "assistant", "content": "", "thinking": "answer."})),
        line(json!({"role": "assistant", "content": "Héllo"})),
        done(),
    ]
    .concat();
    let server = Server::start(vec![Reply::ndjson(&body)]).await;
    let (events, error) = collect(provider(&server, true).fetch(request())).await;
    assert_eq!(error, None);
    assert_eq!(text_of(&events, true), "Short answer.");
    assert_eq!(text_of(&events, false), "Héllo");
    assert_eq!(
        events.last(),
        Some(&ProviderEvent::Usage(Usage { input_tokens: 17, output_tokens: 4, ..Default::default() }))
    );
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/api/chat");
    assert_eq!(
        sent.body,
        json!({"model": "llama-test", "stream": true, "think": true, "keep_alive": "30m",
               "messages": [{"role": "system", "content": "SYSTEM"}, {"role": "user", "content": "hi"}]})
    );
}

#[tokio::test]
async fn a_tool_loop_sends_object_arguments_and_tool_results_back() {
    let first = [
        line(json!({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read", "arguments": {"path": "a.txt"}}},
            {"function": {"name": "read", "arguments": {"path": "b.txt"}}}]})),
        done(),
    ]
    .concat();
    let server = Server::start(vec![Reply::ndjson(&first), Reply::ndjson(&text_reply(&["Done."]))]).await;
    let (mut agent, _output) = crate::support::agent(Arc::new(provider(&server, false)));
    let outcome = agent.turn("read a and b", CancellationToken::new()).await;
    assert_eq!((outcome.reply.as_str(), outcome.end), ("Done.", TurnEnd::Done));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1].body;
    assert_eq!(second.get("think"), None);
    assert_eq!(second["tools"][0]["function"]["name"], json!("read"));
    // The agent's system prompt as rendered: the template, then the mode and the date.
    let system = second["messages"][0]["content"].clone();
    assert!(system.as_str().is_some_and(|s| s.starts_with("SYSTEM\n\nMode: ")), "{system}");
    assert_eq!(
        second["messages"],
        json!([
            {"role": "system", "content": system},
            {"role": "user", "content": "read a and b"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "read", "arguments": {"path": "a.txt"}}},
                {"function": {"name": "read", "arguments": {"path": "b.txt"}}}]},
            {"role": "tool", "content": "{\"content\":\"text of a.txt\",\"path\":\"a.txt\",\"ok\":true}", "tool_name": "read"},
            {"role": "tool", "content": "{\"content\":\"text of b.txt\",\"path\":\"b.txt\",\"ok\":true}", "tool_name": "read"}
        ])
    );
}

#[tokio::test]
async fn a_200_that_is_not_an_ndjson_stream_says_what_came_back() {
    let build: crate::support::BuildProvider = Box::new(|server| Arc::new(provider(server, false)));
    crate::support::bad_200s_say_what_came_back("ollama", Framing::Ndjson, build).await;
}

#[tokio::test]
async fn errors_statuses_drops_and_malformed_lines() {
    let partial = line(json!({"role": "assistant", "content": "Half"}));
    let server = Server::start(vec![
        Reply::status(404, r#"{"error":"model \"llama-test\" not found, try pulling it first"}"#),
        Reply::ndjson(&format!("{partial}{}\n", json!({"error": "out of memory"}))),
        Reply::ndjson(&partial).dropped(),
        Reply::ndjson(&partial),
        Reply::ndjson(&format!("{partial}{{\"message\": oops}}\n")),
        Reply::status(503, r#"{"error":"server busy"}"#),
        Reply::ndjson(&text_reply(&["ok"])),
    ])
    .await;
    let p = provider(&server, false);
    let message = |e: Option<elelem::protocol::ProviderError>| e.unwrap().to_string();
    let (_, error) = collect(p.fetch(request())).await;
    assert_eq!(message(error), "ollama: 404 model \"llama-test\" not found, try pulling it first");
    let (events, error) = collect(p.fetch(request())).await;
    assert_eq!(text_of(&events, false), "Half");
    assert_eq!(message(error), "ollama: out of memory");
    let (_, error) = collect(p.fetch(request())).await;
    assert!(message(error).starts_with("ollama: the connection was lost mid-reply"));
    let (_, error) = collect(p.fetch(request())).await;
    assert_eq!(message(error), "ollama: the server closed the stream before the end of the reply (no done: true)");
    let (_, error) = collect(p.fetch(request())).await;
    assert!(message(error).starts_with("ollama: malformed stream at line 2: "));
    let (events, error) = collect(p.fetch(request())).await;
    assert_eq!(error, None);
    assert!(matches!(&events[0], ProviderEvent::Retrying { reason, .. } if reason == "ollama: 503 server busy"));
    assert_eq!(text_of(&events, false), "ok");
}
