//! A model response with many tool calls, through the real binary against a local server
//! for each wire (OpenAI, Anthropic, Ollama): up to `MAX_TOOL_CALLS` (256) calls all run and
//! the turn goes on; a response asking for more is refused whole with an error that says so,
//! quickly (10,000 calls used to take minutes of CPU: one context copy per call).

use crate::support::{Reply, Server};
use elelem::agent::agent::MAX_TOOL_CALLS;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
enum Wire {
    OpenAi,
    Anthropic,
    Ollama,
}

const WIRES: [Wire; 3] = [Wire::OpenAi, Wire::Anthropic, Wire::Ollama];

fn data(v: Value) -> String {
    format!("data: {v}\n\n")
}

fn named(name: &str, v: Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// One response asking for `count` calls of the unknown tool `nope`, written in a burst.
fn calls(wire: Wire, count: usize) -> Reply {
    let mut body = String::new();
    match wire {
        Wire::OpenAi => {
            for i in 0..count {
                body +=
                    &data(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": format!("c{i}"),
                    "type": "function", "function": {"name": "nope", "arguments": format!("{{\"n\":{i}}}")}}]}}]}));
            }
            body += &data(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
            body += "data: [DONE]\n\n";
        }
        Wire::Anthropic => {
            body += &named(
                "message_start",
                json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                    "model": "m", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            );
            for i in 0..count {
                body += &named(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i,
                        "content_block": {"type": "tool_use", "id": format!("c{i}"), "name": "nope", "input": {}}}),
                );
                body += &named(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": format!("{{\"n\":{i}}}")}}),
                );
                body += &named("content_block_stop", json!({"type": "content_block_stop", "index": i}));
            }
            body += &named(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}}),
            );
            body += &named("message_stop", json!({"type": "message_stop"}));
        }
        Wire::Ollama => {
            let calls: Vec<Value> = (0..count)
                .map(|i| json!({"id": format!("c{i}"), "function": {"name": "nope", "arguments": {"n": i}}}))
                .collect();
            body += &format!(
                "{}\n",
                json!({"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": calls}, "done": false})
            );
            body +=
                &format!("{}\n", json!({"model": "m", "message": {"role": "assistant", "content": ""}, "done": true}));
        }
    }
    reply(wire, &body)
}

/// A response saying `done`.
fn done(wire: Wire) -> Reply {
    let body = match wire {
        Wire::OpenAi => {
            data(json!({"choices": [{"index": 0, "delta": {"content": "done"}, "finish_reason": "stop"}]}))
                + "data: [DONE]\n\n"
        }
        Wire::Anthropic => [
            named(
                "message_start",
                json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                    "model": "m", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
            ),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "done"}}),
            ),
            named("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            named("message_stop", json!({"type": "message_stop"})),
        ]
        .concat(),
        Wire::Ollama => {
            format!("{}\n", json!({"model": "m", "message": {"role": "assistant", "content": "done"}, "done": true}))
        }
    };
    reply(wire, &body)
}

fn reply(wire: Wire, body: &str) -> Reply {
    match wire {
        Wire::Ollama => Reply::ndjson(body),
        _ => Reply::sse(body),
    }
    .burst(64 * 1024)
}

/// `elelem ask --json` on `wire` against `server`: the JSON lines and the exit code.
async fn ask(wire: Wire, server: &Server) -> (Vec<Value>, Option<i32>) {
    let home = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"));
    let provider = match wire {
        Wire::OpenAi => command.env("OPENAI_BASE_URL", format!("{}/v1", server.url)).env("OPENAI_API_KEY", "sk-test"),
        Wire::Anthropic => command.env("ANTHROPIC_BASE_URL", &server.url).env("ANTHROPIC_API_KEY", "sk-ant-test"),
        Wire::Ollama => command.env("OLLAMA_HOST", &server.url),
    };
    let name = format!("{wire:?}").to_lowercase();
    provider.args(["ask", "--json", "-p", &name, "go"]);
    command.current_dir(home.path()).env("HOME", home.path()).env("XDG_DATA_HOME", home.path());
    command.env("ELELEM_RETRY_ATTEMPTS", "1").env_remove("ELELEM_STUB_SCRIPT").stdin(std::process::Stdio::null());
    command.kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(90), command.output())
        .await
        .unwrap_or_else(|_| panic!("{wire:?}: ask did not finish in 90 s"))
        .unwrap();
    let lines = String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (lines, output.status.code())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_with_the_most_calls_allowed_runs_them_all() {
    for wire in WIRES {
        let server = Server::start(vec![calls(wire, MAX_TOOL_CALLS), done(wire)]).await;
        let started = Instant::now();
        let (lines, code) = ask(wire, &server).await;
        let took = started.elapsed();
        eprintln!("{wire:?}: {MAX_TOOL_CALLS} calls in {took:?}");
        let results: Vec<&Value> = lines.iter().filter(|l| l["type"] == "result").collect();
        assert_eq!(results.len(), MAX_TOOL_CALLS, "{wire:?}");
        assert_eq!(results[MAX_TOOL_CALLS - 1]["id"], format!("c{}", MAX_TOOL_CALLS - 1), "{wire:?}");
        assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": "done"}), "{wire:?}");
        assert_eq!(code, Some(0), "{wire:?}");
        let second = &server.requests()[1].body;
        let tool_messages = second["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
        match wire {
            // Ollama's messages carry no call ids: one tool message per result.
            Wire::Ollama => assert_eq!(tool_messages, MAX_TOOL_CALLS, "every result went back"),
            _ => assert!(second.to_string().contains(&format!("c{}", MAX_TOOL_CALLS - 1)), "{wire:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_with_too_many_calls_is_refused_quickly_and_none_run() {
    for wire in WIRES {
        for count in [MAX_TOOL_CALLS + 1, 10_000] {
            let server = Server::start(vec![calls(wire, count), done(wire)]).await;
            let started = Instant::now();
            let (lines, code) = ask(wire, &server).await;
            let took = started.elapsed();
            eprintln!("{wire:?}: {count} calls refused in {took:?}");
            assert!(took < Duration::from_secs(30), "{wire:?}: {count} calls took {took:?}");
            let message =
                format!("the model asked for more than {MAX_TOOL_CALLS} tool calls in one response; none of them ran");
            assert!(lines.contains(&json!({"type": "error", "message": message})), "{wire:?}: {lines:?}");
            assert!(!lines.iter().any(|l| l["type"] == "result"), "{wire:?}: a call ran");
            assert_eq!(code, Some(1), "{wire:?}");
            assert_eq!(server.requests().len(), 1, "{wire:?}: the model was not asked again");
        }
    }
}
