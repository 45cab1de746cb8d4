//! Issue 30: the line REPL (`chat --plain`) prints a running command's output as it comes,
//! each line under a `│` gutter: the test lets the command finish only once its first line
//! was read, so a REPL that printed the output at the end would never get there.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_line_repl_streams_a_running_commands_lines() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let command = format!("echo line1; while [ ! -f '{}' ]; do sleep 0.05; done; echo line2", go.display());
    let steps = serde_json::json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "finished"}]}
    ]);
    let script = dir.path().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "--yolo"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("ELELEM_SANDBOX", "off")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"run it\n").unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let next = |seen: &mut Vec<String>| {
        let line = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).unwrap_or_else(|_| {
            let _ = std::fs::write(&go, "");
            panic!("timed out; printed so far: {seen:#?}")
        });
        seen.push(line.clone());
        line
    };
    while next(&mut seen) != "  │ line1" {}
    std::fs::write(&go, "").unwrap();
    while next(&mut seen) != "  │ line2" {}
    while !next(&mut seen).contains("finished") {}
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(!seen.iter().any(|l| l.contains("earlier lines")), "no tail after streamed lines: {seen:#?}");
}
