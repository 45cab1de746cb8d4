//! Untrusted text reaches no terminal raw, in any front end (issue 9 item 9): the retry
//! notice of `ask` and `chat --plain` with an error body full of escapes, `ask --json` with
//! C1 and bidi controls in the reply, and the line REPL's `Allow?` question with a bidi
//! override in the command.

use crate::support::{Reply, Server};
use serde_json::json;
use std::io::Write;
use std::process::Output;

/// ESC ] 52 (clipboard), ESC ] 0 (title), ESC [ 2J (clear) and a C1 CSI.
const HOSTILE: &str = "over\u{1b}]52;c;cHduZWQ=\u{7}loaded\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m";

fn run(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut cmd = crate::support::home::elelem(dir, dir);
    cmd.args(args).env("XDG_DATA_HOME", dir.join("data"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn assert_terminal_safe(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || elelem::sanitize::is_invisible(c))
        .collect();
    assert!(bad.is_empty(), "{what} carries {bad:?}:\n{text}");
}

fn overloaded_then_ok() -> Vec<Reply> {
    let error = json!({"error": {"type": "overloaded_error", "message": HOSTILE}}).to_string();
    let ok = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"fine\"}}]}\n\n\
              data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    vec![Reply::status(529, &error), Reply::sse(ok)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retry_notice_never_prints_an_error_body_raw() {
    for args in [&["ask", "-p", "openai", "hello"][..], &["chat", "--plain", "-p", "openai"][..]] {
        let server = Server::start(overloaded_then_ok()).await;
        let dir = tempfile::tempdir().unwrap();
        let url = server.url.clone();
        let path = dir.path().to_path_buf();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let env = [("OPENAI_BASE_URL", url.as_str()), ("OPENAI_API_KEY", "sk-test"), ("ELELEM_RETRY_BASE_MS", "1")];
            run(&path, &args, &env, "hello\n")
        })
        .await
        .unwrap();
        let all = [out.stdout.clone(), out.stderr.clone()].concat();
        assert!(String::from_utf8_lossy(&all).contains("retrying"), "{}", String::from_utf8_lossy(&all));
        assert!(String::from_utf8_lossy(&all).contains("fine"));
        assert_terminal_safe(&out.stdout, "stdout");
        assert_terminal_safe(&out.stderr, "stderr");
    }
}

#[test]
fn ask_json_escapes_c1_and_bidi_controls_without_losing_them() {
    let dir = tempfile::tempdir().unwrap();
    let reply = "safe \u{9b}31m text \u{202e}reversed\u{202c} \u{200b}end";
    let script = dir.path().join("script.json");
    std::fs::write(&script, json!([{"events": [{"type": "saying", "text": reply}]}]).to_string()).unwrap();
    let out = run(dir.path(), &["ask", "--json", "hi"], &[("ELELEM_STUB_SCRIPT", script.to_str().unwrap())], "");
    assert_terminal_safe(&out.stdout, "ask --json");
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().any(|l| l["text"] == reply), "the reply decodes unchanged: {lines:?}");
}

#[test]
fn the_line_repl_shows_a_bidi_override_in_a_piped_commands_tool_line() {
    let dir = tempfile::tempdir().unwrap();
    let command = "echo \u{202e}txt.exe";
    let script = dir.path().join("script.json");
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "ok"}]}
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let out = run(dir.path(), &["chat", "--plain"], &[("ELELEM_STUB_SCRIPT", script.to_str().unwrap())], "go\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("echo <U+202E>txt.exe"), "{stdout}");
    assert_terminal_safe(&out.stdout, "chat --plain");
}
