//! Hooks in Claude Code's format through the real binary, the stub model calling tools from
//! a script: a `PreToolUse` hook with matcher `Bash` that exits 2 blocks `execute` (the
//! model reads its stderr; the hook got `tool_name` and `tool_input` on stdin), its
//! `permissionDecision` deny / allow / ask and `updatedInput`; `PostToolUse` with
//! `tool_response` and `additionalContext`; `UserPromptSubmit` blocking a prompt; `Stop`
//! sending the turn on; `SessionStart` context; a hook past its timeout; a bad file; project
//! hooks in an untrusted project. The hook's input goes through a pipe: names planted in the
//! temp directory (directories, FIFOs, links where the input file used to be) do not stop a
//! `PreToolUse` hook, and one that cannot be started refuses the call (issue 37).

use crate::support::home::Tree;
use serde_json::{json, Value};

/// `root/proj` (a git project, untrusted) to run in, and `root/home`.
struct Setup(Tree);

impl std::ops::Deref for Setup {
    type Target = Tree;
    fn deref(&self) -> &Tree {
        &self.0
    }
}

impl Setup {
    fn new() -> Self {
        Setup(Tree::with(&["proj/.git", "home/.agents"]))
    }

    /// `~/.agents/hooks.json` with one event's one hook.
    fn user_hook(&self, event: &str, matcher: &str, command: &str, timeout: u64) {
        self.write("home/.agents/hooks.json", &hooks(event, matcher, command, timeout).to_string());
    }

    /// Runs elelem in `proj` (the tree's root in `$T`); stdout and stderr together.
    fn elelem(&self, args: &[&str], script: Value, stdin: &str) -> String {
        let out = self.run("proj", args, &script, stdin, &[("T", self.dir.path())]);
        format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    }
}

fn hooks(event: &str, matcher: &str, command: &str, timeout: u64) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]}})
}

