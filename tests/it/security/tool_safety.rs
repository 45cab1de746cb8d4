//! Issue 9 through the real binary (`ask --json` with a stub script): tools that must not
//! hang (a FIFO, `/dev/zero`), the per-turn step limit, and secrets kept from the model
//! (`execute` children start without key variables; key values in results become `***`).
//! Each run is killed if it outlives a generous guard, so a regression fails, not hangs.

use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-0123456789abcdef";
/// Far longer than any of these runs needs; only there so a hang fails the test.
const HANG_GUARD: Duration = Duration::from_secs(60);

struct Run {
    dir: tempfile::TempDir,
}

impl Run {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
        Run { dir }
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).to_string_lossy().into_owned()
    }

    fn fifo(&self, rel: &str) -> String {
        let path = self.path(rel);
        let name = std::ffi::CString::new(path.clone()).unwrap();
        // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        path
    }

    /// Runs `elelem -p stub ask --json ARGS PROMPT` with `steps` as the stub script and
    /// `env` added; returns the exit code and the JSON lines.
    fn ask(&self, args: &[&str], steps: Value, env: &[(&str, &str)]) -> (Option<i32>, Vec<Value>) {
        let script = self.dir.path().join("script.json");
        std::fs::write(&script, steps.to_string()).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_elelem"));
        cmd.args(["-p", "stub", "ask", "--json"])
            .args(args)
            .arg("go")
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("ELELEM_STUB_SCRIPT", &script)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ELELEM_MAX_STEPS")
            .env("OLLAMA_HOST", "http://127.0.0.1:9")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > HANG_GUARD {
                let _ = child.kill();
                panic!("elelem hung: still running after {HANG_GUARD:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let lines = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (out.status.code(), lines)
    }
}

fn doing(id: &str, name: &str, arguments: Value) -> Value {
    json!({"type": "doing", "id": id, "name": name, "arguments": arguments})
}

fn calls_then_done(calls: Vec<Value>) -> Value {
    json!([{"events": calls}, {"events": [{"type": "saying", "text": "done"}]}])
}

/// The result of the call with this id.
fn result(lines: &[Value], id: &str) -> Value {
    lines.iter().find(|l| l["type"] == "result" && l["id"] == id).map(|l| l["result"].clone()).unwrap_or(Value::Null)
}

fn not_regular(path: &str, kind: &str) -> String {
    format!("{path} is {kind}, not a regular file; the tools only read and write regular files")
}

#[test]
fn reading_a_fifo_or_dev_zero_fails_at_once() {
    let run = Run::new();
    let pipe = run.fifo("pipe");
    let script = calls_then_done(vec![
        doing("t1", "read", json!({"path": pipe})),
        doing("t2", "read", json!({"path": "/dev/zero"})),
    ]);
    // /dev/zero is outside the project: --yolo lets the call reach the tool's own check.
    let (code, lines) = run.ask(&["--yolo"], script, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(
        result(&lines, "t1"),
        json!({"error": not_regular(&pipe, "a FIFO (named pipe)"), "path": pipe, "ok": false})
    );
    assert_eq!(
        result(&lines, "t2"),
        json!({"error": not_regular("/dev/zero", "a character device"), "path": "/dev/zero", "ok": false})
    );
}

#[test]
fn writing_or_editing_a_fifo_fails_at_once() {
    let run = Run::new();
    let pipe = run.fifo("pipe");
    let script = calls_then_done(vec![
        doing("t1", "write", json!({"path": pipe, "content": "x"})),
        doing("t2", "edit", json!({"path": pipe, "old": "a", "new": "b"})),
    ]);
    let (code, lines) = run.ask(&["--yolo"], script, &[]);
    assert_eq!(code, Some(0));
    let refused = not_regular(&pipe, "a FIFO (named pipe)");
    assert_eq!(result(&lines, "t1"), json!({"error": refused, "path": pipe, "ok": false}));
    assert_eq!(result(&lines, "t2"), json!({"error": refused, "ok": false}));
}

/// A script whose model asks for a tool on every one of `n` calls.
fn endless_tool_calls(n: usize) -> Value {
    Value::Array(
        (0..n).map(|i| json!({"events": [doing(&format!("t{i}"), "read", json!({"path": "README.md"}))]})).collect(),
    )
}

fn step_limit_message(n: usize) -> String {
    format!(
        "stopped after {n} model calls in one turn, the step limit; the model was still asking for tools \
         (raise the limit with --max-steps or ELELEM_MAX_STEPS)"
    )
}

#[test]
fn max_steps_stops_a_model_that_keeps_calling_tools() {
    let run = Run::new();
    let (code, lines) = run.ask(&["--max-steps", "3"], endless_tool_calls(10), &[]);
    assert_eq!(code, Some(1));
    assert_eq!(lines.iter().filter(|l| l["type"] == "result").count(), 2);
    assert!(lines.contains(&json!({"type": "error", "message": step_limit_message(3)})), "{lines:?}");
    assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": format!("Error: {}", step_limit_message(3))}));
}

#[test]
fn the_step_limit_can_be_set_in_the_environment() {
    let run = Run::new();
    let (code, lines) = run.ask(&[], endless_tool_calls(10), &[("ELELEM_MAX_STEPS", "2")]);
    assert_eq!(code, Some(1));
    assert_eq!(lines.iter().filter(|l| l["type"] == "result").count(), 1);
    assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": format!("Error: {}", step_limit_message(2))}));
}

#[test]
fn execute_children_start_without_keys_and_key_values_are_redacted() {
    let run = Run::new();
    let script = calls_then_done(vec![
        doing("t0", "execute", json!({"command": "env | grep -E '^(ANTHROPIC_API_KEY|MY_SECRET)='; echo end"})),
        doing("t1", "execute", json!({"command": "env | grep KEY"})),
        doing("t2", "execute", json!({"command": format!("echo the key is {KEY}")})),
        doing("t3", "execute", json!({"command": "echo \"$GITHUB_TOKEN\""})),
    ]);
    let env = [
        ("ANTHROPIC_API_KEY", KEY),
        ("GITHUB_TOKEN", "ghp_kept-but-redacted"),
        ("MY_SECRET", "hunter2hunter2"),
        ("ELELEM_EXECUTE_KEEP_ENV", "GITHUB_TOKEN"),
    ];
    let (code, lines) = run.ask(&["--yolo"], script, &env);
    assert_eq!(code, Some(0));
    let listed = result(&lines, "t0");
    assert_eq!(listed["content"], "end\n", "no secret variable reaches the command: {listed}");
    assert!(!result(&lines, "t1")["content"].as_str().unwrap_or_default().contains("ANTHROPIC_API_KEY"));
    assert_eq!(result(&lines, "t2")["content"], "the key is ***\n");
    assert_eq!(
        result(&lines, "t3")["content"],
        "***\n",
        "a kept variable reaches the command, its value not the model"
    );
    let results: String = lines.iter().filter(|l| l["type"] == "result").map(Value::to_string).collect();
    assert!(!results.contains(KEY) && !results.contains("hunter2hunter2"), "{results}");
}
