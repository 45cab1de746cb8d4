//! Rewind (issue 30): Esc Esc on an empty prompt (or `/rewind`) lists the earlier prompts,
//! newest first; choosing one puts the conversation and the files back to just before it,
//! the prompt into the composer, and a note goes to the model with the next prompt. Through
//! the real binary: in a pty (this module lives under `tui_pty` for its `Tui`) and in the
//! line REPL (`/rewind`, `/rewind N`). A file changed outside elelem since refuses the whole
//! rewind: nothing is lost.

use super::Tui;
use crate::support::home::Home;
use serde_json::{json, Value};
use std::io::Write;

/// Two turns: the first writes a.txt, the second changes it and creates b.txt.
fn two_turns() -> Value {
    json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "a.txt", "content": "one\n"}}]},
        {"events": [{"type": "saying", "text": "wrote one"}]},
        {"events": [
            {"type": "doing", "id": "w2", "name": "write", "arguments": {"path": "a.txt", "content": "two\n"}},
            {"type": "doing", "id": "w3", "name": "write", "arguments": {"path": "b.txt", "content": "new\n"}}
        ]},
        {"events": [{"type": "saying", "text": "wrote two"}]},
        {"events": [{"type": "saying", "text": "after the rewind"}]}
    ])
}

fn repl(home: &Home, steps: Value, stdin: &str) -> String {
    repl_with(home, &[], steps, stdin)
}

