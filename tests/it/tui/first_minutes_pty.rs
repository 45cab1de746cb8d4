//! Issue 38 through the real binary in a pseudo-terminal: a "1" pressed the moment an
//! approval opens neither answers it nor stays in the prompt (the dialog says to press it
//! again, and the test waits for its armed answers row instead of sleeping); `/clear`'s
//! question is whole at 80 columns.

use crate::tui::pty::Tui;
use serde_json::json;
use std::time::{Duration, Instant};

/// Waits, polling often, until the screen holds `what`; the screen then.
fn wait_closely(tui: &Tui, what: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let screen = tui.contents();
        if screen.contains(what) {
            return screen;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what:?}; screen:\n{screen}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn an_early_one_neither_answers_the_approval_nor_stays_in_the_prompt() {
    let steps = json!([
        {"events": [{"type": "doing", "id": "e1", "name": "execute", "arguments": {"command": "echo hi > early.txt"}}]},
        {"events": [{"type": "saying", "text": "ALL-DONE"}]}
    ]);
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().to_path_buf();
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 24, 80, &[], &[]);
    tui.wait_for("Ask elelem");
    tui.send("run it\r");
    // The dialog opens while the user is not typing: a reflex "1" right away.
    let screen = wait_closely(&tui, "Allow execute?");
    assert!(screen.contains("typing goes to the prompt"), "not armed at first:\n{screen}");
    tui.send("1");
    wait_closely(&tui, "came too early: not taken");
    // Armed: the answers row shows (what a test waits for instead of sleeping).
    let screen = wait_closely(&tui, "[1] yes");
    assert!(screen.contains("press it again"), "{screen}");
    assert!(!project.join("early.txt").exists(), "the early 1 answered:\n{screen}");
    let prompt = screen.lines().rev().nth(2).unwrap_or_default();
    assert!(prompt.contains("Ask elelem"), "the prompt is empty: {prompt:?}\n{screen}");
    // A deliberate no.
    tui.send("3");
    tui.wait_for("ALL-DONE");
    let screen = tui.contents();
    assert!(!project.join("early.txt").exists());
    assert!(screen.lines().rev().nth(2).unwrap_or_default().contains("Ask elelem"), "no stray 1:\n{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// Issue 38: at 80 columns `/clear` seemed to do nothing; its question is whole above the
/// prompt, and Enter again clears.
#[test]
fn clears_question_is_whole_at_80_columns() {
    let steps = json!([{"events": [{"type": "saying", "text": "FIRST-REPLY"}]}]);
    let mut tui = Tui::start(steps, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("hello\r");
    tui.wait_for("FIRST-REPLY");
    tui.send("/clear");
    std::thread::sleep(Duration::from_millis(100));
    tui.send("\r");
    let screen = wait_closely(&tui, "(/clear undo brings it back)");
    assert!(screen.contains("? Clear the conversation? Enter: yes · Esc: no (/clear undo brings it back)"), "{screen}");
    tui.send("\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while tui.contents().contains("FIRST-REPLY") {
        assert!(Instant::now() < deadline, "not cleared:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(30));
    }
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