/// A script: one response calling `name` with `arguments`, then a reply.
fn calling(name: &str, arguments: Value) -> Value {
    json!([
        {"events": [{"type": "doing", "id": "c1", "name": name, "arguments": arguments}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ])
}

/// The result line `ask --json` printed for call `c1`.
fn result_of(out: &str) -> Value {
    out.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result" && v["id"] == "c1")
        .unwrap_or_else(|| panic!("no result for c1: {out}"))["result"]
        .clone()
}

#[test]
fn a_pre_tool_use_hook_on_bash_that_exits_2_blocks_execute() {
    let s = Setup::new();
    s.user_hook("PreToolUse", "Bash", "cat > \"$T/stdin.json\"; echo 'no commands today' >&2; exit 2", 30);
    let out =
        s.elelem(&["ask", "--json", "--yolo", "go"], calling("execute", json!({"command": "touch \"$T/ran\""})), "");
    let result = result_of(&out);
    assert_eq!(result["ok"], false, "{out}");
    let error = result["error"].as_str().unwrap();
    assert!(error.contains("no commands today") && error.contains("PreToolUse"), "{error}");
    assert!(!s.path("ran").exists(), "the command did not run");
    let input: Value = serde_json::from_str(&s.read("stdin.json")).unwrap();
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_input"]["command"], "touch \"$T/ran\"");
    // The session's own id and its file, the one `--resume ID` takes back.
    let id = input["session_id"].as_str().unwrap_or_default();
    let transcript = std::path::Path::new(input["transcript_path"].as_str().unwrap_or_default());
    assert!(transcript.is_file(), "transcript_path names the session file: {input}");
    assert!(transcript.starts_with(s.path("home/.local/share/elelem/sessions")), "{input}");
    let header = std::fs::read_to_string(transcript).unwrap();
    assert!(!id.is_empty() && header.lines().next().unwrap_or_default().contains(id), "{input}\n{header}");
    let row = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result" && v["name"] == "hook")
        .unwrap_or_else(|| panic!("the hook's row: {out}"));
    assert!(row["result"]["error"].as_str().unwrap().contains("blocked: no commands today"), "{row}");
}

#[test]
fn permission_decisions_deny_allow_and_ask() {
    let s = Setup::new();
    let say = |json: Value| format!("echo '{json}'");
    let decision = |d: &str| {
        say(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": d, "permissionDecisionReason": format!("reason {d}")}}),
        )
    };

    // deny: the reason is the result.
    s.user_hook("PreToolUse", "Read", &decision("deny"), 30);
    s.write("proj/a.txt", "hello");
    let out = s.elelem(&["ask", "--json", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert!(result_of(&out)["error"].as_str().unwrap().contains("reason deny"), "{out}");

    // allow: a write that ask mode would refuse runs.
    s.user_hook("PreToolUse", "Write", &decision("allow"), 30);
    let out = s.elelem(&["ask", "--json", "go"], calling("write", json!({"path": "b.txt", "content": "x"})), "");
    assert_eq!(result_of(&out)["ok"], true, "{out}");
    assert_eq!(s.read("proj/b.txt"), "x");

    // ...but never over a deny rule.
    s.write("home/.agents/permissions.json", r#"{"write": "deny"}"#);
    let out = s.elelem(&["ask", "--json", "go"], calling("write", json!({"path": "c.txt", "content": "x"})), "");
    assert!(result_of(&out)["error"].as_str().unwrap().contains("Permission denied"), "{out}");
    std::fs::remove_file(s.path("home/.agents/permissions.json")).unwrap();

    // ask: a read that runs unasked goes to the user, whom ask mode cannot ask.
    s.user_hook("PreToolUse", "Read", &decision("ask"), 30);
    let out = s.elelem(&["ask", "--json", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert!(result_of(&out)["error"].as_str().unwrap().contains("needs approval"), "{out}");
}

#[test]
fn updated_input_changes_the_command() {
    let s = Setup::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo CHANGED-BY-HOOK"}}});
    s.user_hook("PreToolUse", "Bash", &format!("echo '{answer}'"), 30);
    let out = s.elelem(&["ask", "--json", "--yolo", "go"], calling("execute", json!({"command": "echo original"})), "");
    let result = result_of(&out);
    assert!(result["content"].as_str().unwrap().contains("CHANGED-BY-HOOK"), "{out}");
    // The call's row shows the arguments that ran, not the model's.
    let doing = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "doing" && v["id"] == "c1")
        .unwrap_or_else(|| panic!("no call line: {out}"));
    assert_eq!(doing["arguments"]["command"], "echo CHANGED-BY-HOOK", "{out}");
}

#[test]
fn post_tool_use_gets_the_response_and_adds_context() {
    let s = Setup::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "POST-CONTEXT"}});
    s.user_hook("PostToolUse", "Read|Grep", &format!("cat > \"$T/post.json\"; echo '{answer}'"), 30);
    s.write("proj/a.txt", "FILE-BODY");
    let out = s.elelem(&["ask", "--json", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert_eq!(result_of(&out)["hook_context"], "POST-CONTEXT", "{out}");
    let input: Value = serde_json::from_str(&s.read("post.json")).unwrap();
    assert_eq!(input["tool_name"], "Read");
    assert!(input["tool_response"].to_string().contains("FILE-BODY"), "{input}");
}

#[test]
fn user_prompt_submit_can_refuse_a_prompt() {
    let s = Setup::new();
    s.user_hook(
        "UserPromptSubmit",
        "",
        "grep -q secret \"/dev/stdin\" && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0",
        30,
    );
    let script = json!([{"events": [{"type": "saying", "text": "REPLIED"}]}]);
    let out = s.elelem(&["chat", "--plain"], script, "my secret is 42\nhello\n");
    assert!(out.contains("prompt not sent") && out.contains("no secrets in prompts"), "{out}");
    // (The line REPL prints no hook rows; the refusal above is what it shows.)
    assert_eq!(out.matches("REPLIED").count(), 1, "only the second prompt reached the model: {out}");
}

#[test]
fn stop_sends_the_turn_on_and_session_start_adds_context() {
    let s = Setup::new();
    let stop =
        r#"grep -q '"stop_hook_active":true' && exit 0; echo '{"decision": "block", "reason": "run the tests"}'"#;
    let start =
        r#"echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "SESSION-CONTEXT"}}'"#;
    let file = json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": stop}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": start}]}]
    }});
    s.write("home/.agents/hooks.json", &file.to_string());
    let script =
        json!([{"events": [{"type": "saying", "text": "FIRST"}]}, {"events": [{"type": "saying", "text": "SECOND"}]}]);
    let out = s.elelem(&["chat", "--plain"], script, "hi\n/context json\n");
    assert!(out.contains("FIRST") && out.contains("SECOND"), "{out}");
    let context = &out[out.find("> /context json").expect(&out)..];
    assert!(context.contains("SESSION-CONTEXT"), "{context}");
    assert!(context.contains("asks you to go on: run the tests"), "{context}");
}

