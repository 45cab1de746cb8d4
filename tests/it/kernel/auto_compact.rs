//! Older turns are compacted automatically between turns (issue 28), through the real binary
//! against a local Anthropic-protocol server that plays the model: with a 16k window, when a
//! turn's first request would pass the threshold, the model is asked for a summary (no
//! tools), the summary replaces the older turns (shown, and the conversation's first
//! message), the latest turn stays word for word, every turn finishes and no request the
//! server sees exceeds the window.

use crate::providers::model_server::{chat, results_this_turn, text, tool_use, ModelServer};
use serde_json::{json, Value};

const WINDOW: u64 = 16_000;
const SUMMARY: &str = "The user asked to read f1-f5; they are configuration notes.";

/// The text of the newest user message that has text (the turn's prompt, or the summary).
fn last_prompt(body: &Value) -> String {
    for message in body["messages"].as_array().into_iter().flatten().rev() {
        if message["role"] != "user" {
            continue;
        }
        match &message["content"] {
            Value::String(s) => return s.clone(),
            Value::Array(blocks) => {
                let text: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                if !text.is_empty() {
                    return text;
                }
            }
            _ => {}
        }
    }
    String::new()
}

/// A long answer: `words` different words.
fn long_answer(tag: &str, words: usize) -> String {
    (0..words).map(|i| format!("{tag}{i} ")).collect()
}

/// The model: a summary when asked without tools; otherwise the bench's turn (15 reads of
/// five files, round and round, then a long answer) for the first and third prompts, one
/// read and a shorter answer for the second.
fn play(body: &Value) -> Vec<Value> {
    if body["tools"].as_array().is_none_or(Vec::is_empty) {
        return vec![text(SUMMARY)];
    }
    let prompt = last_prompt(body);
    let step = results_this_turn(body);
    let reads = if prompt.contains("second") { 1 } else { 15 };
    if step < reads {
        let id = format!("toolu_{}", body["messages"].as_array().map_or(0, Vec::len));
        return vec![tool_use(&id, "read", json!({"path": format!("f{}.txt", step % 5 + 1)}))];
    }
    match prompt {
        p if p.contains("first") => vec![text(&long_answer("alpha", 2_500))],
        p if p.contains("second") => vec![text(&format!("SECOND ANSWER {}", long_answer("beta", 1_500)))],
        _ => vec![text("third answer")],
    }
}

/// Five ~6.7 KB files, as in `scripts/bench_cost.py`.
fn project() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for i in 1..=5 {
        let text: String = (i * 100..i * 100 + 84)
            .map(|n| format!("setting_{n} = value of setting number {n} for the service; see the notes below.\n"))
            .collect();
        std::fs::write(home.path().join(format!("f{i}.txt")), &text[..6700]).unwrap();
    }
    home
}

#[tokio::test]
async fn older_turns_are_summarised_between_turns_and_no_request_exceeds_a_16k_window() {
    let home = project();
    let server = ModelServer::start(play).await;
    let window = WINDOW.to_string();
    let lines = "Read the first set of files.\nNow the second.\nAnd a third time, please.\n";
    let out = chat(home.path(), &server, &[], lines, &[("ELELEM_CONTEXT_WINDOW", &window)]).await;
    let requests = server.requests();
    for (i, request) in requests.iter().enumerate() {
        let tokens = request.to_string().len() as u64 / 4;
        assert!(tokens < WINDOW, "request {i} is ~{tokens} tokens");
    }
    // 16 + 2 + one summary + 16.
    let summaries: Vec<usize> =
        (0..requests.len()).filter(|&i| requests[i]["tools"].as_array().is_none_or(Vec::is_empty)).collect();
    assert_eq!(summaries, vec![18], "one summary request, before the third turn ({} requests)", requests.len());
    assert_eq!(requests.len(), 35);
    let asked = requests[18].to_string();
    assert!(
        asked.contains("alpha1 ") && asked.contains("Summarise the conversation above"),
        "the first turn is summarised"
    );
    assert!(!asked.contains("SECOND ANSWER"), "the second turn is kept, not summarised");
    // The third turn starts from the summary, then the second turn word for word.
    let third = &requests[19];
    let sent = third.to_string();
    assert!(sent.contains("Summary of the earlier conversation") && sent.contains(SUMMARY), "{sent:.400}");
    assert!(!sent.contains("alpha1 "), "the first turn's answer is gone");
    assert!(
        sent.contains("Now the second.") && sent.contains(&format!("SECOND ANSWER {}", long_answer("beta", 1_500)))
    );
    // It was shown, and every turn got its answer.
    assert!(out.contains("Compacted automatically: 1 older turn(s) summarised, the latest 1 kept"), "{out}");
    assert!(out.contains(SUMMARY) && out.contains("third answer"), "{out}");
    // The prefix is rewritten once: the third turn's requests all start the same way.
    for request in &requests[20..] {
        assert_eq!(request["messages"][0], third["messages"][0]);
    }
}
