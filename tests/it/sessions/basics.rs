//! Sessions that survive (issue 11): every run is recorded as JSONL under the data
//! directory (0600), `--continue` / `--resume ID` restore exactly the conversation the model
//! sees, `elelem sessions` lists them, a truncated last line is skipped with a warning, a
//! process killed with SIGKILL mid-turn loses nothing before it, and no key is written.

use serde_json::json;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use crate::support::home::{reply, Home};

/// The shared temporary home, with a run that writes `stdin` and waits for the end.
trait Runs {
    fn run(&self, args: &[&str], script: &Path, stdin: &str) -> Output;
}

impl Runs for Home {
    fn run(&self, args: &[&str], script: &Path, stdin: &str) -> Output {
        let mut cmd = self.command(args, script);
        // A key in the environment that must never reach a session file.
        cmd.env("ANTHROPIC_API_KEY_UNUSED", "sk-ant-never-written-0123456789");
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_session_is_recorded_and_continue_restores_its_conversation() {
    let home = Home::new();
    let first = home.run(&["chat", "--plain"], &home.script(reply("The answer is 42.")), "what is the answer?\n");
    assert!(first.status.success());
    let files = home.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "session files are private");
    let dir_mode = std::fs::metadata(home.sessions_dir()).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o077, 0, "the sessions directory is private");

    let second = home.run(&["chat", "--plain", "--continue"], &home.script(reply("Still 42.")), "/context\nand now?\n");
    let text = stdout(&second);
    assert!(text.contains("Resumed session"), "{text}");
    assert!(text.contains("2. user: what is the answer?\n  3. assistant: The answer is 42."), "{text}");
    assert!(text.contains("Still 42."), "{text}");
    assert_eq!(home.session_files().len(), 1, "continue appends to the same session");

    let third = home.run(&["chat", "--plain", "-c"], &home.script(reply("x")), "/context\n");
    let text = stdout(&third);
    assert!(text.contains("4. user: and now?\n  5. assistant: Still 42."), "{text}");
}

#[test]
fn sessions_are_listed_and_resumed_by_id() {
    let home = Home::new();
    home.run(&["ask", "first question"], &home.script(reply("one")), "");
    // Sessions are listed newest first by modification time: the first one is made a
    // minute older instead of waiting for the clock.
    let first = home.session_files().pop().unwrap();
    let earlier = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options().write(true).open(&first).unwrap().set_modified(earlier).unwrap();
    home.run(&["chat", "--plain"], &home.script(reply("two")), "second question\n");
    let list = stdout(&home.run(&["sessions"], &home.script(reply("")), ""));
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 2, "{list}");
    assert!(lines[0].contains("second question") && lines[1].contains("first question"), "{list}");
    let id = lines[1].split_whitespace().nth(1).unwrap();
    let resumed = home.run(&["chat", "--plain", "--resume", id], &home.script(reply("")), "/context\n");
    assert!(stdout(&resumed).contains("2. user: first question"), "{}", stdout(&resumed));
    let missing = home.run(&["chat", "--plain", "--resume", "nope"], &home.script(reply("")), "");
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no session \"nope\""));
}

