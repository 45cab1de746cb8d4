//! A re-read the model does not need is not sent again (issue 28), through the real binary
//! against a local Anthropic-protocol server that plays the model: reading an unchanged file
//! a second time in a turn returns a note naming the call whose result is still above; a file
//! changed between the reads comes back whole, as does the first read of the next turn (the
//! earlier result left the context with its turn) and a re-read after the window cut the
//! earlier result (whose notes then say it was cut).

use crate::providers::model_server::{chat, result_text, results_this_turn, text, tool_results, tool_use, ModelServer};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A file of `lines` numbered lines, the last one `last line of NAME`.
fn write_file(dir: &Path, name: &str, lines: usize) -> PathBuf {
    let mut body: String =
        (1..lines).map(|n| format!("setting_{n} = some value for {name}, see the notes\n")).collect();
    body.push_str(&format!("last line of {name}\n"));
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

/// The result the model got for the newest call in `body`, parsed.
fn newest_result(body: &Value) -> Value {
    let results = tool_results(body);
    serde_json::from_str(&result_text(results.last().expect("a tool result"))).unwrap()
}

/// Prompts in `body` so far (the turn number, from 1).
fn prompts(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter(|m| {
            m["content"].is_string() || m["content"].as_array().is_some_and(|b| b.iter().any(|b| b["type"] == "text"))
        })
        .count()
}

#[tokio::test]
async fn an_unchanged_re_read_is_a_note_and_a_changed_file_or_the_next_turn_gets_the_content() {
    let home = tempfile::tempdir().unwrap();
    let file = write_file(home.path(), "a.txt", 60);
    let changed = file.clone();
    let server = ModelServer::start(move |body: &Value| {
        let (turn, step) = (prompts(body), results_this_turn(body));
        let read = || vec![tool_use(&format!("toolu_{turn}_{step}"), "read", json!({"path": "a.txt"}))];
        match (turn, step) {
            (1, 0) | (1, 1) | (2, 0) => read(),
            (1, 2) => {
                // The user changes the file after the second read.
                std::fs::write(&changed, "a new first line\n".repeat(40)).unwrap();
                read()
            }
            _ => vec![text("done")],
        }
    })
    .await;
    chat(home.path(), &server, &[], "read a.txt\nread it again\n", &[]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 6, "four steps, then two");

    let first = newest_result(&requests[1]);
    assert!(first["content"].as_str().unwrap().contains("last line of a.txt"), "{first}");
    // Unchanged: a note naming the first call, with the short fields kept.
    let again = newest_result(&requests[2]);
    assert_eq!(again["same_as"], "toolu_1_0", "{again}");
    assert_eq!((&again["path"], &again["lines"], &again["ok"]), (&json!("a.txt"), &json!(60), &json!(true)));
    let note = again["content"].as_str().unwrap();
    assert!(note.contains("same result as your read call toolu_1_0 above") && note.len() < 200, "{note}");
    // Changed since: the new content.
    let third = newest_result(&requests[3]);
    assert!(third["content"].as_str().unwrap().contains("a new first line"), "{third}");
    assert!(third.get("same_as").is_none());
    // The next turn: the first turn's reads left the context, so the content comes back.
    let next = newest_result(&requests[5]);
    assert!(next["content"].as_str().unwrap().contains("a new first line"), "{next}");
    assert!(next.get("same_as").is_none(), "{next}");
}

#[tokio::test]
async fn a_re_read_after_the_window_cut_the_earlier_result_gets_the_content() {
    const WINDOW: u64 = 8_000;
    let home = tempfile::tempdir().unwrap();
    write_file(home.path(), "a.txt", 220);
    write_file(home.path(), "b.txt", 220);
    let server = ModelServer::start(|body: &Value| {
        let step = results_this_turn(body);
        let path = ["a.txt", "a.txt", "b.txt", "a.txt"];
        match path.get(step) {
            Some(path) => vec![tool_use(&format!("toolu_{step}"), "read", json!({"path": path}))],
            None => vec![text("done")],
        }
    })
    .await;
    let window = WINDOW.to_string();
    let out = chat(home.path(), &server, &[], "read them\n", &[("ELELEM_CONTEXT_WINDOW", &window)]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 5, "{out}");
    for (i, request) in requests.iter().enumerate() {
        let tokens = request.to_string().len() as u64 / 4;
        assert!(tokens < WINDOW, "request {i} is ~{tokens} tokens");
    }
    assert_eq!(newest_result(&requests[2])["same_as"], "toolu_0");
    // Reading b pushed the request past the threshold: a's first result was cut, and the
    // note pointing at it says so.
    let results: Vec<Value> =
        tool_results(&requests[3]).iter().map(|b| serde_json::from_str(&result_text(b)).unwrap()).collect();
    assert!(results[0]["content"].as_str().unwrap().contains("dropped; call read again"), "{}", results[0]);
    let orphan = results[1]["content"].as_str().unwrap();
    assert!(orphan.contains("cut since") && orphan.contains("call read again"), "{orphan}");
    // So reading a again brings its content back.
    let reread = newest_result(&requests[4]);
    assert!(reread["content"].as_str().unwrap().contains("last line of a.txt"), "{reread}");
    assert!(reread.get("same_as").is_none(), "{reread}");
}
