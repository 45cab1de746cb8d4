//! `elelem acp` through the real binary. The official ACP client SDK
//! (`@agentclientprotocol/sdk`, pinned in package.json; `acp_support/client.mjs`) drives a
//! turn in which the model reads a file and writes one after asking: the streamed reply,
//! the tool calls with their completion and the permission request arrive, and the SDK
//! accepts every message (it checks them against the protocol's schema). Raw JSON-RPC
//! lines test what an SDK would never send: malformed input, cancel, and session/load.

use crate::support::home::Home;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

static NPM: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Installs the pinned node dependencies once (the MCP SDK's tests use it too).
pub(super) fn ensure_sdk() {
    let _guard = NPM.lock().unwrap_or_else(|e| e.into_inner());
    if !root().join("node_modules/@agentclientprotocol/sdk/package.json").is_file() {
        let status = Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(root()).status();
        assert!(status.map(|s| s.success()).unwrap_or(false), "npm ci failed: the ACP SDK cannot be installed");
    }
}

/// The model: reads `notes.txt`, writes `out.txt`, sets a plan, then says it is done.
fn read_then_write() -> Value {
    json!([
        {"events": [{"type": "doing", "id": "call-read", "name": "read", "arguments": {"path": "notes.txt"}}]},
        {"events": [{"type": "doing", "id": "call-write", "name": "write", "arguments": {"path": "out.txt", "content": "written by elelem\n"}}]},
        {"events": [{"type": "doing", "id": "call-plan", "name": "plan", "arguments": {"steps": [
            {"step": "read the notes", "status": "completed"}, {"step": "write out.txt", "status": "in_progress"}
        ]}}]},
        {"events": [{"type": "thinking", "text": "both done"}, {"type": "saying", "text": "Read the notes and wrote out.txt."}]}
    ])
}

/// Runs the SDK client against `elelem acp` in `home`, answering permission requests with
/// `answer`; returns its JSON lines.
fn sdk_client(home: &Home, script: Value, prompt: &str, answer: &str) -> Vec<Value> {
    sdk_client_with(home, script, &[prompt, answer])
}

/// `sdk_client` with the client's arguments after the binary's path.
fn sdk_client_with(home: &Home, script: Value, args: &[&str]) -> Vec<Value> {
    ensure_sdk();
    let script = home.script(script);
    let dir = home.dir.path();
    let out = Command::new("node")
        .arg(root().join("tests/it/frontends/acp_client.mjs"))
        .arg(env!("CARGO_BIN_EXE_elelem"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("ELELEM_STUB_SCRIPT", &script)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .stdin(Stdio::null())
        .output()
        .expect("node must be installed to run the ACP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    assert!(
        out.status.success() && !lines.iter().any(|l| l["kind"] == "error"),
        "the client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

/// The `session/update`s the client got, in order.
fn updates(lines: &[Value]) -> Vec<Value> {
    lines.iter().filter(|l| l["kind"] == "notification").map(|l| l["params"]["update"].clone()).collect()
}

fn of_call<'a>(updates: &'a [Value], id: &str) -> Vec<&'a Value> {
    updates.iter().filter(|u| u["toolCallId"] == id).collect()
}

fn text_of(updates: &[Value], kind: &str) -> String {
    updates.iter().filter(|u| u["sessionUpdate"] == kind).filter_map(|u| u["content"]["text"].as_str()).collect()
}

#[test]
fn the_official_client_drives_a_turn_with_a_read_and_an_asked_write() {
    let home = Home::new();
    std::fs::write(home.dir.path().join("notes.txt"), "the notes say hello\n").unwrap();
    let lines = sdk_client(&home, read_then_write(), "read the notes, then write out.txt", "allow_once");
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"initialize"), "{lines:#?}");
    let init = &lines[0]["result"];
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(init["agentCapabilities"]["promptCapabilities"]["embeddedContext"], true);

    // The session id is the session file's: `session/load` can find it again.
    let session = lines.iter().find(|l| l["kind"] == "session/new").expect("session/new answered");
    let id = session["result"]["sessionId"].as_str().unwrap().to_string();
    let files = home.session_files();
    assert!(files.iter().any(|f| f.to_string_lossy().contains(&id)), "{id} not in {files:?}");
    let all_ours =
        lines.iter().filter(|l| l["kind"] == "notification").all(|l| l["params"]["sessionId"] == id.as_str());
    assert!(all_ours, "{lines:#?}");

    let updates = updates(&lines);
    let notes = home.dir.path().join("notes.txt").display().to_string();
    // The read: started with its kind, title and location, then completed with the file.
    let read = of_call(&updates, "call-read");
    assert_eq!(read[0]["sessionUpdate"], "tool_call", "{read:#?}");
    assert_eq!(read[0]["kind"], "read");
    assert_eq!(read[0]["title"], "read notes.txt");
    assert_eq!(read[0]["locations"], json!([{"path": notes}]));
    let done = read.last().unwrap();
    assert_eq!(
        (done["sessionUpdate"].as_str(), done["status"].as_str()),
        (Some("tool_call_update"), Some("completed"))
    );
    assert!(done["content"][0]["content"]["text"].as_str().unwrap().contains("the notes say hello"), "{done}");

    // The write: asked about first (with its diff), then completed.
    let asked: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "request").collect();
    assert_eq!(asked.len(), 1, "one permission request: {lines:#?}");
    let request = &asked[0]["params"];
    assert_eq!(request["sessionId"], id.as_str());
    assert_eq!(request["toolCall"]["toolCallId"], "call-write");
    assert_eq!(request["toolCall"]["kind"], "edit");
    // The change is ACP diff content: the file's absolute path, no old text (a new file).
    let out = home.dir.path().join("out.txt").display().to_string();
    let created = json!([{"type": "diff", "path": out, "oldText": null, "newText": "written by elelem\n"}]);
    assert_eq!(request["toolCall"]["content"], created, "{request:#}");
    let offered: Vec<&str> = request["options"].as_array().unwrap().iter().filter_map(|o| o["kind"].as_str()).collect();
    assert_eq!(offered, ["allow_once", "allow_always", "reject_once"]);
    let write = of_call(&updates, "call-write");
    assert_eq!(write[0]["kind"], "edit");
    assert_eq!(write.last().unwrap()["status"], "completed", "{write:#?}");
    assert_eq!(write.last().unwrap()["content"], created, "{write:#?}");
    assert_eq!(std::fs::read_to_string(home.dir.path().join("out.txt")).unwrap(), "written by elelem\n");

    // The plan, as ACP's entries.
    let plan = updates.iter().find(|u| u["sessionUpdate"] == "plan").expect("a plan update");
    assert_eq!(
        plan["entries"],
        json!([
            {"content": "read the notes", "priority": "medium", "status": "completed"},
            {"content": "write out.txt", "priority": "medium", "status": "in_progress"}
        ])
    );

    // The reply and the thinking streamed, then the turn ended.
    assert_eq!(text_of(&updates, "agent_message_chunk"), "Read the notes and wrote out.txt.");
    assert_eq!(text_of(&updates, "agent_thought_chunk"), "both done");
    // (The SDK hands notifications to their handler after the response they came before.)
    let end = lines.iter().find(|l| l["kind"] == "session/prompt").expect("the prompt answered");
    assert_eq!(end["result"], json!({"stopReason": "end_turn"}));
}