#[test]
fn a_hook_past_its_timeout_is_killed_and_reported() {
    let s = Setup::new();
    s.user_hook("PreToolUse", "*", "sleep 30", 1);
    s.write("proj/a.txt", "hello");
    let started = std::time::Instant::now();
    let out = s.elelem(&["ask", "--json", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert!(started.elapsed() < std::time::Duration::from_secs(25), "{out}");
    assert!(out.contains("timed out after 1s"), "{out}");
    assert_eq!(result_of(&out)["ok"], true, "a failed hook is a warning; the call goes on: {out}");
}

#[test]
fn a_bad_file_is_named_and_the_session_goes_on() {
    let s = Setup::new();
    s.write("home/.agents/hooks.json", "{\"hooks\": {\n  \"PreToolUse\": [}\n}");
    let out = s.elelem(&["chat", "--plain"], json!([{"events": [{"type": "saying", "text": "REPLIED"}]}]), "hi\n");
    let file = s.path("home/.agents/hooks.json");
    assert!(out.contains(&format!("{}: ", file.display())) && out.contains("line 2 column"), "{out}");
    assert!(out.contains("REPLIED"), "{out}");
}

#[test]
fn project_hooks_run_only_in_a_trusted_project() {
    let s = Setup::new();
    s.write("proj/.agents/hooks.json", &hooks("PreToolUse", "Read", "echo PROJECT-HOOK >&2; exit 2", 30).to_string());
    s.write("proj/a.txt", "hello");
    let out = s.elelem(&["ask", "--json", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert_eq!(result_of(&out)["ok"], true, "{out}");
    assert!(out.contains("are not run: the project is not trusted"), "{out}");
    let out = s.elelem(&["ask", "--json", "--trust", "go"], calling("read", json!({"path": "a.txt"})), "");
    assert!(result_of(&out)["error"].as_str().unwrap().contains("PROJECT-HOOK"), "{out}");
}

/// A `PreToolUse` hook list for `Bash`: `commands` run in order.
fn pre_tool_use_hooks(commands: &[&str]) -> Value {
    let hooks: Vec<Value> = commands.iter().map(|c| json!({"type": "command", "command": c, "timeout": 30})).collect();
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
}

#[test]
fn names_planted_in_the_temp_directory_do_not_stop_a_blocking_hook() {
    let s = Setup::new();
    std::fs::create_dir_all(s.path("tmp")).unwrap();
    s.write("victim", "UNTOUCHED");
    // The first hook plants what a contained command could: for the next counters of this
    // elelem (the hook's parent), the names the hooks' input and stderr files used to take,
    // as directories, FIFOs and links. The second hook is the user's guard.
    let plant = r#"for n in $(seq 0 40); do b="$TMPDIR/elelem-hook-$PPID-$n"; case $((n % 3)) in
        1) mkdir "$b.in" "$b.err" ;; 2) mkfifo "$b.in" "$b.err" ;; *) ln -s "$T/victim" "$b.in"; ln -s "$T/victim" "$b.err" ;;
        esac 2>/dev/null; done; true"#;
    let guard = "cat > \"$T/stdin.json\"; echo 'guarded by the hook' >&2; exit 2";
    s.write("home/.agents/hooks.json", &pre_tool_use_hooks(&[plant, guard]).to_string());
    let planted = || std::fs::read_dir(s.path("tmp")).unwrap().count();
    let out = s.run(
        "proj",
        &["ask", "--json", "--yolo", "go"],
        &calling("execute", json!({"command": "touch \"$T/ran\""})),
        "",
        &[("T", s.dir.path()), ("TMPDIR", &s.path("tmp"))],
    );
    let out = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let result = result_of(&out);
    assert!(result["error"].as_str().unwrap_or_default().contains("guarded by the hook"), "{out}");
    assert!(!s.path("ran").exists(), "the guarded command ran: {out}");
    let input: Value = serde_json::from_str(&s.read("stdin.json")).unwrap();
    assert_eq!(input["tool_input"]["command"], "touch \"$T/ran\"", "the guard read its input");
    assert_eq!(s.read("victim"), "UNTOUCHED");
    assert_eq!(planted(), 2 * 41, "elelem added nothing of its own to the temp directory");
}

#[test]
fn a_pre_tool_use_hook_that_cannot_start_refuses_the_call() {
    let s = Setup::new();
    let write = calling("write", json!({"path": "written.txt", "content": "x"}));
    let matcher = |event: &str, command: &str| hooks(event, "Write", command, 30).to_string();

    // No shell to start it with.
    s.write("home/.agents/hooks.json", &matcher("PreToolUse", "exit 0"));
    std::fs::create_dir_all(s.path("no-shell")).unwrap();
    let out = s.run("proj", &["ask", "--json", "--yolo", "go"], &write, "", &[("PATH", &s.path("no-shell"))]);
    let out = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let error = result_of(&out)["error"].as_str().unwrap_or_default().to_string();
    assert!(error.contains("could not be started") && error.contains("cannot start bash"), "{out}");
    assert!(!s.path("proj/written.txt").exists(), "the call went on: {out}");

    // Its command is not found.
    s.write("home/.agents/hooks.json", &matcher("PreToolUse", "\"$T/no-such-guard.sh\""));
    let out = s.elelem(&["ask", "--json", "--yolo", "go"], write.clone(), "");
    let error = result_of(&out)["error"].as_str().unwrap_or_default().to_string();
    assert!(error.contains("could not be started") && error.contains("status 127"), "{out}");
    assert!(!s.path("proj/written.txt").exists(), "the call went on: {out}");

    // After the call, the same is a warning and the result stands.
    s.write("home/.agents/hooks.json", &matcher("PostToolUse", "\"$T/no-such-guard.sh\""));
    let out = s.elelem(&["ask", "--json", "--yolo", "go"], write, "");
    assert_eq!(result_of(&out)["ok"], true, "{out}");
    assert!(out.contains("hook PostToolUse") && out.contains("status 127"), "{out}");
    assert_eq!(s.read("proj/written.txt"), "x");
}