#[test]
fn a_truncated_last_line_is_skipped_with_a_warning() {
    let home = Home::new();
    home.run(&["chat", "--plain"], &home.script(reply("kept reply")), "kept prompt\n");
    let file = home.session_files().remove(0);
    let mut handle = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    handle.write_all(br#"{"type":"messages","keep":2,"app"#).unwrap();
    let out = home.run(&["chat", "--plain", "--continue"], &home.script(reply("")), "/context\n");
    let text = stdout(&out);
    assert!(text.contains("2. user: kept prompt\n  3. assistant: kept reply"), "{text}");
    assert!(text.contains("skipped"), "a warning names the skipped line: {text}");
}

#[test]
fn a_process_killed_mid_turn_keeps_everything_before_the_kill() {
    let home = Home::new();
    let slow = json!([{"events": [
        {"type": "saying", "text": "partial words "},
        {"type": "saying", "text": "that never finish", "delay_ms": 60000}
    ]}]);
    let mut child = home.command(&["chat", "--plain"], &home.script(slow)).spawn().unwrap();
    child.stdin.as_mut().unwrap().write_all(b"a prompt before the crash\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let recorded = home.session_files().first().map(|f| std::fs::read_to_string(f).unwrap()).unwrap_or_default();
        if recorded.contains("a prompt before the crash") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let out = home.run(&["chat", "--plain", "--continue"], &home.script(reply("")), "/context\n");
    let text = stdout(&out);
    assert!(text.contains("2. user: a prompt before the crash"), "{text}");
}

#[test]
fn keys_are_never_written_to_a_session() {
    let home = Home::new();
    home.run(&["ask", "hello"], &home.script(reply("hi")), "");
    let recorded = std::fs::read_to_string(home.session_files().remove(0)).unwrap();
    assert!(recorded.contains("hello"));
    assert!(!recorded.contains("sk-ant-never-written"), "{recorded}");
}

fn doing(calls: &[(&str, &str, serde_json::Value)]) -> serde_json::Value {
    let events: Vec<serde_json::Value> = calls
        .iter()
        .map(|(id, name, arguments)| json!({"type": "doing", "id": id, "name": name, "arguments": arguments}))
        .collect();
    json!({ "events": events })
}

#[test]
fn undo_restores_files_even_after_resume_and_asks_before_overwriting_outside_changes() {
    let home = Home::new();
    let (existing, created, later) =
        (home.dir.path().join("existing.txt"), home.dir.path().join("new.txt"), home.dir.path().join("later.txt"));
    std::fs::write(&existing, "original\n").unwrap();
    let script = home.script(json!([
        doing(&[
            ("t1", "write", json!({"path": "new.txt", "content": "created\n"})),
            ("t2", "edit", json!({"path": "existing.txt", "old": "original", "new": "changed"})),
        ]),
        {"events": [{"type": "saying", "text": "turn one done"}]},
        doing(&[("t3", "write", json!({"path": "later.txt", "content": "later\n"}))]),
        {"events": [{"type": "saying", "text": "turn two done"}]},
    ]));
    let first = home.run(&["chat", "--plain", "--yolo"], &script, "change files\nand more\n/undo --list\n/undo\n");
    let text = stdout(&first);
    assert!(text.contains("turn 1: new.txt, existing.txt") && text.contains("turn 2: later.txt"), "{text}");
    assert!(text.contains("later.txt: deleted"), "{text}");
    assert!(!later.exists(), "/undo took back the last turn");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "changed\n", "turn 1 stays");
    assert_eq!(std::fs::read_to_string(&created).unwrap(), "created\n");

    std::fs::write(&existing, "edited by the user\n").unwrap();
    let second = home.run(&["chat", "--plain", "--continue"], &home.script(reply("")), "/undo\n");
    let text = format!("{}{}", stdout(&second), String::from_utf8_lossy(&second.stderr));
    assert!(text.contains("changed outside elelem") && text.contains("existing.txt"), "{text}");
    assert!(text.contains("/undo --force"), "{text}");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "edited by the user\n", "not overwritten");
    assert!(created.exists());

    let third = home.run(&["chat", "--plain", "--continue"], &home.script(reply("")), "/undo --force\n/undo\n");
    let text = stdout(&third);
    assert!(text.contains("existing.txt: restored") && text.contains("new.txt: deleted"), "{text}");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "original\n");
    assert!(!created.exists());
    let err = String::from_utf8_lossy(&third.stderr);
    assert!(format!("{text}{err}").contains("nothing to undo"), "{text}{err}");
}

#[test]
fn sessions_show_each_sessions_tokens_and_the_share_read_from_cache() {
    let home = Home::new();
    let steps = json!([{"events": [
        {"type": "saying", "text": "one"},
        {"type": "usage", "input_tokens": 120000, "output_tokens": 4000, "cache_read_tokens": 96000,
         "cache_write_tokens": 20000}
    ]}]);
    home.run(&["ask", "a costly question"], &home.script(steps), "");
    let list = stdout(&home.run(&["sessions"], &home.script(reply("")), ""));
    assert!(list.contains("↑120k (80% cached) ↓4k"), "{list}");
    let file = std::fs::read_dir(home.dir.path().join("data/elelem/sessions")).unwrap().next().unwrap().unwrap();
    let text = std::fs::read_to_string(file.path()).unwrap();
    assert!(text.contains(r#""cache_read_tokens":96000"#) && text.contains(r#""cache_write_tokens":20000"#), "{text}");
}

/// Issue 30: `/undo` puts the files back and the next prompt tells the model so, so the
/// conversation no longer claims the change stands.
#[test]
fn undo_leaves_a_note_the_model_reads_with_the_next_prompt() {
    let home = Home::new();
    let target = home.dir.path().join("a.txt");
    std::fs::write(&target, "original\n").unwrap();
    let script = home.script(json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "a.txt", "content": "changed\n"}}]},
        {"events": [{"type": "saying", "text": "Fixed a.txt."}]},
        {"events": [{"type": "saying", "text": "ok"}]}
    ]));
    let out = home.run(&["chat", "--plain", "--yolo"], &script, "fix a\n/undo\nwhat now?\n/context json\n");
    let text = stdout(&out);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original\n");
    assert!(text.contains("a.txt: restored") && text.contains("The model is told with your next prompt"), "{text}");
    // `/context json` after the next prompt: the note went with it, before it.
    let sent = &text[text.find("[The user ran /undo. Undid the file changes of turn 1").expect("the note was sent")..];
    assert!(sent.contains("what now?"), "{text}");
}
