//! Issue 38: after a rewind, `--continue`, `elelem sessions` and the resume picker count
//! only the turns that remain and preview the last of those (its reply as plain text, not
//! raw Markdown), not the rewound turn's exchange. Through the real binary: the line REPL
//! records and rewinds, then `--continue`, `sessions` and `--resume` in a pty read it back.

use crate::tui::pty::Tui;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// `elelem ARGS` in `dir` (home and working directory, data under `data/`), answering from
/// `steps`, with `stdin`; stdout.
fn run(dir: &Path, args: &[&str], steps: serde_json::Value, stdin: &str) -> String {
    let script = dir.join(format!("script-{}.json", args.join("-").replace('/', "")));
    std::fs::write(&script, steps.to_string()).unwrap();
    let mut child = crate::support::home::elelem(dir, dir)
        .args(args)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("ELELEM_STUB_SCRIPT", &script)
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn continue_sessions_and_the_picker_count_and_preview_only_the_turns_that_remain() {
    let dir = tempfile::tempdir().unwrap();
    let steps = json!([
        {"events": [{"type": "saying", "text": "## **First** answer\n\nkept"}]},
        {"events": [{"type": "saying", "text": "SECOND-ANSWER"}]},
        {"events": [{"type": "saying", "text": "THIRD-ANSWER"}]}
    ]);
    let input = "first prompt\nsecond prompt\nthird prompt\n/rewind 2\n";
    let out = run(dir.path(), &["chat", "--plain"], steps, input);
    assert!(out.contains("Rewound 2 turns"), "{out}");

    let out = run(dir.path(), &["chat", "--plain", "--continue"], json!([]), "");
    assert!(out.contains("(1 turn, 2 messages kept)"), "{out}");

    let listed = run(dir.path(), &["sessions"], json!([]), "");
    assert!(listed.contains(" 1 turn ") && !listed.contains("3 turns"), "{listed}");

    let mut picker = Tui::start_in(dir, json!([]), 30, 110, &["--resume"]);
    picker.wait_for("resume a session · type to filter");
    picker.wait_for("‹ ");
    let screen = picker.contents();
    let row = screen.lines().find(|l| l.contains("first prompt") && !l.contains('›')).unwrap_or_default();
    assert!(row.contains("1 turn "), "turns: {row}\n{screen}");
    assert!(screen.contains("› first prompt") && screen.contains("‹ First answer"), "{screen}");
    assert!(!screen.contains("third prompt") && !screen.contains("THIRD-ANSWER"), "{screen}");
    picker.send("\x1b");
    picker.send("\x04");
    picker.wait_exit();
}