#[test]
fn a_rejected_or_cancelled_permission_writes_nothing() {
    for answer in ["reject_once", "cancelled", "allow_all_the_things"] {
        let home = Home::new();
        std::fs::write(home.dir.path().join("notes.txt"), "notes\n").unwrap();
        let lines = sdk_client(&home, read_then_write(), "go", answer);
        let updates = updates(&lines);
        let write = of_call(&updates, "call-write");
        assert_eq!(write.last().unwrap()["status"], "failed", "{answer}: {write:#?}");
        assert!(!home.dir.path().join("out.txt").exists(), "{answer}: the write ran");
    }
}

#[test]
fn with_the_editors_files_offered_the_tools_read_and_write_its_buffers() {
    let home = Home::new();
    // The disk's text differs from the editor's: every diff must show the editor's.
    std::fs::write(home.dir.path().join("notes.txt"), "BUFFER on disk\n").unwrap();
    let script = json!([
        {"events": [{"type": "doing", "id": "call-read", "name": "read", "arguments": {"path": "notes.txt"}}]},
        {"events": [{"type": "doing", "id": "call-edit", "name": "edit", "arguments": {"path": "notes.txt", "old": "BUFFER", "new": "EDITED"}}]},
        {"events": [{"type": "doing", "id": "call-write", "name": "write", "arguments": {"path": "out.txt", "content": "new file\n"}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let lines = sdk_client_with(&home, script, &["go", "allow_once", "fs"]);
    let notes = home.dir.path().join("notes.txt").display().to_string();
    let out = home.dir.path().join("out.txt").display().to_string();
    let asked = |method: &str| -> Vec<Value> {
        lines.iter().filter(|l| l["kind"] == "request" && l["method"] == method).map(|l| l["params"].clone()).collect()
    };
    // The read got the editor's text of the file, not the disk's.
    let updates = updates(&lines);
    let read = of_call(&updates, "call-read");
    let shown = read.last().unwrap()["content"][0]["content"]["text"].as_str().unwrap().to_string();
    assert!(shown.contains(&format!("BUFFER {notes}")) && !shown.contains("on disk"), "{shown}");
    let reads = asked("fs/read_text_file");
    assert!(
        reads.iter().all(|r| [notes.as_str(), out.as_str()].contains(&r["path"].as_str().unwrap_or_default())
            && r["sessionId"].is_string()),
        "{reads:#?}"
    );
    // The edit changed the editor's text and wrote it back through the editor; the write too.
    let writes = asked("fs/write_text_file");
    assert_eq!(writes.len(), 2, "{lines:#?}");
    assert_eq!(
        (writes[0]["path"].as_str(), writes[0]["content"].as_str()),
        (Some(notes.as_str()), Some(&*format!("EDITED {notes}\n")))
    );
    assert_eq!((writes[1]["path"].as_str(), writes[1]["content"].as_str()), (Some(out.as_str()), Some("new file\n")));
    // The edit's diff, asked about and done, is of the editor's text (the "editor" of
    // acp_support/client.mjs holds "BUFFER <path>" for every file, out.txt too).
    let edit_diff = json!([{"type": "diff", "path": notes, "oldText": format!("BUFFER {notes}\n"), "newText": format!("EDITED {notes}\n")}]);
    let write_diff =
        json!([{"type": "diff", "path": out, "oldText": format!("BUFFER {out}\n"), "newText": "new file\n"}]);
    let edited = of_call(&updates, "call-edit");
    assert_eq!(edited.last().unwrap()["content"], edit_diff, "{edited:#?}");
    assert_eq!(of_call(&updates, "call-write").last().unwrap()["content"], write_diff);
    let permissions = asked("session/request_permission");
    assert_eq!(permissions[0]["toolCall"]["content"], edit_diff, "{permissions:#?}");
    assert_eq!(permissions[1]["toolCall"]["content"], write_diff, "{permissions:#?}");
    for id in ["call-read", "call-edit", "call-write"] {
        assert_eq!(of_call(&updates, id).last().unwrap()["status"], "completed", "{id}: {updates:#?}");
    }
    // Both changes were asked about first, and the disk was left alone.
    assert_eq!(asked("session/request_permission").len(), 2);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "BUFFER on disk\n");
    assert!(!home.dir.path().join("out.txt").exists());
}

/// `elelem acp` spoken to in raw JSON-RPC lines.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Raw {
    fn start(home: &Home, script: Value) -> Raw {
        let mut child = home.command(&["acp", "-p", "stub"], &home.script(script)).spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or_else(|_| json!({"not json": line}));
                if sender.send(value).is_err() {
                    break;
                }
            }
        });
        Raw { child, stdin, lines }
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: u64, method: &str, params: Value) {
        self.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
    }

    /// Lines until the response to `id` (included). A minute without one fails the test.
    fn until_response(&mut self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    let done = line["id"] == id && line.get("method").is_none();
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no response to {id}; got {seen:#?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("elelem acp ended before answering {id}: {seen:#?}"),
            }
        }
    }

    fn next(&mut self) -> Value {
        self.lines.recv_timeout(Duration::from_secs(60)).expect("a line from elelem acp")
    }

    /// Closes stdin; the process must end by itself, successfully. Returns its stderr.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        stderr
    }

    fn new_session(&mut self, id: u64, cwd: &Path) -> String {
        self.request(id, "session/new", json!({"cwd": cwd, "mcpServers": []}));
        let answer = self.until_response(id).pop().unwrap();
        answer["result"]["sessionId"].as_str().unwrap_or_else(|| panic!("{answer}")).to_string()
    }
}

