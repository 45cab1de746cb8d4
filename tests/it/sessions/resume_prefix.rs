//! `--continue` rebuilds the prefix the prompt cache holds: through the real binary against a
//! local Anthropic-protocol server that records every body, the first request after a resume
//! is byte for byte the request the same session would have sent without the restart, and it
//! shares its tools, system prompt and earlier messages with the last request before exit.

use crate::providers::model_server::{self, results_this_turn, text, tool_use, without_marks, ModelServer};
use serde_json::{json, Value};
use std::path::Path;

/// The model: one `read` of notes.txt per turn, then an answer naming the turn's prompt.
fn play(body: &Value) -> Vec<Value> {
    if results_this_turn(body) == 0 {
        let id = format!("toolu_{}", body["messages"].as_array().map_or(0, Vec::len));
        return vec![text("Let me look."), tool_use(&id, "read", json!({"path": "notes.txt"}))];
    }
    vec![text("The notes say: the build is green.\n\nNothing else to report.")]
}

/// `chat --plain -p anthropic ARGS` in `home`, typing `lines`.
async fn chat(home: &Path, server: &ModelServer, args: &[&str], lines: &str) {
    model_server::chat(home, server, args, lines, &[]).await;
}

fn project() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("notes.txt"), "build: green\nowner: ci\n").unwrap();
    home
}

#[tokio::test]
async fn continue_sends_the_prefix_the_same_session_would_have_sent() {
    // One process, two turns (the first one's read kept): what the cache was written with.
    let together = ModelServer::start(play).await;
    let home = project();
    let first = "What do the notes say? ünïcödé \u{1F600}\n/context keep 1\n";
    chat(home.path(), &together, &[], &format!("{first}Anything else?\n")).await;
    let whole = together.raw();
    assert_eq!(whole.len(), 4, "two steps a turn");

    // The same two turns with an exit between them, in the same directory (the system
    // prompt names it), as a new session.
    std::fs::remove_dir_all(home.path().join("data")).unwrap();
    let split = ModelServer::start(play).await;
    chat(home.path(), &split, &[], first).await;
    chat(home.path(), &split, &["--continue"], "Anything else?\n").await;
    let resumed = split.raw();
    assert_eq!(resumed.len(), 4);

    // The first request after the resume is the one the session sent without a restart.
    assert_eq!(
        String::from_utf8_lossy(&resumed[2]),
        String::from_utf8_lossy(&whole[2]),
        "the first request after --continue differs from the same session's"
    );
    // And it shares with the last request before exit everything the cache compares:
    // tools, system prompt, and the messages up to where the two part.
    let bodies = split.requests();
    let (before, after) = (&bodies[1], &bodies[2]);
    assert_eq!(without_marks(&before["tools"]), without_marks(&after["tools"]));
    assert_eq!(without_marks(&before["system"]), without_marks(&after["system"]));
    let first_prompt = |body: &Value| blocks(&body["messages"][0]);
    assert_eq!(first_prompt(before), first_prompt(after));
    assert_eq!(before["model"], after["model"]);
    // The kept read came back too, in its native shape.
    assert!(after.to_string().contains("\"tool_result\""), "{after}");
}

/// A message as the cache compares it: its content as blocks (a string is one text block),
/// without breakpoints.
fn blocks(message: &Value) -> Value {
    let mut message = without_marks(message);
    if let Some(text) = message["content"].as_str() {
        message["content"] = json!([{"type": "text", "text": text}]);
    }
    message
}

/// `ask` then `ask --continue`, with a long reply of tabs, `\r\n` and trailing blanks in two
/// blocks: the resumed request is the one `chat` sent for its second turn.
#[tokio::test]
async fn ask_continue_after_a_long_reply_sends_the_same_bytes_as_one_session() {
    let long: String = (0..3000).map(|i| format!("line {i} \t with tabs\r\n and trailing  \n")).collect();
    let play = move |body: &Value| -> Vec<Value> {
        if results_this_turn(body) == 0 {
            let id = format!("toolu_{}", body["messages"].as_array().map_or(0, Vec::len));
            return vec![text("Let me look."), tool_use(&id, "read", json!({"path": "notes.txt"}))];
        }
        vec![text(&long), text("  second block  \n\n")]
    };
    let together = ModelServer::start(play.clone()).await;
    let home = project();
    chat(home.path(), &together, &[], "one\ntwo\n").await;
    std::fs::remove_dir_all(home.path().join("data")).unwrap();
    let split = ModelServer::start(play).await;
    ask(home.path(), &split, &[], "one").await;
    ask(home.path(), &split, &["--continue"], "two").await;
    let (a, b) = (together.raw(), split.raw());
    assert_eq!(String::from_utf8_lossy(&a[2]), String::from_utf8_lossy(&b[2]));
}

/// `ask -p anthropic` in `home` with `args` and `prompt`.
async fn ask(home: &Path, server: &ModelServer, args: &[&str], prompt: &str) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "-p", "anthropic"])
        .args(args)
        .arg(prompt)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env_remove("ELELEM_STUB_SCRIPT")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
