//! Prompt caching and its figures through the real binary, against local servers that
//! record every request: Anthropic requests carry `cache_control` breakpoints (tools,
//! system, the newest message, where the previous request ended; never more than four;
//! `ELELEM_CACHE_TTL=1h` and `off`), the cache figures each API reports reach `ask --json`'s
//! usage line, OpenAI gets a `prompt_cache_key` only when asked for a server other than
//! api.openai.com, and `/cost` shows the session's cached and uncached tokens with a price.

use crate::support::{Reply, Server};
use serde_json::{json, Value};

fn sse(events: &[(&str, Value)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

/// An Anthropic reply: a tool call of `read` on README.md, or a text, with cache figures.
fn anthropic_reply(tool: bool, read: u64, written: u64) -> Reply {
    let start = json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
        "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
        "usage": {"input_tokens": 10, "cache_read_input_tokens": read, "cache_creation_input_tokens": written,
                  "output_tokens": 1}}});
    let mut events = vec![("message_start", start)];
    if tool {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"README.md\"}"}}),
        ));
    } else {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}}),
        ));
    }
    events.push(("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
    let reason = if tool { "tool_use" } else { "end_turn" };
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    Reply::sse(&sse(&events))
}

/// `ask --json -p PROVIDER` with `env`, in a fresh project with a README; the JSON lines.
async fn ask(provider: &str, env: &[(&str, &str)]) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("README.md"), "# demo\n").unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"));
    command.args(["ask", "--json", "-p", provider, "what is this?"]).current_dir(home.path());
    command.env("HOME", home.path()).env("XDG_DATA_HOME", home.path()).env("ELELEM_RETRY_ATTEMPTS", "1");
    for name in
        ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ELELEM_CACHE_TTL", "ELELEM_PROMPT_CACHE_KEY", "ELELEM_STUB_SCRIPT"]
    {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    let output = command.stdin(std::process::Stdio::null()).output().await.unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every `cache_control` value in `body`, in document order.
fn breakpoints(body: &Value, found: &mut Vec<Value>) {
    match body {
        Value::Object(map) => {
            if let Some(control) = map.get("cache_control") {
                found.push(control.clone());
            }
            map.values().for_each(|v| breakpoints(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| breakpoints(v, found)),
        _ => {}
    }
}

fn marks(body: &Value) -> Vec<Value> {
    let mut found = Vec::new();
    breakpoints(body, &mut found);
    found
}

#[tokio::test]
async fn anthropic_requests_carry_breakpoints_and_the_cache_figures_reach_ask_json() {
    let server = Server::start(vec![anthropic_reply(true, 0, 1200), anthropic_reply(false, 1200, 40)]).await;
    let lines = ask("anthropic", &[("ANTHROPIC_BASE_URL", &server.url), ("ANTHROPIC_API_KEY", "sk-ant-test")]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let body = &request.body;
        let found = marks(body);
        assert!(found.len() <= 4, "{} breakpoints", found.len());
        assert!(found.iter().all(|m| *m == json!({"type": "ephemeral"})), "{found:?}");
        // Tools and system are cached; the newest message ends with a breakpoint.
        let tools = body["tools"].as_array().unwrap();
        assert!(tools.last().unwrap().get("cache_control").is_some());
        assert!(body["system"][0].get("cache_control").is_some(), "{}", body["system"]);
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap()["content"].as_array().unwrap().last().unwrap().clone();
        assert!(last.get("cache_control").is_some(), "{last}");
    }
    // The second request also marks where the first one ended (the prompt), so it reads it.
    let second = &requests[1].body["messages"];
    assert_eq!(second[0]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(marks(&requests[1].body).len(), 4);
    // The two requests share their prefix byte for byte up to the first message's end.
    assert_eq!(requests[0].body["tools"], requests[1].body["tools"]);
    assert_eq!(requests[0].body["system"], requests[1].body["system"]);
    let usage: Vec<&Value> = lines.iter().filter(|l| l["type"] == "usage").collect();
    assert_eq!(usage.len(), 2);
    assert_eq!(usage[0]["cache_write_tokens"], 1200);
    assert_eq!(usage[0]["input_tokens"], 1210);
    assert_eq!(usage[1]["cache_read_tokens"], 1200);
    assert_eq!(usage[1]["cache_write_tokens"], 40);
    assert_eq!(usage[1]["input_tokens"], 1250);
}

#[tokio::test]
async fn the_one_hour_cache_and_no_cache_are_asked_for_as_set() {
    let server = Server::start(vec![anthropic_reply(false, 0, 0)]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "k"), ("ELELEM_CACHE_TTL", "1h")];
    ask("anthropic", &env).await;
    let hour = marks(&server.requests()[0].body);
    assert!(!hour.is_empty() && hour.iter().all(|m| *m == json!({"type": "ephemeral", "ttl": "1h"})), "{hour:?}");

    let server = Server::start(vec![anthropic_reply(false, 0, 0)]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "k"), ("ELELEM_CACHE_TTL", "off")];
    ask("anthropic", &env).await;
    let body = &server.requests()[0].body;
    assert!(marks(body).is_empty(), "{body}");
    assert!(body["system"].is_string(), "without caching the system prompt stays a string");
}

fn openai_reply() -> Reply {
    Reply::sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":null}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
         data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2000,\"completion_tokens\":7,\
         \"prompt_tokens_details\":{\"cached_tokens\":1536}}}\n\ndata: [DONE]\n\n",
    )
}

#[tokio::test]
async fn openai_reports_cached_tokens_and_gets_a_cache_key_only_when_asked() {
    let server = Server::start(vec![openai_reply(), openai_reply()]).await;
    let env = [("OPENAI_BASE_URL", server.url.as_str()), ("OPENAI_API_KEY", "sk-test")];
    let lines = ask("openai", &env).await;
    let usage = lines.iter().find(|l| l["type"] == "usage").unwrap();
    assert_eq!((usage["input_tokens"].as_u64(), usage["cache_read_tokens"].as_u64()), (Some(2000), Some(1536)));
    assert!(server.requests()[0].body.get("prompt_cache_key").is_none(), "not sent to another server unasked");
    let asked = [env[0], env[1], ("ELELEM_PROMPT_CACHE_KEY", "on")];
    ask("openai", &asked).await;
    let key = server.requests()[1].body["prompt_cache_key"].as_str().unwrap_or_default().to_string();
    assert!(key.starts_with("elelem-"), "{key:?}");
}

#[test]
fn cost_shows_cached_and_uncached_tokens_and_a_price_from_the_users_table() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".agents")).unwrap();
    std::fs::write(
        home.path().join(".agents/prices.json"),
        r#"{"stub": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}}"#,
    )
    .unwrap();
    let script = home.path().join("script.json");
    let steps = json!([{"events": [
        {"type": "saying", "text": "hi"},
        {"type": "usage", "input_tokens": 100000, "output_tokens": 2000, "cache_read_tokens": 90000,
         "cache_write_tokens": 8000}
    ]}]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "-p", "stub"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(
            std::fs::File::open({
                let input = home.path().join("input");
                std::fs::write(&input, "hello\n/cost\n").unwrap();
                input
            })
            .unwrap(),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("turn ↑100k (90% cached) ↓2.0k"), "{stdout}");
    assert!(stdout.contains("2,000 uncached · 8,000 written to cache · 90,000 read from cache"), "{stdout}");
    assert!(stdout.contains("90% of input read from cache"), "{stdout}");
    assert!(stdout.contains("≈ $0.0930"), "{stdout}");
}