fn initialize(raw: &mut Raw) {
    raw.request(0, "initialize", json!({"protocolVersion": 1, "clientCapabilities": {}}));
    let answer = raw.until_response(0).pop().unwrap();
    assert_eq!(answer["result"]["protocolVersion"], 1, "{answer}");
}

#[test]
fn malformed_input_gets_clear_errors_and_the_server_goes_on() {
    let home = Home::new();
    let mut raw = Raw::start(&home, json!([]));
    let bad = [
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", Value::Null, -32700, "parse error"),
        ("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\"}]", Value::Null, -32600, "batches"),
        ("{\"id\":3,\"method\":\"initialize\"}", json!(3), -32600, "jsonrpc"),
        ("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/fly\"}", json!(4), -32601, "session/fly"),
        ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"nope\",\"prompt\":[]}}", json!(5), -32602, "no session nope"),
        ("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"session/new\",\"params\":{\"cwd\":\"relative\",\"mcpServers\":[]}}", json!(6), -32602, "absolute"),
        ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"session/new\",\"params\":7}", json!(7), -32602, "cwd"),
        ("\u{0}\u{1b}[31m\u{ff}", Value::Null, -32700, "parse error"),
    ];
    for (line, id, code, says) in bad {
        raw.send_line(line);
        let answer = raw.next();
        assert_eq!(answer["jsonrpc"], "2.0", "{line}: {answer}");
        assert_eq!(answer["id"], id, "{line}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(says), "{line}: {answer}");
    }
    // A notification nobody knows, and a response to nothing, are ignored; the server
    // still answers.
    raw.send_line(r#"{"jsonrpc":"2.0","method":"$/whatever","params":{}}"#);
    raw.send_line(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    initialize(&mut raw);
    // One directory per process: with a session open, another directory is refused.
    raw.new_session(10, home.dir.path());
    let elsewhere = tempfile::tempdir().unwrap();
    raw.request(11, "session/new", json!({"cwd": elsewhere.path(), "mcpServers": []}));
    let answer = raw.until_response(11).pop().unwrap();
    assert!(answer["error"]["message"].as_str().unwrap().contains("start another `elelem acp`"), "{answer}");
    let _ = raw.finish();
}

#[test]
fn session_cancel_stops_the_turn_with_stop_reason_cancelled() {
    let home = Home::new();
    let script = json!([
        {"events": [
            {"type": "saying", "text": "starting"},
            {"type": "saying", "text": " and never finishing", "delay_ms": 600000}
        ]}
    ]);
    let mut raw = Raw::start(&home, script);
    initialize(&mut raw);
    let id = raw.new_session(1, home.dir.path());
    raw.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "go"}]}));
    // The turn is running once its first words arrived.
    loop {
        let line = raw.next();
        assert!(line.get("error").is_none(), "{line}");
        if line["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    raw.send_line(&json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": id}}).to_string());
    let answer = raw.until_response(2).pop().unwrap();
    assert_eq!(answer["result"], json!({"stopReason": "cancelled"}), "{answer}");
    let _ = raw.finish();
}

