//! `elelem mcp` through the real binary. The official MCP TypeScript SDK's client
//! (`@modelcontextprotocol/sdk`, in package-lock.json; `mcp_server_client.mjs`) lists the
//! tools, runs turns against the stub model (its reply streamed as progress), continues a
//! session (in the same server, and resumed by another), cancels a turn whose command
//! sleeps, and is refused what would ask, a `cwd` outside the roots and an unknown session.
//! Raw JSON-RPC lines test a client that just closes stdin, SIGTERM, and a plugin that
//! prints (stdout stays the protocol's).

use crate::support::home::Home;
use crate::support::marked_processes;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The SDK client running `elelem mcp -p stub ARGS` in `home`; its printed lines arrive on
/// `lines`.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    seen: Vec<Value>,
}

/// The environment of a run in `home`: its home and data, the stub's script, no keys.
fn in_home(command: &mut Command, home: &Home, script: &Path) {
    let dir = home.dir.path();
    command
        .current_dir(dir)
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("ELELEM_STUB_SCRIPT", script)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("OLLAMA_HOST", "http://127.0.0.1:9");
}

/// A thread reading JSON lines from `pipe` into a channel.
fn read_lines(pipe: impl std::io::Read + Send + 'static) -> Receiver<Value> {
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let Ok(value) = serde_json::from_str::<Value>(&line) {
                let _ = send.send(value);
            }
        }
    });
    lines
}

impl Client {
    fn start(home: &Home, script: Value, args: &[&str]) -> Client {
        super::acp::ensure_sdk();
        let script = home.script(script);
        let mut command = Command::new("node");
        command
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/frontends/mcp_server_client.mjs"))
            .arg(env!("CARGO_BIN_EXE_elelem"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        in_home(&mut command, home, &script);
        let mut child = command.spawn().expect("node must be installed to run the MCP client");
        let lines = read_lines(child.stdout.take().unwrap());
        Client { stdin: child.stdin.take(), child, lines, seen: Vec::new() }
    }

    fn send(&mut self, step: Value) {
        let stdin = self.stdin.as_mut().expect("the client is open");
        writeln!(stdin, "{step}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of `kind`, the lines before it kept in `seen`.
    fn until(&mut self, kind: &str) -> Value {
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|error| {
                panic!("no {kind} from the client ({error}); got {:#?}", self.seen);
            });
            assert_ne!(line["kind"], "error", "the client failed: {line}; before: {:#?}", self.seen);
            if line["kind"] == kind {
                return line;
            }
            self.seen.push(line);
        }
    }

    /// A call's result.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.send(json!({"call": name, "arguments": arguments, "progress": true}));
        let line = self.until("result");
        assert_eq!(line["name"], name, "{line}");
        line["result"].clone()
    }

    /// Closes the client, which closes elelem's stdin; both must end successfully.
    fn close(mut self) {
        self.send(json!({"close": true}));
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}; {:#?}", self.seen);
    }
}

/// The text of a call's result.
fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(|c| c["text"].as_str()).collect()
}

