//! Hostile MCP servers (issue 26) against the real `elelem ask --json`: huge results,
//! images and answers, a call never answered, colliding tool names and invalid tool entries, a daemon
//! that leaves the server's session, 20,000 tools. The servers are
//! tests/fixtures/mcp/hostile_server.py; every run is bounded, so a hang fails the test.

use serde_json::{json, Value};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn hostile(args: &[&str]) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/hostile_server.py");
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|a| a.to_string()));
    json!({"command": "python3", "args": all})
}

struct Run {
    dir: tempfile::TempDir,
}

/// What one `ask --json` printed, and how long it took.
struct Asked {
    lines: Vec<Value>,
    elapsed: Duration,
}

impl Run {
    fn new(servers: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::write(dir.path().join(".agents/mcp.json"), json!({ "mcpServers": servers }).to_string()).unwrap();
        Run { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `ask --json go` with the stub playing `steps`; fails after `limit`.
    fn ask(&self, steps: Value, limit: Duration) -> Asked {
        let script = self.path("script.json");
        std::fs::write(&script, steps.to_string()).unwrap();
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_elelem"))
            .args(["ask", "--json", "--yolo", "go"])
            .current_dir(self.path("project"))
            .env("HOME", self.dir.path())
            .env("XDG_DATA_HOME", self.path("data"))
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("MCP_TIMEOUT")
            .env("OLLAMA_HOST", "http://127.0.0.1:9")
            .env("ELELEM_STUB_SCRIPT", &script)
            // 20,000 tool definitions are ~800k tokens, more than any model's window (elelem
            // would refuse to send them); the stub has no real window, and these tests are
            // about the servers, not the window.
            .env("ELELEM_CONTEXT_WINDOW", "100000000")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let mut stderr = child.stderr.take().unwrap();
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let text = reader.join().unwrap();
                let errors = errors.join().unwrap();
                assert!(status.success(), "{errors}\n{text}");
                let lines = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                return Asked { lines, elapsed: start.elapsed() };
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("ask did not end within {limit:?}:\n{}", reader.join().unwrap());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The bytes of every session file.
    fn session_bytes(&self) -> u64 {
        let dir = self.path("data/elelem/sessions");
        let entries = std::fs::read_dir(dir).map(|d| d.flatten().collect::<Vec<_>>()).unwrap_or_default();
        entries.iter().map(|e| e.metadata().map(|m| m.len()).unwrap_or(0)).sum()
    }
}

fn doing(id: &str, name: &str) -> Value {
    json!({"type": "doing", "id": id, "name": name, "arguments": {}})
}

fn call_then_done(calls: Vec<Value>) -> Value {
    json!([{"events": calls}, {"events": [{"type": "saying", "text": "done"}]}])
}

fn result_of<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    let line = lines.iter().find(|l| l["type"] == "result" && l["id"] == id);
    &line.unwrap_or_else(|| panic!("no result for {id}: {lines:#?}"))["result"]
}

fn texts(lines: &[Value]) -> String {
    lines.iter().filter_map(|l| l["text"].as_str().or(l["message"].as_str())).collect::<Vec<_>>().join("\n")
}

#[test]
fn huge_results_and_images_are_cut_with_a_note_and_the_call_ends() {
    let run = Run::new(json!({
        "nine": hostile(&["big", "9000000"]),
        "seventeen": hostile(&["big", "17000000"]),
        "fifty": hostile(&["big", "50000000"]),
    }));
    let asked = run.ask(
        call_then_done(vec![
            doing("t1", "nine_big"),
            doing("t2", "seventeen_big"),
            doing("t3", "fifty_picture"),
            doing("t4", "fifty_blocks"),
        ]),
        Duration::from_secs(90),
    );
    for (id, total) in [("t1", 9_000_000), ("t2", 17_000_000)] {
        let result = result_of(&asked.lines, id);
        assert_eq!(result["ok"], true, "{id}: {}", texts(&asked.lines));
        let content = result["content"].as_str().unwrap();
        assert!(content.len() < 40_000, "{id}: {} bytes reached the model", content.len());
        assert!(content.starts_with("BEGINxxx") && content.ends_with("xxxEND"), "{id}: head and tail are kept");
        assert!(content.contains(&format!("cut from the middle of {total} bytes")), "{id}: {}", &content[16_000..]);
    }
    let picture = result_of(&asked.lines, "t3");
    let content = picture["content"].as_str().unwrap_or_default();
    assert!(content.contains("image/png") && content.contains("not shown"), "{picture}");
    assert!(content.len() < 1000, "{picture}");
    // 50 MB in short strings: the answer is over the line limit and becomes an error.
    let blocks = result_of(&asked.lines, "t4");
    assert_eq!(blocks["ok"], false, "{blocks}");
    assert!(blocks["error"].as_str().unwrap().contains("over 32 MB"), "{blocks}");
    assert!(run.session_bytes() < 500_000, "the session file holds {} bytes", run.session_bytes());
}

#[test]
fn a_call_the_server_never_answers_ends_at_the_servers_time_limit() {
    let mut server = hostile(&["silent"]);
    server["timeout"] = json!(1.5);
    let run = Run::new(json!({"mute": server}));
    let asked = run.ask(
        json!([
            {"events": [doing("t1", "mute_wait")]},
            {"events": [doing("t2", "mute_quick")]},
            {"events": [{"type": "saying", "text": "done"}]}
        ]),
        Duration::from_secs(30),
    );
    let waited = result_of(&asked.lines, "t1");
    assert_eq!(waited["ok"], false, "{waited}");
    let error = waited["error"].as_str().unwrap();
    assert!(error.contains("MCP server mute did not answer wait within 1.5 s"), "{error}");
    assert!(error.contains("\"timeout\""), "the message says what to change: {error}");
    // The server is still usable after a call timed out.
    assert_eq!(result_of(&asked.lines, "t2"), &json!({"content": "called quick", "ok": true}));
    assert!(asked.elapsed < Duration::from_secs(20), "{:?}", asked.elapsed);
}

#[test]
fn colliding_names_get_a_suffix_and_invalid_tools_are_skipped_not_the_list() {
    let run = Run::new(json!({"x": hostile(&["names"])}));
    let asked = run.ask(
        call_then_done(vec![
            doing("t1", "x_a_b"),
            doing("t2", "x_a_b_2"),
            doing("t3", "x_a_b_3"),
            doing("t4", "x_fine"),
            doing("t5", &format!("x_{}", "n".repeat(62))),
        ]),
        Duration::from_secs(60),
    );
    let all = texts(&asked.lines);
    assert_eq!(result_of(&asked.lines, "t1")["content"], "called a.b", "{all}");
    assert_eq!(result_of(&asked.lines, "t2")["content"], "called a_b", "{all}");
    assert_eq!(result_of(&asked.lines, "t3")["content"], "called a b", "{all}");
    assert_eq!(result_of(&asked.lines, "t4")["content"], "called fine", "{all}");
    // Provider APIs take names of 64 characters at most.
    assert_eq!(result_of(&asked.lines, "t5")["content"], format!("called {}", "n".repeat(300)), "{all}");
    assert!(all.contains("is named x_nnn") && all.contains("(cut to 64 characters)"), "{all}");
    assert!(all.contains("MCP server x: tool a_b is named x_a_b_2 (x_a_b is taken)"), "{all}");
    assert!(all.contains("MCP server x: tool a b is named x_a_b_3 (x_a_b is taken)"), "{all}");
    for skipped in ["tool number 4 (name 5)", "tool typed", "tool deep", "tool regex"] {
        assert!(all.contains(&format!("MCP server x: skipping {skipped}")), "{skipped}: {all}");
    }
    assert!(all.contains("MCP server x ready with 7 tools"), "{all}");
}

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'),
        Err(_) => false,
    }
}

