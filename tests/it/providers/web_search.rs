//! The provider's own web search (issue 31 point 3), through the real binary: off by
//! default; `--web-search` (or `ELELEM_WEB_SEARCH=1`) puts Anthropic's server tool into the
//! request and OpenAI's `web_search_options`; a recorded Anthropic stream with
//! `server_tool_use` + `web_search_tool_result` + cited text parses into a tool row and the
//! reply, with no tool run locally.

use crate::support::{Reply, Server};
use serde_json::{json, Value};
use std::io::Write;

/// Anthropic's documented shape of a reply that searched: the server tool's call (its
/// input streamed as JSON), the results block, then text with a citation.
fn searched_reply() -> Reply {
    let events = [
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [],
               "model": "claude-test", "stop_reason": null, "usage": {"input_tokens": 30, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"elelem rel"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "ease\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "title": "elelem 1.0", "url": "https://example.com/elelem", "encrypted_content": "EqgfCioI", "page_age": "April 30, 2025"}]}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": {"type": "web_search_result_location", "url": "https://example.com/elelem", "title": "elelem 1.0", "encrypted_index": "Eo8B", "cited_text": "1.0 is out"}}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Version 1.0 is out."}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 20, "server_tool_use": {"web_search_requests": 1}}}),
        json!({"type": "message_stop"}),
    ];
    let body: String =
        events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect();
    Reply::sse(&body)
}

fn run(args: &[&str], env: &[(&str, &str)]) -> (String, String, bool) {
    let home = tempfile::tempdir().unwrap();
    let mut command = crate::support::home::elelem(home.path(), home.path());
    command.args(args).env("XDG_DATA_HOME", home.path()).env("ELELEM_RETRY_ATTEMPTS", "1");
    command.env_remove("ELELEM_WEB_SEARCH").envs(env.iter().copied());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr), out.status.success())
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_gets_the_server_tool_only_when_asked_and_its_blocks_show_as_a_tool_row() {
    let server = Server::start(vec![searched_reply(), searched_reply(), searched_reply()]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let (stdout, stderr, ok) = run(&["ask", "--json", "-p", "anthropic", "--web-search", "what is new?"], &env);
    assert!(ok, "{stdout}{stderr}");
    let events: Vec<Value> = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let doing = events.iter().find(|e| e["type"] == "doing").expect(&stdout);
    assert_eq!(
        (doing["name"].as_str(), &doing["arguments"]),
        (Some("web_search"), &json!({"query": "elelem release"}))
    );
    let result = events.iter().find(|e| e["type"] == "result").expect(&stdout);
    assert_eq!(result["result"]["content"], "elelem 1.0 — https://example.com/elelem");
    assert!(stdout.contains("Version 1.0 is out."), "{stdout}");
    let tools = server.requests()[0].body["tools"].clone();
    assert_eq!(tools[0], json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}));
    // The cache breakpoint stays on the last of elelem's own tools.
    let last = tools.as_array().unwrap().last().unwrap();
    assert!(last.get("cache_control").is_some() && last["type"].is_null(), "{last}");

    let (stdout, stderr, ok) = run(&["ask", "-p", "anthropic", "what is new?"], &env);
    assert!(ok, "{stdout}{stderr}");
    assert!(!server.requests()[1].body["tools"].to_string().contains("web_search_20250305"));
    let env = [env[0], env[1], ("ELELEM_WEB_SEARCH", "1")];
    let (stdout, stderr, ok) = run(&["ask", "-p", "anthropic", "what is new?"], &env);
    assert!(ok, "{stdout}{stderr}");
    assert!(server.requests()[2].body["tools"].to_string().contains("web_search_20250305"));
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_gets_web_search_options_only_when_asked() {
    let reply = || {
        Reply::sse(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":null}]}\n\n\
             data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
        )
    };
    let server = Server::start(vec![reply(), reply()]).await;
    let base = format!("{}/v1", server.url);
    let env = [("OPENAI_BASE_URL", base.as_str()), ("OPENAI_API_KEY", "sk-test-0123456789")];
    let (stdout, stderr, ok) = run(&["ask", "-p", "openai", "--web-search", "hi"], &env);
    assert!(ok, "{stdout}{stderr}");
    run(&["ask", "-p", "openai", "hi"], &env);
    let requests = server.requests();
    assert_eq!(requests[0].body["web_search_options"], json!({}));
    assert!(requests[1].body.get("web_search_options").is_none(), "{}", requests[1].body);
}