#[test]
fn a_cancel_before_a_queued_prompts_turn_began_cancels_it_too() {
    let home = Home::new();
    let script = json!([
        {"events": [
            {"type": "saying", "text": "first"},
            {"type": "saying", "text": " and never finishing", "delay_ms": 600000}
        ]},
        {"events": [{"type": "saying", "text": "the next turn's reply"}]}
    ]);
    let mut raw = Raw::start(&home, script);
    initialize(&mut raw);
    let id = raw.new_session(1, home.dir.path());
    let prompt = |text: &str| json!({"sessionId": id, "prompt": [{"type": "text", "text": text}]});
    raw.request(2, "session/prompt", prompt("one"));
    loop {
        let line = raw.next();
        assert!(line.get("error").is_none(), "{line}");
        if line["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    // The second prompt waits for the running turn; the cancel comes before its turn began.
    raw.request(3, "session/prompt", prompt("two"));
    raw.send_line(&json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": id}}).to_string());
    let mut lines = Vec::new();
    while [2, 3].iter().any(|id| !lines.iter().any(|l: &Value| l["id"] == *id && l.get("method").is_none())) {
        lines.push(raw.next());
    }
    for id in [2, 3] {
        let answer = lines.iter().find(|l| l["id"] == id && l.get("method").is_none()).unwrap();
        assert_eq!(answer["result"], json!({"stopReason": "cancelled"}), "{answer}");
    }
    assert!(!lines.iter().any(|l| l.to_string().contains("the next turn's reply")), "{lines:#?}");
    // A prompt sent after the cancel runs, with the model's next reply.
    raw.request(4, "session/prompt", prompt("three"));
    let lines = raw.until_response(4);
    assert_eq!(lines.last().unwrap()["result"], json!({"stopReason": "end_turn"}), "{lines:#?}");
    assert!(lines.iter().any(|l| l.to_string().contains("the next turn's reply")), "{lines:#?}");
    let _ = raw.finish();
}

#[test]
fn slash_commands_are_announced_and_a_slash_prompt_runs_one() {
    let home = Home::new();
    let mut raw = Raw::start(&home, json!([{"events": [{"type": "saying", "text": "the model answered"}]}]));
    initialize(&mut raw);
    let id = raw.new_session(1, home.dir.path());
    // Right after the answer to session/new: the commands, without `/`, with input hints.
    let update = raw.next();
    assert_eq!(update["method"], "session/update", "{update}");
    assert_eq!(update["params"]["sessionId"], id.as_str());
    let update = &update["params"]["update"];
    assert_eq!(update["sessionUpdate"], "available_commands_update", "{update}");
    let commands = update["availableCommands"].as_array().unwrap();
    let named = |name: &str| commands.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("{name}: {update}"));
    assert!(named("tools")["description"].as_str().is_some_and(|d| !d.is_empty()));
    assert!(named("tools").get("input").is_none(), "{update}");
    assert_eq!(named("model")["input"]["hint"], "[name]");
    assert!(commands.iter().all(|c| !c["name"].as_str().unwrap().starts_with('/')));
    // A prompt starting with /name runs the command; its output is the reply, no model turn.
    raw.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "/tools"}]}));
    let lines = raw.until_response(2);
    assert_eq!(lines.last().unwrap()["result"], json!({"stopReason": "end_turn"}), "{lines:#?}");
    let reply: String = lines
        .iter()
        .filter(|l| l["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|l| l["params"]["update"]["content"]["text"].as_str())
        .collect();
    assert!(reply.contains("read") && !reply.contains("the model answered"), "{reply}");
    // An unknown command says so to the editor.
    raw.request(3, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "/fly"}]}));
    let lines = raw.until_response(3);
    assert!(lines.iter().any(|l| l.to_string().contains("unknown command")), "{lines:#?}");
    let _ = raw.finish();
}

