//! `--effort` and `/effort` through the real binary, against local servers that record
//! each request: OpenAI gets `reasoning_effort`, Anthropic a thinking budget, Ollama
//! `think` as the level; nothing is sent without it; `/effort` changes the next request
//! and refuses an unknown level; the flag refuses one too.

use crate::support::{Reply, Server};
use serde_json::{json, Value};
use std::io::Write;

fn openai_reply() -> Reply {
    Reply::sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":null}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    )
}

fn anthropic_reply() -> Reply {
    Reply::anthropic_text("done")
}

fn ollama_reply() -> Reply {
    let line = |message: Value, done: bool| format!("{}\n", json!({"model": "m", "message": message, "done": done}));
    let body = line(json!({"role": "assistant", "content": "done"}), false)
        + &line(json!({"role": "assistant", "content": ""}), true);
    Reply::ndjson(&body)
}

/// `elelem ARGS` with `env`, `stdin` written; stdout, stderr and success.
fn run(args: &[&str], env: &[(&str, &str)], stdin: &str) -> (String, String, bool) {
    let home = tempfile::tempdir().unwrap();
    let mut command = crate::support::home::elelem(home.path(), home.path());
    command.args(args).env("XDG_DATA_HOME", home.path()).env("ELELEM_RETRY_ATTEMPTS", "1").env_remove("ELELEM_EFFORT");
    command.env_remove("ELELEM_THINKING").envs(env.iter().copied());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_gets_reasoning_effort_only_when_asked() {
    let server = Server::start(vec![openai_reply(), openai_reply()]).await;
    let base = format!("{}/v1", server.url);
    let env = [("OPENAI_BASE_URL", base.as_str()), ("OPENAI_API_KEY", "sk-test-0123456789")];
    let (stdout, stderr, ok) = run(&["ask", "-p", "openai", "--effort", "high", "hi"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    run(&["ask", "-p", "openai", "hi"], &env, "");
    let requests = server.requests();
    assert_eq!(requests[0].body["reasoning_effort"], "high");
    assert!(requests[1].body.get("reasoning_effort").is_none(), "{}", requests[1].body);
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_gets_a_thinking_budget_and_ollama_think_as_the_level() {
    let server = Server::start(vec![anthropic_reply()]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let (stdout, stderr, ok) = run(&["ask", "-p", "anthropic", "--effort", "low", "hi"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    let body = &server.requests()[0].body;
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
    assert!(body["max_tokens"].as_u64().unwrap() > 2048, "{body}");

    let server = Server::start(vec![ollama_reply()]).await;
    let env = [("OLLAMA_HOST", server.url.as_str())];
    let (stdout, stderr, ok) = run(&["ask", "-p", "ollama", "--effort", "medium", "hi"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(server.requests()[0].body["think"], "medium");
}

#[tokio::test(flavor = "multi_thread")]
async fn slash_effort_changes_the_next_request_and_refuses_an_unknown_level() {
    let server = Server::start(vec![openai_reply(), openai_reply()]).await;
    let base = format!("{}/v1", server.url);
    let env = [("OPENAI_BASE_URL", base.as_str()), ("OPENAI_API_KEY", "sk-test-0123456789")];
    let (stdout, stderr, _) = run(
        &["chat", "--plain", "-p", "openai"],
        &env,
        "/effort\n/effort extreme\n/effort low\nfirst\n/effort off\nsecond\n",
    );
    assert!(stdout.contains("Effort: the model's default"), "{stdout}{stderr}");
    let both = format!("{stdout}{stderr}");
    assert!(both.contains("unknown effort \"extreme\": low, medium or high or off"), "{both}");
    assert!(stdout.contains("Effort: low for the next requests"), "{stdout}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{both}");
    assert_eq!(requests[0].body["reasoning_effort"], "low");
    assert!(requests[1].body.get("reasoning_effort").is_none(), "off sends nothing");
}

#[test]
fn the_flag_refuses_an_unknown_level() {
    let (_, stderr, ok) = run(&["ask", "--effort", "max", "hi"], &[], "");
    assert!(!ok);
    assert!(stderr.contains("expected low, medium or high"), "{stderr}");
}
