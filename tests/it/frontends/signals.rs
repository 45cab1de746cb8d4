//! Every front end stops cleanly when told to from outside (issue 9 item 10): `ask` on
//! SIGTERM, `chat --plain` on SIGHUP and the full-screen app on SIGINT exit with 128 + the
//! signal, and no command a tool started — nor a job it put in the background — is left.
//! SIGQUIT is taken like SIGTERM (issue 26 item 17; the full-screen app's test is in
//! `tui_pty.rs`).

use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("timed out waiting for {what}");
}

/// A stub script whose model runs `command` through `execute`, then answers.
fn spawn(dir: &std::path::Path, args: &[&str], command: &str, stdin: Stdio) -> Child {
    let script = dir.join("script.json");
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) on our own child's pid; no memory is touched.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

fn exit_code(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("elelem did not exit");
}

#[test]
fn ask_on_sigterm_kills_the_running_command_and_its_background_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("ELELEM_SIGNAL_TEST_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000 & sleep 1000");
    let mut child = spawn(dir.path(), &["ask", "--yolo", "go"], &command, Stdio::null());
    wait_until("both sleeps", || crate::support::marked_processes(&mark).len() >= 2);
    signal(&child, libc::SIGTERM);
    assert_eq!(exit_code(&mut child), Some(143));
    wait_until("no process left", || crate::support::marked_processes(&mark).is_empty());
}

#[test]
fn line_mode_on_sighup_kills_the_running_command() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("ELELEM_SIGNAL_TEST_HUP_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000");
    let mut child = spawn(dir.path(), &["chat", "--plain", "--yolo"], &command, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"go\n").unwrap();
    wait_until("the sleep", || !crate::support::marked_processes(&mark).is_empty());
    signal(&child, libc::SIGHUP);
    assert_eq!(exit_code(&mut child), Some(129));
    wait_until("no process left", || crate::support::marked_processes(&mark).is_empty());
    drop(stdin);
}

#[test]
fn a_background_job_outlives_its_command_but_not_elelem() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("ELELEM_SIGNAL_TEST_BG_{}", std::process::id());
    let command = format!("export {mark}=1; nohup sleep 1000 >/dev/null 2>&1 &");
    // Uncontained: a contained command's background jobs end with it (tests/it/sandbox.rs).
    let mut child = spawn(dir.path(), &["chat", "--plain", "--yolo", "--sandbox", "off"], &command, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"go\n").unwrap();
    wait_until("the background sleep", || !crate::support::marked_processes(&mark).is_empty());
    drop(stdin); // end of input: elelem exits
    assert_eq!(exit_code(&mut child), Some(0));
    wait_until("no process left", || crate::support::marked_processes(&mark).is_empty());
}

#[test]
fn ask_on_sigquit_kills_the_running_command_and_exits_131() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("ELELEM_SIGNAL_TEST_QUIT_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000 & sleep 1000");
    let mut child = spawn(dir.path(), &["ask", "--yolo", "go"], &command, Stdio::null());
    wait_until("both sleeps", || crate::support::marked_processes(&mark).len() >= 2);
    signal(&child, libc::SIGQUIT);
    assert_eq!(exit_code(&mut child), Some(131));
    wait_until("no process left", || crate::support::marked_processes(&mark).is_empty());
}

#[test]
fn line_mode_on_sigquit_kills_the_running_command_and_exits_131() {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("ELELEM_SIGNAL_TEST_QUIT_LINE_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000");
    let mut child = spawn(dir.path(), &["chat", "--plain", "--yolo"], &command, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, b"go\n").unwrap();
    wait_until("the sleep", || !crate::support::marked_processes(&mark).is_empty());
    signal(&child, libc::SIGQUIT);
    assert_eq!(exit_code(&mut child), Some(131));
    wait_until("no process left", || crate::support::marked_processes(&mark).is_empty());
    drop(stdin);
}