#[test]
fn a_running_commands_output_streams_to_the_editor() {
    let home = Home::new();
    let command = "echo first-line; sleep 1; echo second-line";
    let script = json!([
        {"events": [{"type": "doing", "id": "call-run", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "ran it"}]}
    ]);
    let mut raw = Raw::start(&home, script);
    initialize(&mut raw);
    let id = raw.new_session(1, home.dir.path());
    raw.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "run"}]}));
    let mut seen = Vec::new();
    loop {
        let line = raw.next();
        if line["method"] == "session/request_permission" {
            let outcome = json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}});
            raw.send_line(&json!({"jsonrpc": "2.0", "id": line["id"], "result": outcome}).to_string());
        }
        let done = line["id"] == 2 && line.get("method").is_none();
        seen.push(line);
        if done {
            break;
        }
    }
    let updates: Vec<&Value> =
        seen.iter().map(|l| &l["params"]["update"]).filter(|u| u["toolCallId"] == "call-run").collect();
    // While it ran: an in-progress update whose content is the output so far.
    let live: Vec<&str> = updates
        .iter()
        .filter(|u| u["status"] == "in_progress")
        .filter_map(|u| u["content"][0]["content"]["text"].as_str())
        .collect();
    assert!(live.first().is_some_and(|text| text.contains("first-line")), "{updates:#?}");
    assert_eq!(updates.last().unwrap()["status"], "completed", "{updates:#?}");
    let _ = raw.finish();
}

