//! Issue 38, points 11 and 14, through the real binary in a pseudo-terminal: the first
//! screen in plain words (the banner broken only between its phrases at 80 and 60 columns,
//! what the model sees of earlier turns, suggestions that fit the folder), `/context list`
//! numbering the calls the context panel and the help point to, and the status line showing
//! the model the server answered with.

use crate::tui::pty::Tui;
use serde_json::json;

/// The rows of the conversation pane, without its borders, trimmed.
fn conversation_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|row| row.trim_start_matches('│').trim_end().trim_end_matches('│').trim_end().to_string())
        .collect()
}

/// The first screen at `cols` columns in a folder that is (`git`) or is not a repository.
fn first_screen(rows: u16, cols: u16, git: bool, env: &[(&str, &str)], args: &[&str]) -> (Tui, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
    if git {
        std::fs::create_dir(dir.path().join(".git")).unwrap();
    }
    let tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, json!([]), rows, cols, env, args);
    tui.wait_for("Try:");
    // Narrow, the first screen is taller than the pane: Ctrl+Home shows its top.
    tui.send("\x1b[1;5H");
    tui.wait_for("elelem v");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let screen = tui.contents();
    (tui, screen)
}

/// A first screen: rows, columns, environment, arguments.
type Start<'a> = (u16, u16, &'a [(&'a str, &'a str)], &'a [&'a str]);

/// The banner's rows: from the one that starts it to the first empty row.
fn banner_rows(rows: &[String]) -> Vec<String> {
    let start = rows.iter().position(|r| r.starts_with("elelem v")).expect("a banner");
    rows[start..].iter().take_while(|r| !r.is_empty()).cloned().collect()
}

#[test]
fn the_banner_breaks_only_between_phrases_at_80_and_60_columns() {
    // The sandbox's label (workspace-write where the kernel has Landlock) and, narrowest, a
    // dated model make the banner longer than the width.
    let sandbox = [("ELELEM_SANDBOX", "workspace-write")];
    let anthropic = [
        ("ELELEM_SANDBOX", "workspace-write"),
        ("ANTHROPIC_API_KEY", "sk-ant-test"),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
    ];
    let dated: &[&str] = &["-p", "anthropic", "-m", "claude-sonnet-4-5-20250929"];
    let starts: [Start; 4] =
        [(24, 80, &sandbox, &[]), (24, 60, &sandbox, &[]), (24, 80, &anthropic, dated), (20, 60, &anthropic, dated)];
    for (rows, cols, env, args) in starts {
        let (_tui, screen) = first_screen(rows, cols, false, env, args);
        let banner = banner_rows(&conversation_rows(&screen));
        let joined = banner.join(" ");
        for phrase in joined.split(" · ").map(|p| p.trim_end_matches(" ·").trim()) {
            let whole = banner.iter().any(|row| row.contains(phrase));
            assert!(whole, "{phrase:?} is cut across rows at {cols} columns:\n{}", banner.join("\n"));
        }
        assert!(joined.contains("? for help"), "{joined}");
        for row in &banner {
            assert!(!row.ends_with(" ?") && row != "?", "a \"?\" left alone at {cols} columns: {row:?}\n{screen}");
        }
    }
}

#[test]
fn the_welcome_says_in_plain_words_what_the_model_sees_and_suggests_what_fits_the_folder() {
    let (_tui, plain) = first_screen(24, 80, false, &[], &[]);
    assert!(plain.contains("The model sees earlier prompts and replies, not their tool output"), "{plain}");
    assert!(plain.contains("/context list"), "{plain}");
    assert!(!plain.contains("dropped when it ends unless kept"), "no jargon:\n{plain}");
    assert!(plain.contains("@README.md what is in it?") && plain.contains("!ls"), "{plain}");
    assert!(!plain.contains("!git status"), "no git suggestion outside a repository:\n{plain}");
    let (_tui, repo) = first_screen(24, 80, true, &[], &[]);
    assert!(repo.contains("!git status"), "{repo}");
}

#[test]
fn context_list_numbers_the_calls_the_panel_says_it_lists() {
    let script = json!([
        {"events": [{"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "README.md"}}]},
        {"events": [{"type": "saying", "text": "Read it."}]}
    ]);
    let tui = Tui::start(script, 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("read the readme\r");
    tui.wait_for("Read it.");
    // The welcome, the context panel and the help point to /context list.
    tui.send("/context list\r");
    tui.wait_for("k1. read README.md (ok)");
    tui.send("/context keep k1\r");
    tui.wait_for("Kept read (k1)");
}

#[test]
fn the_status_line_shows_the_model_the_server_answered_with() {
    use crate::support::{Reply, Server};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let events = [
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [],
               "model": "claude-sonnet-4-5-20250929", "stop_reason": null, "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ANSWERED"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ];
    let sse: String = events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect();
    let server = runtime.block_on(Server::start(vec![Reply::sse(&sse)]));
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let dir = tempfile::tempdir().unwrap();
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_elelem"));
    let mut tui = Tui::launch(binary, dir, json!([]), 40, 120, &env, &["-p", "anthropic", "-m", "claude-sonnet-4-5"]);
    tui.wait_for("? for help");
    assert!(tui.contents().contains("anthropic · claude-sonnet-4-5 "), "{}", tui.contents());
    tui.send("hello\r");
    tui.wait_for("ANSWERED");
    tui.wait_for("anthropic · claude-sonnet-4-5-20250929");
    assert_eq!(server.requests()[0].body["model"], "claude-sonnet-4-5", "the model asked for is still sent");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
