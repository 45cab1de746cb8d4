//! Interop against aimock (`@copilotkit/aimock`, pinned in package.json): the real binary
//! runs `elelem ask --json -p <provider>` against aimock on 127.0.0.1 with the fixtures in
//! `tests/fixtures/aimock/`, for a tool loop with `read`, thinking, a 529 then success, a
//! 401 and a cut-off stream. Assertions are on the JSON lines and on aimock's journal.
//! `npm ci` runs first if `node_modules/@copilotkit/aimock` is missing.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

const KEY: &str = "sk-aimock-test-key-0123456789";

static NPM: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Installs the pinned node dependencies once.
fn ensure_aimock() -> PathBuf {
    let _guard = NPM.lock().unwrap_or_else(|e| e.into_inner());
    let cli = root().join("node_modules/@copilotkit/aimock/dist/cli.js");
    if !cli.is_file() {
        let status = Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(root()).status();
        assert!(status.map(|s| s.success()).unwrap_or(false), "npm ci failed: aimock cannot be installed");
    }
    cli
}

/// A running aimock, killed when dropped.
struct Aimock {
    child: Child,
    url: String,
}

impl Aimock {
    /// Starts aimock on a port the OS picks and waits for it to say which. Guessing a free
    /// port up front races the other tests in this file: two mocks on one port, one exits,
    /// and the survivor is killed by the other test while this one still talks to it.
    fn start() -> Aimock {
        let cli = ensure_aimock();
        let mut child = Command::new("node")
            .arg(cli)
            .args(["--host", "127.0.0.1", "--port", "0", "--log-level", "info", "--fixtures"])
            .arg(root().join("tests/fixtures/aimock/fixtures.json"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("node must be installed to run aimock");
        let stdout = child.stdout.take().expect("aimock's stdout is piped");
        let (sender, receiver) = std::sync::mpsc::channel();
        // Reads until aimock names its address, then keeps draining so its logs never block it.
        std::thread::spawn(move || {
            let mut sender = Some(sender);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.split("listening on ").nth(1) {
                    if let Some(sender) = sender.take() {
                        let _ = sender.send(url.trim().to_string());
                    }
                }
            }
        });
        let url = receiver.recv_timeout(Duration::from_secs(60)).expect("aimock did not say where it listens");
        Aimock { child, url }
    }

    async fn journal(&self) -> Vec<Value> {
        elelem::tls::use_ring();
        let text = reqwest::get(format!("{}/__aimock/journal", self.url)).await.unwrap().text().await.unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Journal entries whose request mentions `prompt`, oldest first.
    async fn requests_for(&self, prompt: &str) -> Vec<Value> {
        let mut entries: Vec<Value> =
            self.journal().await.into_iter().filter(|e| e["body"].to_string().contains(prompt)).collect();
        entries.sort_by_key(|e| e["timestamp"].as_u64());
        entries
    }
}

impl Drop for Aimock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one `elelem ask --json` run printed, and whether it succeeded.
struct Run {
    lines: Vec<Value>,
    stdout: String,
    success: bool,
}

impl Run {
    fn of(&self, kind: &str) -> Vec<&Value> {
        self.lines.iter().filter(|l| l["type"] == kind).collect()
    }
    fn reply(&self) -> String {
        self.of("reply").last().map(|l| l["text"].as_str().unwrap_or("").to_string()).unwrap_or_default()
    }
}

fn ask(mock: &Aimock, provider: &str, extra: &[&str], prompt: &str, dir: &Path) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_elelem"));
    command.args(["ask", "--json", "-p", provider]).args(extra).arg(prompt).current_dir(dir);
    for var in
        ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_MODEL", "OPENAI_MODEL", "OLLAMA_MODEL", "ELELEM_THINKING"]
    {
        command.env_remove(var);
    }
    command
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("ELELEM_RETRY_BASE_MS", "10")
        .env("ELELEM_RETRY_MAX_MS", "200")
        .env("ELELEM_IDLE_TIMEOUT_SECS", "60");
    match provider {
        "anthropic" => command.env("ANTHROPIC_API_KEY", KEY).env("ANTHROPIC_BASE_URL", &mock.url),
        "openai" => command.env("OPENAI_API_KEY", KEY).env("OPENAI_BASE_URL", format!("{}/v1", mock.url)),
        _ => command.env("OLLAMA_HOST", &mock.url),
    };
    let output = command.stdin(Stdio::null()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let lines = stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}"))).collect();
    Run { lines, stdout, success: output.status.success() }
}

/// Runs every scenario against one provider; returns the journal's requests of the tool loop.
async fn scenarios(provider: &str, extra: &[&str]) -> Vec<Value> {
    let mock = Aimock::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Hello\n\nhello from the readme\n").unwrap();

    // A tool loop with `read` (the fixture also sends reasoning).
    let run = ask(&mock, provider, extra, "please read the readme", dir.path());
    assert!(run.success, "{}", run.stdout);
    let doing = run.of("doing");
    assert_eq!(doing.len(), 1, "{}", run.stdout);
    assert_eq!((&doing[0]["name"], &doing[0]["arguments"]), (&json!("read"), &json!({"path": "README.md"})));
    let result = &run.of("result")[0]["result"];
    assert_eq!(result["ok"], json!(true), "{}", run.stdout);
    assert!(result["content"].as_str().unwrap().contains("hello from the readme"));
    assert!(run.of("thinking")[0]["text"].as_str().unwrap().contains("I will read it"), "{}", run.stdout);
    assert_eq!(run.reply(), "The readme says hello.");
    let loop_requests = mock.requests_for("please read the readme").await;
    assert_eq!(loop_requests.len(), 2, "{loop_requests:?}");
    assert!(
        loop_requests[1]["body"].to_string().contains("hello from the readme"),
        "the tool result was not sent back"
    );

    // Thinking and text.
    let run = ask(&mock, provider, extra, "think it over", dir.path());
    assert!(run.success, "{}", run.stdout);
    assert_eq!(run.of("thinking")[0]["text"], json!("Deep thoughts, carefully."), "{}", run.stdout);
    assert_eq!(run.reply(), "Thought it over.");

    // A 529 then success: one retry line, then the answer.
    let run = ask(&mock, provider, extra, "are you overloaded", dir.path());
    assert!(run.success, "{}", run.stdout);
    let retrying = run.of("retrying");
    assert_eq!(retrying.len(), 1, "{}", run.stdout);
    assert_eq!((&retrying[0]["attempt"], &retrying[0]["max"]), (&json!(2), &json!(4)));
    assert!(retrying[0]["reason"].as_str().unwrap().starts_with(&format!("{provider}: 529")), "{}", run.stdout);
    assert_eq!(run.reply(), "Recovered after a retry.");
    let statuses: Vec<Value> =
        mock.requests_for("are you overloaded").await.iter().map(|e| e["response"]["status"].clone()).collect();
    assert_eq!(statuses, vec![json!(529), json!(200)]);

    // A 401 fails at once, with the server's words and without the key.
    let run = ask(&mock, provider, extra, "use a bad key", dir.path());
    assert!(!run.success);
    let error = run.of("error")[0]["message"].as_str().unwrap().to_string();
    assert!(error.starts_with(&format!("{provider}: 401")) && error.contains("invalid x-api-key"), "{error}");
    assert_eq!(run.reply(), format!("Error: {error}"));
    assert!(!run.stdout.contains(KEY));
    assert_eq!(mock.requests_for("use a bad key").await.len(), 1);

    // A stream cut off mid-reply ends the turn with an error; the partial text is not the reply.
    let run = ask(&mock, provider, extra, "cut me off", dir.path());
    assert!(!run.success, "{}", run.stdout);
    let error = run.of("error")[0]["message"].as_str().unwrap().to_string();
    assert!(error.starts_with(&format!("{provider}: the connection")), "{error}");
    assert!(run.reply().starts_with("Error: "));
    loop_requests
}

/// aimock's journal stores each request normalised to the Chat Completions shape (the exact
/// provider shapes are asserted byte for byte in `tests/providers_*.rs`): check that the
/// second request of the tool loop carries the call and its result, linked by id.
fn assert_tool_round_trip(second: &Value) {
    let messages = second["body"]["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    let call = &assistant["tool_calls"][0];
    assert_eq!(call["function"]["name"], json!("read"), "{second}");
    let arguments: Value = match &call["function"]["arguments"] {
        Value::String(text) => serde_json::from_str(text).unwrap(),
        other => other.clone(),
    };
    assert_eq!(arguments, json!({"path": "README.md"}));
    let tool = &messages[messages.len() - 1];
    assert_eq!(tool["role"], json!("tool"));
    assert!(tool["content"].as_str().unwrap().contains("hello from the readme"));
    if let Some(id) = tool.get("tool_call_id") {
        assert_eq!(id, &call["id"]);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_against_aimock() {
    let requests = scenarios("anthropic", &["--thinking", "1024"]).await;
    assert_tool_round_trip(&requests[1]);
    // aimock redacts credentials in its journal; the header must be there.
    assert!(requests[1]["headers"]["x-api-key"].is_string());
    assert_eq!(requests[1]["headers"]["anthropic-version"], json!("2023-06-01"));
    // Thinking on: max_tokens is the budget plus the default.
    assert_eq!(requests[1]["body"]["max_tokens"], json!(1024 + 8192));
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_against_aimock() {
    let requests = scenarios("openai", &[]).await;
    assert_tool_round_trip(&requests[1]);
    assert!(requests[1]["headers"]["authorization"].is_string());
    assert_eq!(requests[1]["body"]["stream_options"], json!({"include_usage": true}));
}

#[tokio::test(flavor = "multi_thread")]
async fn ollama_against_aimock() {
    let requests = scenarios("ollama", &[]).await;
    assert_tool_round_trip(&requests[1]);
    assert_eq!(requests[1]["path"], json!("/api/chat"));
}