#[test]
fn session_load_replays_the_history_and_goes_on() {
    let home = Home::new();
    let mut first = Raw::start(&home, json!([{"events": [{"type": "saying", "text": "the answer is 42"}]}]));
    initialize(&mut first);
    let id = first.new_session(1, home.dir.path());
    first.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "what is it?"}]}));
    first.until_response(2);
    let _ = first.finish();

    let mut second = Raw::start(&home, json!([{"events": [{"type": "saying", "text": "still 42"}]}]));
    initialize(&mut second);
    second.request(1, "session/load", json!({"sessionId": id, "cwd": home.dir.path(), "mcpServers": []}));
    let lines = second.until_response(1);
    let (answer, replayed) = lines.split_last().unwrap();
    assert_eq!(answer["result"], json!({}), "{answer}");
    let updates: Vec<&Value> = replayed.iter().map(|l| &l["params"]["update"]).collect();
    assert!(replayed.iter().all(|l| l["method"] == "session/update" && l["params"]["sessionId"] == id.as_str()));
    let user: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "user_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    let agent: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert_eq!((user.as_str(), agent.as_str()), ("what is it?", "the answer is 42"), "{updates:#?}");

    second.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "sure?"}]}));
    let lines = second.until_response(2);
    assert_eq!(lines.last().unwrap()["result"], json!({"stopReason": "end_turn"}));
    // Loading it again in the same process replays its conversation, the new turn too.
    second.request(3, "session/load", json!({"sessionId": id, "cwd": home.dir.path(), "mcpServers": []}));
    let lines = second.until_response(3);
    let again: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| &l["params"]["update"])
        .filter_map(|u| Some((u["sessionUpdate"].as_str()?, u["content"]["text"].as_str()?)))
        .collect();
    assert_eq!(
        again,
        [
            ("user_message_chunk", "what is it?"),
            ("agent_message_chunk", "the answer is 42"),
            ("user_message_chunk", "sure?"),
            ("agent_message_chunk", "still 42")
        ],
        "{lines:#?}"
    );
    let _ = second.finish();
    // Both turns are in the one session file.
    let files = home.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let recorded = std::fs::read_to_string(&files[0]).unwrap();
    assert!(recorded.contains("the answer is 42") && recorded.contains("still 42"));

    // An unknown session is a clear error.
    let mut third = Raw::start(&home, json!([]));
    initialize(&mut third);
    third.request(1, "session/load", json!({"sessionId": "no-such-session", "cwd": home.dir.path(), "mcpServers": []}));
    let answer = third.until_response(1).pop().unwrap();
    assert!(answer["error"]["message"].as_str().unwrap().contains("no-such-session"), "{answer}");
    let _ = third.finish();
}

#[test]
fn the_clients_mcp_servers_join_the_toolbox() {
    ensure_sdk();
    let everything = root().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let home = Home::new();
    let script = json!([
        {"events": [{"type": "doing", "id": "call-echo", "name": "everything_echo", "arguments": {"message": "from the editor's server"}}]},
        {"events": [{"type": "saying", "text": "echoed"}]}
    ]);
    let mut raw = Raw::start(&home, script);
    initialize(&mut raw);
    let server = json!({"name": "everything", "command": "node", "args": [everything, "stdio"], "env": []});
    raw.request(1, "session/new", json!({"cwd": home.dir.path(), "mcpServers": [server]}));
    let answer = raw.until_response(1).pop().unwrap();
    let id = answer["result"]["sessionId"].as_str().unwrap_or_else(|| panic!("{answer}")).to_string();
    raw.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "echo"}]}));
    let mut seen = Vec::new();
    loop {
        let line = raw.next();
        if line["method"] == "session/request_permission" {
            let outcome = json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}});
            raw.send_line(&json!({"jsonrpc": "2.0", "id": line["id"], "result": outcome}).to_string());
        }
        let done = line["id"] == 2 && line.get("method").is_none();
        seen.push(line);
        if done {
            break;
        }
    }
    let finished = seen
        .iter()
        .map(|l| &l["params"]["update"])
        .find(|u| u["toolCallId"] == "call-echo" && u["sessionUpdate"] == "tool_call_update")
        .unwrap_or_else(|| panic!("{seen:#?}"));
    assert_eq!(finished["status"], "completed", "{finished}");
    assert!(finished["content"][0]["content"]["text"].as_str().unwrap().contains("from the editor's server"));
    assert_eq!(seen.last().unwrap()["result"], json!({"stopReason": "end_turn"}));
    let _ = raw.finish();
}

#[test]
fn a_failed_turn_is_an_error_response_and_the_session_goes_on() {
    let home = Home::new();
    let script = json!([{"error": "the model fell over\u{1b}]0;pwned\u{7}"}, {"events": [{"type": "saying", "text": "back again"}]}]);
    let mut raw = Raw::start(&home, script);
    initialize(&mut raw);
    let id = raw.new_session(1, home.dir.path());
    raw.request(2, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "go"}]}));
    let answer = raw.until_response(2).pop().unwrap();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("the model fell over"), "{answer}");
    raw.request(3, "session/prompt", json!({"sessionId": id, "prompt": [{"type": "text", "text": "again"}]}));
    assert_eq!(raw.until_response(3).pop().unwrap()["result"], json!({"stopReason": "end_turn"}));
    // The log on stderr says what failed, without the terminal escape.
    let stderr = raw.finish();
    assert!(stderr.contains("the model fell over") && !stderr.contains('\u{1b}'), "{stderr:?}");
}
