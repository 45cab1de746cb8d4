//! Queued prompts through the real binary in a pseudo-terminal: a second prompt typed
//! during a turn is shown queued and answered after the first; a queued prompt that a
//! `UserPromptSubmit` hook refuses leaves no count behind and the next one still runs; Esc
//! with a prompt queued stops the running command at once and keeps the prompt, held until
//! Enter.

use crate::tui::pty::Tui;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

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

/// Live (not zombie) processes whose environment holds `marker`.
fn marked_processes(marker: &str) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("Z");
        if !zombie && String::from_utf8_lossy(&environ).contains(marker) {
            found += 1;
        }
    }
    found
}

/// Issue 38: with a prompt queued, Esc dropped the prompt and the 30 s command ran on (two
/// more presses stopped it). Now Esc stops the turn and kills its command within half a
/// second, and the queued prompt stays on screen, held: it runs on the next Enter.
#[test]
fn esc_with_a_queued_prompt_stops_a_running_command_at_once_and_keeps_the_prompt() {
    let mark = format!("ELELEM_PTY_ESC_QUEUE_{}", std::process::id());
    let command = format!("export {mark}=1; for i in $(seq 30); do sleep 1; done");
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "QUEUED-ANSWER"}]}
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 24, 80, &[], &["--yolo"]);
    tui.wait_for("Ask elelem");
    tui.send("count slowly\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) == 0 {
        assert!(Instant::now() < deadline, "the command never ran; screen:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(20));
    }
    tui.send("then this\r");
    tui.wait_for("queued 1 · Up edits the last");
    assert!(tui.contents().contains("Esc interrupts, keeps it"), "the queue says what Esc does:\n{}", tui.contents());

    let pressed = Instant::now();
    tui.send("\x1b");
    let stopped = loop {
        if marked_processes(&mark) == 0 && tui.contents().contains("interrupted") {
            break pressed.elapsed();
        }
        assert!(pressed.elapsed() < Duration::from_secs(10), "Esc did not stop the turn:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(5));
    };
    eprintln!("Esc stopped the turn and its command in {stopped:?}");
    assert!(stopped < Duration::from_millis(500), "Esc took {stopped:?} to stop the command");
    let screen = tui.contents();
    assert!(screen.contains("1. then this") && screen.contains("held: Enter sends it"), "kept:\n{screen}");
    assert!(!screen.contains("dropped"), "{screen}");
    // Held: nothing runs by itself.
    std::thread::sleep(Duration::from_millis(400));
    let screen = tui.contents();
    assert!(!screen.contains("› then this") && !screen.contains("QUEUED-ANSWER"), "it ran by itself:\n{screen}");
    // Enter on the empty prompt sends it.
    tui.send("\r");
    tui.wait_for("QUEUED-ANSWER");
    let screen = tui.contents();
    assert!(screen.contains("› then this") && !screen.contains("queued 1"), "{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
