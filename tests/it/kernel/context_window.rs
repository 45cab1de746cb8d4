//! A turn never outgrows the model's context window, through the real binary against a
//! local OpenAI-protocol server that records every request: with `ELELEM_CONTEXT_WINDOW`
//! set small, a turn that reads one big file per step goes on to its answer, older results
//! of the turn are cut (and said so), and no request the server sees exceeds the window; a
//! prompt that cannot fit is refused before anything is sent.

use crate::support::{Reply, Server};
use serde_json::{json, Value};

const WINDOW: u64 = 16_000;

fn read_call(step: usize) -> Reply {
    let arguments = json!({"path": format!("f{}.txt", step % 5 + 1)}).to_string();
    let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": format!("call_{step}"),
        "type": "function", "function": {"name": "read", "arguments": arguments}}]}, "finish_reason": null}]});
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    Reply::sse(&format!("data: {call}\n\ndata: {end}\n\ndata: [DONE]\n\n"))
}

fn answer() -> Reply {
    Reply::sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"all read\"},\"finish_reason\":null}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    )
}

/// `ask --json -p openai PROMPT` in a project of five ~12 KB files; the JSON lines.
async fn ask(server: &Server, prompt: &str) -> Vec<Value> {
    let home = tempfile::tempdir().unwrap();
    for i in 1..=5 {
        let text: String = (0..240).map(|n| format!("line {n} of file {i}: some settings text here\n")).collect();
        std::fs::write(home.path().join(format!("f{i}.txt")), text).unwrap();
    }
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "--json", "-p", "openai", prompt])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .env("OPENAI_BASE_URL", &server.url)
        .env("OPENAI_API_KEY", "sk-test")
        .env("ELELEM_CONTEXT_WINDOW", WINDOW.to_string())
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .env_remove("ELELEM_AUTO_COMPACT")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test]
async fn a_long_turn_cuts_its_oldest_results_and_no_request_exceeds_the_window() {
    let mut replies: Vec<Reply> = (0..8).map(read_call).collect();
    replies.push(answer());
    let server = Server::start(replies).await;
    let lines = ask(&server, "read every file, several times").await;
    let reply = lines.last().unwrap();
    assert_eq!((reply["type"].as_str(), reply["text"].as_str()), (Some("reply"), Some("all read")), "{lines:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 9);
    for (i, request) in requests.iter().enumerate() {
        let tokens = request.body.to_string().len() as u64 / 4;
        assert!(tokens < WINDOW, "request {i} is ~{tokens} tokens");
    }
    let cut = lines.iter().find(|l| l["type"] == "warning" && l["message"].as_str().is_some_and(|m| m.contains("cut")));
    assert!(cut.is_some(), "the cut is said: {lines:?}");
    // The cut results say what happened and how to get the text back; the newest is whole.
    let last = &requests[8].body["messages"];
    let results: Vec<&str> = last
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(results.len(), 8);
    assert!(results[0].contains("dropped; call read again"), "{}", results[0]);
    assert!(results[7].contains("line 239 of file"), "the newest result is whole");
}

#[tokio::test]
async fn a_prompt_larger_than_the_window_is_refused_before_it_is_sent() {
    let server = Server::start(vec![answer()]).await;
    let prompt = "please read this: ".to_string() + &"word ".repeat(20_000);
    let lines = ask(&server, &prompt).await;
    assert!(server.requests().is_empty(), "nothing was sent");
    let error = lines.iter().find(|l| l["type"] == "error").unwrap_or_else(|| panic!("{lines:?}"));
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("not sent") && message.contains("16000-token context window"), "{message}");
}