/// Waits until `check` holds, for at most `secs` seconds.
fn wait_for(secs: u64, mut check: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

/// A unique marker for the processes a test's command starts (in their environment).
fn marker(name: &str) -> String {
    format!("ELELEM_MCP_{name}_{}", std::process::id())
}

/// The model runs `sleep 300` with `marker` in its environment.
fn sleeping(marker: &str) -> Value {
    let command = format!("export {marker}=1; sleep 300; echo done");
    json!([{"events": [{"type": "doing", "id": "call-sleep", "name": "execute", "arguments": {"command": command}}]}])
}

#[test]
fn the_sdk_client_lists_the_tools_and_runs_turns_with_the_reply_streamed_and_the_session_continued() {
    let home = Home::new();
    std::fs::write(home.dir.path().join("notes.txt"), "the notes say hello\n").unwrap();
    let script = json!([
        {"events": [{"type": "doing", "id": "call-read", "name": "read", "arguments": {"path": "notes.txt"}}]},
        {"events": [
            {"type": "saying", "text": "The notes "},
            {"type": "saying", "text": "say ", "delay_ms": 300},
            {"type": "saying", "text": "hello.", "delay_ms": 300}
        ]},
        {"events": [{"type": "saying", "text": "Still here."}]}
    ]);
    let mut client = Client::start(&home, script, &[]);
    let tools = client.until("tools");
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["prompt", "sessions"], "{tools}");
    assert_eq!(tools["tools"][0]["inputSchema"]["required"], json!(["prompt"]));

    let first = client.call("prompt", json!({"prompt": "what do the notes say?"}));
    let said = text(&first);
    assert_eq!(first["isError"], false, "{first}");
    assert!(said.starts_with("The notes say hello.\n\nTool calls:\n- read notes.txt: ok\n"), "{said}");
    let session = first["structuredContent"]["session"].as_str().unwrap().to_string();
    assert!(said.ends_with(&format!("session: {session}")), "{said}");
    assert_eq!(first["structuredContent"]["stop"], "done");
    assert_eq!(first["structuredContent"]["toolCalls"][0]["tool"], "read");
    // The reply came as progress too, in order, before the result. The SDK runs a
    // notification's handler a microtask after reading it but takes a response at once, so
    // a last piece read together with the result may reach no handler: only the pieces
    // before it are certain.
    let progress: Vec<&Value> = client.seen.iter().filter(|l| l["kind"] == "progress").collect();
    let streamed: String = progress.iter().filter_map(|p| p["progress"]["message"].as_str()).collect();
    assert!(streamed.starts_with("The notes say "), "{progress:#?}");
    assert!("The notes say hello.".starts_with(&streamed), "{progress:#?}");
    assert!(progress.len() >= 2, "the reply came in one piece: {progress:#?}");
    // The session is elelem's recorded one.
    assert!(home.session_files().iter().any(|f| f.to_string_lossy().contains(&session)), "{session}");

    let second = client.call("prompt", json!({"prompt": "and now?", "session": session}));
    assert_eq!(second["structuredContent"]["session"], session.as_str(), "{second}");
    assert_eq!(second["structuredContent"]["reply"], "Still here.");

    let listed = client.call("sessions", json!({}));
    let ours = &listed["structuredContent"]["sessions"][0];
    assert_eq!(ours["id"], session.as_str(), "{listed}");
    assert_eq!(ours["turns"], 2);
    assert_eq!(ours["open"], true);
    assert_eq!(ours["firstPrompt"], "what do the notes say?");
    assert!(text(&listed).contains(&session));
    client.close();

    // Another server resumes it from its file, as `elelem --resume ID` does.
    let mut client = Client::start(&home, crate::support::home::reply("Back again."), &[]);
    client.until("tools");
    let resumed = client.call("prompt", json!({"prompt": "still there?", "session": session}));
    assert_eq!(resumed["structuredContent"]["session"], session.as_str(), "{resumed}");
    assert_eq!(resumed["structuredContent"]["reply"], "Back again.");
    let listed = client.call("sessions", json!({"limit": 1}));
    assert_eq!(listed["structuredContent"]["sessions"][0]["turns"], 3, "{listed}");
    assert_eq!(listed["structuredContent"]["sessions"].as_array().unwrap().len(), 1);
    client.close();
}

#[test]
fn a_cancel_stops_the_turn_and_kills_its_command() {
    let home = Home::new();
    let marker = marker("CANCEL");
    let mut client = Client::start(&home, sleeping(&marker), &["--allow", "execute"]);
    client.until("tools");
    client.send(json!({"start": "prompt", "arguments": {"prompt": "sleep a while"}}));
    client.until("started");
    assert!(wait_for(30, || !marked_processes(&marker).is_empty()), "the command never started");
    client.send(json!({"cancel": true}));
    client.until("cancelled");
    assert!(wait_for(10, || marked_processes(&marker).is_empty()), "left: {:?}", marked_processes(&marker));
    // The server goes on: the next call is answered.
    let listed = client.call("sessions", json!({}));
    assert_eq!(listed["isError"], false, "{listed}");
    client.close();
}

