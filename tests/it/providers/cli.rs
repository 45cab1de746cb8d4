//! Provider faults through the real binary: `elelem ask --json -p openai` with
//! `OPENAI_BASE_URL` pointed at a local server that answers 200 with something that is not
//! a reply, or at a URL carrying a password. Each must end the turn with an error that says
//! what came back (exit 1), never an empty reply with exit 0, and never print the password.

use crate::support::{Reply, Server};
use serde_json::Value;

/// Runs `ask --json -p openai hi` against `base_url`; the JSON lines, stderr and exit code.
async fn ask(base_url: &str) -> (Vec<Value>, String, Option<i32>) {
    let home = tempfile::tempdir().unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "--json", "-p", "openai", "hi"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("OPENAI_BASE_URL", base_url)
        .env("OPENAI_API_KEY", "sk-cli-test-0123456789")
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ELELEM_STUB_SCRIPT")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let lines = String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (lines, String::from_utf8_lossy(&output.stderr).to_string(), output.status.code())
}

/// The `error` line's message, after checking the turn failed with it.
fn failure(lines: &[Value], code: Option<i32>) -> String {
    assert_eq!(code, Some(1), "{lines:?}");
    let error = lines.iter().find(|l| l["type"] == "error").unwrap_or_else(|| panic!("no error line: {lines:?}"));
    let message = error["message"].as_str().unwrap().to_string();
    let reply = lines.last().unwrap();
    assert_eq!(
        (reply["type"].as_str(), reply["text"].as_str()),
        (Some("reply"), Some(format!("Error: {message}").as_str()))
    );
    message
}

#[tokio::test]
async fn an_empty_200_stream_is_an_error_that_says_so() {
    let server =
        Server::start(vec![Reply::sse(""), Reply::sse(": keep-alive\n\n"), Reply::sse("data: [DONE]\n\n")]).await;
    let url = format!("{}/v1", server.url);
    let (lines, _, code) = ask(&url).await;
    assert_eq!(
        failure(&lines, code),
        "openai: the server closed the stream without any event (HTTP 200, content-type \"text/event-stream\"): an empty body"
    );
    let (lines, _, code) = ask(&url).await;
    assert_eq!(
        failure(&lines, code),
        "openai: the server closed the stream without any event (HTTP 200, content-type \"text/event-stream\"): \": keep-alive\""
    );
    let (lines, _, code) = ask(&url).await;
    assert_eq!(failure(&lines, code), "openai: the server ended the stream without any reply (only [DONE])");
}

#[tokio::test]
async fn a_stream_cut_before_the_end_of_the_reply_is_an_error() {
    let chunk = r#"data: {"choices":[{"index":0,"delta":{"content":"Half"},"finish_reason":null}]}"#;
    let server = Server::start(vec![Reply::sse(&format!("{chunk}\n\n"))]).await;
    let (lines, _, code) = ask(&format!("{}/v1", server.url)).await;
    assert_eq!(
        failure(&lines, code),
        "openai: the server closed the stream before the end of the reply (no finish_reason or [DONE])"
    );
}

#[tokio::test]
async fn an_html_200_says_what_came_back() {
    let page = "<html>\n<head><title>Captive portal</title></head><body>Log in to continue</body></html>";
    let server = Server::start(vec![Reply::stream("text/html", page)]).await;
    let (lines, _, code) = ask(&format!("{}/v1", server.url)).await;
    assert_eq!(
        failure(&lines, code),
        "openai: the server answered 200 with text/html, not an event stream: \
         \"<html> <head><title>Captive portal</title></head><body>Log in to continue</body></html>\""
    );
}

#[tokio::test]
async fn a_password_in_the_base_url_is_never_printed() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (lines, stderr, code) = ask(&format!("http://me:hunter2@{closed}/v1")).await;
    let message = failure(&lines, code);
    assert!(
        message.starts_with(&format!("openai: cannot connect to http://***@{closed}/v1/chat/completions")),
        "{message}"
    );
    let all = format!("{lines:?}{stderr}");
    assert!(!all.contains("hunter2") && !all.contains("sk-cli-test"), "{all}");
}