fn repl_with(home: &Home, more: &[&str], steps: Value, stdin: &str) -> String {
    let script = home.script(steps);
    let args: Vec<&str> = ["chat", "--plain", "--yolo"].iter().chain(more).copied().collect();
    let mut child = home.command(&args, &script).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn rewind_in_the_line_repl_puts_the_conversation_and_the_files_back_and_tells_the_model() {
    let home = Home::new();
    let input = "first prompt\nsecond prompt\n/rewind\n/rewind 1\n/context\nthird prompt\n/context json\n/export\n";
    let text = repl(&home, two_turns(), input);
    let dir = home.dir.path();
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "one\n", "{text}");
    assert!(!dir.join("b.txt").exists(), "created by the rewound turn:\n{text}");
    assert!(text.contains("  1. second prompt\n  2. first prompt"), "the list, newest first:\n{text}");
    assert!(text.contains("Rewound 1 turn, to just before: second prompt"), "{text}");
    // `/context` after the rewind: the first turn only.
    let listed = &text[text.find("Rewound 1 turn").unwrap()..text.find("after the rewind").unwrap()];
    assert!(listed.contains("first prompt") && listed.contains("wrote one"), "{listed}");
    assert!(!listed.contains("user: second prompt") && !listed.contains("wrote two"), "{listed}");
    // The note went with the next prompt, before it.
    let sent = &text[text.find("[The user rewound the conversation").expect("the note was sent")..];
    assert!(sent.contains("third prompt"), "{text}");
    // `/export` holds the turns that stayed, not the rewound one.
    let exports = home.dir.path().join("data/elelem/exports");
    let file = std::fs::read_dir(&exports).unwrap().flatten().next().expect("exported").path();
    let md = std::fs::read_to_string(file).unwrap();
    assert!(md.contains("first prompt") && md.contains("wrote one") && md.contains("third prompt"), "{md}");
    assert!(!md.contains("second prompt") && !md.contains("wrote two") && !md.contains(r#"{"path":"b.txt""#), "{md}");
}

/// Four turns, the N-th writing fN.txt (a new file).
fn four_writing_turns() -> Value {
    let mut steps = Vec::new();
    for n in 1..=4 {
        let path = format!("f{n}.txt");
        steps.push(json!({"events": [{"type": "doing", "id": format!("w{n}"), "name": "write",
            "arguments": {"path": path, "content": format!("{n}\n")}}]}));
        steps.push(json!({"events": [{"type": "saying", "text": format!("wrote {n}")}]}));
    }
    Value::Array(steps)
}

/// Resumed after two of four turns were rewound, `/rewind 1` takes away the second turn, the
/// last that remains, and its file with it: the checkpoints keep the turn numbers the
/// session recorded (they once counted the turns started, so it undid the rewound fourth
/// turn's files, long gone, and left f2.txt).
#[test]
fn rewind_after_continue_undoes_the_turn_that_remains() {
    let home = Home::new();
    let text = repl(&home, four_writing_turns(), "one\ntwo\nthree\nfour\n/rewind 2\n");
    let dir = home.dir.path();
    assert!(text.contains("Rewound 2 turns, to just before: three"), "{text}");
    assert!(!dir.join("f3.txt").exists() && !dir.join("f4.txt").exists(), "{text}");
    assert!(dir.join("f1.txt").exists() && dir.join("f2.txt").exists(), "{text}");

    let text = repl_with(&home, &["--continue"], json!([]), "/rewind\n/rewind 1\n");
    assert!(text.contains("  1. two\n  2. one"), "the prompts that remain:\n{text}");
    assert!(text.contains("Rewound 1 turn, to just before: two"), "{text}");
    assert!(!dir.join("f2.txt").exists(), "the second turn's file goes:\n{text}");
    assert_eq!(std::fs::read_to_string(dir.join("f1.txt")).unwrap(), "1\n", "the first turn's stays");
    assert!(!dir.join("f3.txt").exists() && !dir.join("f4.txt").exists(), "{text}");
}

#[test]
fn a_file_changed_outside_elelem_since_refuses_the_whole_rewind() {
    let home = Home::new();
    let script = home.script(two_turns());
    let mut child = home.command(&["chat", "--plain", "--yolo"], &script).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"first prompt\nsecond prompt\n").unwrap();
    // Wait for the second turn to have written, then change a.txt behind elelem's back.
    let a = home.dir.path().join("a.txt");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::read_to_string(&a).unwrap_or_default() != "two\n" || !home.dir.path().join("b.txt").exists() {
        assert!(std::time::Instant::now() < deadline, "the turns never wrote");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    std::fs::write(&a, "the user's own edit\n").unwrap();
    stdin.write_all(b"/rewind 1\n/context\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not rewound") && text.contains("changed outside elelem"), "{text}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "the user's own edit\n");
    assert!(home.dir.path().join("b.txt").exists(), "nothing restored");
    assert!(text.contains("wrote two"), "the conversation keeps the turn:\n{text}");
    let after = &text[text.find("not rewound").unwrap()..];
    assert!(after.contains("second prompt"), "the conversation keeps the turn:\n{after}");
}

#[test]
fn esc_esc_opens_the_earlier_prompts_and_enter_rewinds_with_the_prompt_in_the_composer() {
    let mut tui = Tui::start(two_turns(), 30, 110, &[]);
    tui.wait_for("Ask elelem");
    // Accept edits: the writes run without a dialog.
    tui.send("/mode edits\r");
    tui.wait_for("prompt · accept edits");
    tui.send("first prompt\r");
    tui.wait_for("wrote one");
    tui.send("second prompt\r");
    tui.wait_for("wrote two");
    assert_eq!(std::fs::read_to_string(tui._dir.path().join("b.txt")).unwrap(), "new\n");
    assert!(tui.contents().contains("write b.txt"), "{}", tui.contents());
    tui.send("\x1b");
    std::thread::sleep(std::time::Duration::from_millis(100));
    tui.send("\x1b");
    tui.wait_for("rewind: back to just before which prompt?");
    let screen = tui.contents();
    let first = screen.find(" 1. second prompt").expect("newest first");
    assert!(screen[first..].contains(" 2. first prompt"), "{screen}");
    tui.send("\r");
    tui.wait_for("rewound 1 turn");
    let dir = tui._dir.path();
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "one\n");
    assert!(!dir.join("b.txt").exists());
    // The prompt is back in the composer, to edit and send again; the rewound turn is gone
    // from the conversation pane.
    let screen = tui.contents();
    assert!(!screen.contains("wrote two") && screen.contains("wrote one"), "{screen}");
    // Its calls left the tool log too (the first turn's stays).
    assert!(!screen.contains("write b.txt") && screen.contains("write a.txt"), "{screen}");
    let composer = screen.lines().skip_while(|l| !l.contains("prompt · accept edits")).nth(1).unwrap_or_default();
    assert!(composer.contains("second prompt"), "composer: {composer}\n{screen}");
    tui.send("\r");
    tui.wait_for("after the rewind");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    // Resumed, the rewound turn is not shown again.
    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut again = Tui::start_in(dir, json!([]), 30, 110, &["--continue"]);
    again.wait_for("Resumed session");
    let screen = again.contents();
    assert!(screen.contains("wrote one") && screen.contains("after the rewind"), "{screen}");
    assert!(!screen.contains("wrote two") && !screen.contains("write b.txt"), "{screen}");
    again.send("\x04");
    assert!(again.wait_exit().success());
}