/// `elelem mcp --yolo` spoken to in raw lines, its turn running `sleeping(marker)`; returns
/// once the command runs, with the process and its stdin.
fn raw_server_with_a_running_command(home: &Home, marker: &str) -> (Child, ChildStdin) {
    let script = home.script(sleeping(marker));
    let mut command = Command::new(env!("CARGO_BIN_EXE_elelem"));
    command.args(["mcp", "-p", "stub", "--yolo"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    in_home(&mut command, home, &script);
    let mut child = command.spawn().unwrap();
    let lines = read_lines(child.stdout.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "prompt", "arguments": {"prompt": "sleep a while"}}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    let answer = lines.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(wait_for(30, || !marked_processes(marker).is_empty()), "the command never started");
    (child, stdin)
}

/// Waits for the server to end; nothing of `marker` may be left. Returns its exit status.
fn ended_leaving_nothing(mut child: Child, marker: &str) -> std::process::ExitStatus {
    let exited = wait_for(20, || child.try_wait().unwrap().is_some());
    let left = marked_processes(marker);
    if !exited {
        let _ = child.kill();
    }
    assert!(exited, "elelem mcp did not end");
    assert!(left.is_empty(), "left behind: {left:?}");
    child.wait().unwrap()
}

#[test]
fn a_client_that_closes_stdin_leaves_no_process_behind() {
    let home = Home::new();
    let marker = marker("CLOSE");
    let (child, stdin) = raw_server_with_a_running_command(&home, &marker);
    drop(stdin);
    assert!(ended_leaving_nothing(child, &marker).success());
}

#[test]
fn sigterm_ends_the_server_and_its_commands() {
    let home = Home::new();
    let marker = marker("TERM");
    let (child, _stdin) = raw_server_with_a_running_command(&home, &marker);
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = ended_leaving_nothing(child, &marker);
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status}");
}

#[test]
fn stdout_carries_only_the_protocol_when_a_plugin_prints() {
    let home = Home::new();
    let plugins = home.dir.path().join(".agents/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let plugin = "print('noise at load')\nelelem.setup(function(session) print('noise in setup') end)\n";
    std::fs::write(plugins.join("noisy.lua"), plugin).unwrap();
    let script = home.script(crate::support::home::reply("quiet"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_elelem"));
    command.args(["mcp", "-p", "stub"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    in_home(&mut command, &home, &script);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "prompt", "arguments": {"prompt": "hi"}}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    while !lines.iter().any(|line: &String| line.contains("\"id\":2")) {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        lines.push(line);
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("noise in setup"), "{stderr}");
    for line in &lines {
        let message: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    assert!(lines.last().is_some_and(|line| line.contains("quiet")), "{lines:?}");
}

#[test]
fn what_would_ask_is_refused_without_asking_unless_allowed() {
    let script = || {
        json!([
            {"events": [{"type": "doing", "id": "call-write", "name": "write",
                "arguments": {"path": "out.txt", "content": "written\n"}}]},
            {"events": [{"type": "saying", "text": "Tried."}]}
        ])
    };
    let home = Home::new();
    let mut client = Client::start(&home, script(), &[]);
    client.until("tools");
    let refused = client.call("prompt", json!({"prompt": "write out.txt"}));
    let call = &refused["structuredContent"]["toolCalls"][0];
    assert_eq!(call["tool"], "write", "{refused}");
    assert_eq!(call["ok"], false, "{refused}");
    assert!(call["error"].as_str().unwrap().contains("cannot ask"), "{refused}");
    assert!(text(&refused).contains("- write out.txt: failed: "), "{refused}");
    assert!(!home.dir.path().join("out.txt").exists());
    client.close();

    let home = Home::new();
    let mut client = Client::start(&home, script(), &["--allow", "write"]);
    client.until("tools");
    let allowed = client.call("prompt", json!({"prompt": "write out.txt"}));
    assert_eq!(allowed["structuredContent"]["toolCalls"][0]["ok"], true, "{allowed}");
    assert_eq!(std::fs::read_to_string(home.dir.path().join("out.txt")).unwrap(), "written\n");
    client.close();
}

#[test]
fn a_cwd_outside_the_allowed_roots_or_an_unknown_session_is_refused_and_a_root_allows_it() {
    let home = Home::new();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.dir.path().join("sub")).unwrap();
    let mut client = Client::start(&home, crate::support::home::reply("in sub"), &[]);
    client.until("tools");
    let outside = client.call("prompt", json!({"prompt": "hi", "cwd": elsewhere.path()}));
    assert_eq!(outside["isError"], true, "{outside}");
    assert!(text(&outside).contains("outside the allowed roots"), "{outside}");
    let unknown = client.call("prompt", json!({"prompt": "hi", "session": "no-such-session"}));
    assert_eq!(unknown["isError"], true, "{unknown}");
    assert!(text(&unknown).contains("no session \"no-such-session\""), "{unknown}");
    let inside = client.call("prompt", json!({"prompt": "hi", "cwd": "sub"}));
    assert_eq!(inside["structuredContent"]["reply"], "in sub", "{inside}");
    client.close();

    // The model reads a file only the root holds: the turn works there.
    std::fs::write(elsewhere.path().join("only-here.txt"), "here\n").unwrap();
    let reads = |reply: &str| {
        json!([
            {"events": [{"type": "doing", "id": "call-read", "name": "read", "arguments": {"path": "only-here.txt"}}]},
            {"events": [{"type": "saying", "text": reply}]}
        ])
    };
    let root = elsewhere.path().to_str().unwrap();
    let mut client = Client::start(&home, reads("in the root"), &["--root", root]);
    client.until("tools");
    let rooted = client.call("prompt", json!({"prompt": "hi", "cwd": root}));
    assert_eq!(rooted["structuredContent"]["reply"], "in the root", "{rooted}");
    assert_eq!(rooted["structuredContent"]["toolCalls"][0]["ok"], true, "{rooted}");
    let session = rooted["structuredContent"]["session"].as_str().unwrap().to_string();
    client.close();

    // Resumed without a cwd, the session goes on where it was recorded, if that is allowed.
    let mut client = Client::start(&home, reads("still there"), &["--root", root]);
    client.until("tools");
    let resumed = client.call("prompt", json!({"prompt": "again", "session": session}));
    assert_eq!(resumed["structuredContent"]["toolCalls"][0]["ok"], true, "{resumed}");
    assert_eq!(resumed["structuredContent"]["reply"], "still there");
    client.close();
    let mut client = Client::start(&home, reads("never"), &[]);
    client.until("tools");
    let refused = client.call("prompt", json!({"prompt": "again", "session": session}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&refused).contains("outside the allowed roots"), "{refused}");
    // Nor when the call names a directory of its own inside the roots, nor by a prefix of
    // its id: the conversation stays the other project's.
    let moved = client.call("prompt", json!({"prompt": "again", "session": session, "cwd": "."}));
    assert_eq!(moved["isError"], true, "{moved}");
    assert!(text(&moved).contains("outside the allowed roots"), "{moved}");
    let prefix = &session[..session.len() - 1];
    let by_prefix = client.call("prompt", json!({"prompt": "again", "session": prefix, "cwd": "."}));
    assert_eq!(by_prefix["isError"], true, "{by_prefix}");
    // Nor does the sessions tool show it (the home's sessions, yes).
    let listed = client.call("sessions", json!({}));
    assert!(!text(&listed).contains(&session), "{listed}");
    let shown = listed["structuredContent"]["sessions"].as_array().unwrap().len();
    assert!(shown >= 1, "{listed}");
    client.close();
}