/// Runs a server in `mode` (daemon or daemon2), ends elelem, and says whether the daemon
/// it left outlived elelem.
fn daemon_outlives_elelem(mode: &str) -> (i32, bool) {
    let run = Run::new(json!({}));
    let pid_file = run.path("daemon.pid");
    let config = json!({"mcpServers": {"d": hostile(&[mode, &pid_file.display().to_string()])}});
    std::fs::write(run.path(".agents/mcp.json"), config.to_string()).unwrap();
    run.ask(call_then_done(vec![doing("t1", "d_quick")]), Duration::from_secs(60));
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let survived = alive(pid);
    if survived {
        // SAFETY: kill(2) on a pid this test's server started; no memory is touched.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    (pid, survived)
}

#[test]
fn a_daemon_the_server_started_in_its_own_session_is_stopped_at_exit() {
    let (pid, survived) = daemon_outlives_elelem("daemon");
    assert!(!survived, "the daemon {pid} outlived elelem");
}

#[test]
fn a_double_forked_daemon_is_stopped_at_exit() {
    let (pid, survived) = daemon_outlives_elelem("daemon2");
    assert!(!survived, "the daemon {pid} outlived elelem");
}

#[test]
fn twenty_thousand_tools_are_ready_in_seconds() {
    let run = Run::new(json!({"many": hostile(&["many", "20000"])}));
    let asked = run.ask(call_then_done(vec![doing("t1", "many_t19999")]), Duration::from_secs(120));
    assert_eq!(result_of(&asked.lines, "t1"), &json!({"content": "called t19999", "ok": true}));
    eprintln!("20,000 tools: ask took {:?}", asked.elapsed);
    assert!(asked.elapsed < Duration::from_secs(12), "ask took {:?}", asked.elapsed);
}
