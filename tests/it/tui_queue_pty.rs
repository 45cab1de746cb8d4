//! Queued prompts through the real binary in a pseudo-terminal: a second prompt typed
//! during a turn is shown queued and answered after the first; a queued prompt that a
//! `UserPromptSubmit` hook refuses leaves no count behind and the next one still runs.

use crate::tui_pty::Tui;
use serde_json::{json, Value};

/// A first reply that streams for about three seconds, then `second` for the next call.
fn slow_then(second: &str) -> Value {
    let slow: Vec<Value> =
        (0..20).map(|i| json!({"type": "saying", "text": format!("chunk{i} "), "delay_ms": 150})).collect();
    json!([{"events": slow}, {"events": [{"type": "saying", "text": second}]}])
}

#[test]
fn a_second_prompt_typed_during_a_turn_is_queued_and_answered_after_the_first() {
    let mut tui = Tui::start(slow_then("SECOND-ANSWER"), 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("first prompt\r");
    tui.wait_for("chunk1 ");
    tui.send("second prompt\r");
    tui.wait_for("queued 1 · Up edits the last");
    let screen = tui.contents();
    assert!(screen.contains("1. second prompt") && screen.contains("prompt · 1 queued"), "{screen}");
    assert!(!screen.contains("› second prompt"), "not sent yet:\n{screen}");
    tui.wait_for("SECOND-ANSWER");
    let screen = tui.contents();
    let at = |what: &str| screen.find(what).unwrap_or_else(|| panic!("{what} missing:\n{screen}"));
    assert!(at("chunk19") < at("› second prompt"), "the first turn ended first:\n{screen}");
    assert!(at("› second prompt") < at("SECOND-ANSWER"), "{screen}");
    assert!(!screen.contains("queued 1") && !screen.contains("1 queued"), "{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

#[test]
fn a_queued_prompt_a_hook_refuses_leaves_no_count_and_the_next_runs() {
    let dir = tempfile::tempdir().unwrap();
    let hook = "grep -q secret /dev/stdin && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0";
    let hooks =
        json!({"hooks": {"UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": hook}]}]}});
    std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
    std::fs::write(dir.path().join(".agents/hooks.json"), hooks.to_string()).unwrap();
    let mut tui = Tui::start_in(dir, slow_then("AFTER-THE-REFUSAL"), 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("first prompt\r");
    tui.wait_for("chunk1 ");
    tui.send("my secret is 42\r");
    tui.send("hello again\r");
    tui.wait_for("queued 2");
    tui.wait_for("AFTER-THE-REFUSAL");
    let screen = tui.contents();
    assert!(screen.contains("no secrets in prompts"), "{screen}");
    assert!(!screen.contains(" queued ·") && !screen.contains("1 queued"), "no count left:\n{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
