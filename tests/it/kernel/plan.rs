//! The `plan` tool through the real binary: `ask --json` emits each plan as a `plan` line,
//! the line REPL prints it when it changes, a resumed session shows the newest plan again,
//! and a plan with two steps in progress is refused.

use crate::support::home::{reply, Home};
use serde_json::{json, Value};
use std::io::Write;

fn plan_call(id: &str, statuses: [&str; 3]) -> Value {
    let steps: Vec<Value> = ["read the code", "fix the bug", "run the tests"]
        .iter()
        .zip(statuses)
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    json!({"type": "doing", "id": id, "name": "plan", "arguments": {"steps": steps, "explanation": "three steps"}})
}

fn two_updates() -> Value {
    json!([
        {"events": [plan_call("p1", ["in_progress", "pending", "pending"])]},
        {"events": [plan_call("p2", ["completed", "in_progress", "pending"])]},
        {"events": [{"type": "saying", "text": "working on it"}]}
    ])
}

fn run(home: &Home, args: &[&str], script: Value, stdin: &str) -> String {
    let mut child = home.command(args, &home.script(script)).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn ask_json_emits_each_plan_whole() {
    let home = Home::new();
    let out = run(&home, &["ask", "--json", "fix it"], two_updates(), "");
    let plans: Vec<Value> =
        out.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(|v| v["type"] == "plan").collect();
    assert_eq!(plans.len(), 2, "{out}");
    assert_eq!(plans[1]["steps"][0], json!({"step": "read the code", "status": "completed"}));
    assert_eq!(plans[1]["steps"][1]["status"], "in_progress");
    assert_eq!(plans[1]["explanation"], "three steps");
}

#[test]
fn the_line_repl_prints_the_plan_and_a_resumed_session_shows_the_newest() {
    let home = Home::new();
    let out = run(&home, &["chat", "--plain"], two_updates(), "fix it\n");
    assert!(out.contains("plan (0/3 done):"), "{out}");
    assert!(out.contains("plan (1/3 done):\n  ✓ read the code\n  ▸ fix the bug\n  ○ run the tests"), "{out}");
    let resumed = run(&home, &["chat", "--plain", "--continue"], reply(""), "");
    assert!(resumed.contains("plan (1/3 done):\n  ✓ read the code\n  ▸ fix the bug"), "{resumed}");
    assert!(!resumed.contains("plan (0/3 done)"), "only the newest plan comes back: {resumed}");
}

#[test]
fn two_steps_in_progress_are_refused() {
    let home = Home::new();
    let script = json!([
        {"events": [plan_call("p1", ["in_progress", "in_progress", "pending"])]},
        {"events": [{"type": "saying", "text": "ok"}]}
    ]);
    let out = run(&home, &["ask", "--json", "go"], script, "");
    assert!(out.contains("2 steps are in_progress; mark at most one"), "{out}");
    assert!(!out.lines().any(|l| l.contains("\"type\":\"plan\"")), "{out}");
}
