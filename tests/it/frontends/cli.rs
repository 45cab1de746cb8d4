//! End-to-end: the real `elelem` binary in `ask --json`, `ask`, line mode and `files`,
//! driven by stub scripts.

use serde_json::{json, Value};
use std::io::Write;
use std::process::Output;

struct Run {
    dir: tempfile::TempDir,
}

impl Run {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# Demo project\n\nHello.\n").unwrap();
        Run { dir }
    }

    fn script(&self, steps: Value) -> String {
        let path = self.dir.path().join("script.json");
        std::fs::write(&path, steps.to_string()).unwrap();
        path.display().to_string()
    }

    fn elelem(&self, args: &[&str], script: Option<&str>, stdin: &str) -> Output {
        self.elelem_env(args, script, stdin, &std::collections::HashMap::new())
    }

    fn elelem_env(
        &self,
        args: &[&str],
        script: Option<&str>,
        stdin: &str,
        env: &std::collections::HashMap<&str, &str>,
    ) -> Output {
        let mut cmd = crate::support::home::elelem(self.dir.path(), self.dir.path());
        cmd.envs(env.iter()).args(args);
        if let Some(script) = script {
            cmd.env("ELELEM_STUB_SCRIPT", script);
        }
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    }
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn doing(id: &str, name: &str, arguments: Value) -> Value {
    json!({"type": "doing", "id": id, "name": name, "arguments": arguments})
}

#[test]
fn ask_json_shows_validation_alias_and_unknown_tool_results() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [
            {"type": "thinking", "text": "Let me "},
            {"type": "thinking", "text": "look."},
            doing("t1", "read", json!({})),
            doing("t2", "open", json!({"path": "README.md"})),
            doing("t3", "frobnicate", json!({"x": 1}))
        ]},
        {"events": [{"type": "saying", "text": "All "}, {"type": "saying", "text": "done."}]}
    ]));
    let out = run.elelem(&["ask", "--json", "look around"], Some(&script), "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&out);
    assert_eq!(lines[0], json!({"type": "thinking", "text": "Let me look."}));
    assert_eq!(lines[1], doing("t1", "read", json!({})));
    assert_eq!(
        lines[2],
        json!({"type": "result", "id": "t1", "name": "read",
               "result": {"error": "object at root is missing required properties: path", "ok": false}})
    );
    assert_eq!(lines[3], doing("t2", "read", json!({"path": "README.md"})));
    assert_eq!(
        lines[4],
        json!({"type": "result", "id": "t2", "name": "read",
               "result": {"content": "     1\t# Demo project\n     2\t\n     3\tHello.\n", "path": "README.md", "lines": 3, "ok": true}})
    );
    assert_eq!(lines[5], doing("t3", "frobnicate?", json!({"x": 1})));
    assert_eq!(
        lines[6]["result"],
        json!({"error": "unknown tool: \"frobnicate\". Available: read, write, edit, execute, job_output, job_input, job_stop, glob, grep, list, web_fetch, plan, task", "ok": false})
    );
    assert_eq!(lines[7], json!({"type": "saying", "text": "All done."}));
    assert_eq!(lines[8], json!({"type": "reply", "text": "All done."}));
    assert_eq!(lines.len(), 9);
}

#[test]
fn ask_prints_the_reply_on_stdout_and_progress_on_stderr() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [doing("t1", "read", json!({"path": "README.md"}))]},
        {"events": [{"type": "saying", "text": "It is a demo."}]}
    ]));
    let out = run.elelem(&["ask", "what", "is", "this"], Some(&script), "");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "It is a demo.\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("+ #1 read README.md\n"));
}

#[test]
fn ask_exits_1_when_the_provider_fails() {
    let run = Run::new();
    let script = run.script(json!([{"error": "rate limited"}]));
    let out = run.elelem(&["ask", "--json", "hi"], Some(&script), "");
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out);
    assert!(lines.contains(&json!({"type": "error", "message": "rate limited"})));
    assert_eq!(lines.last().unwrap(), &json!({"type": "reply", "text": "Error: rate limited"}));
}

#[test]
fn ask_appends_piped_stdin_as_a_fenced_block() {
    assert_eq!(
        elelem::ask::prompt_with_stdin("summarize", "line one\nline two\n"),
        "summarize\n\n```\nline one\nline two\n```"
    );
    assert_eq!(elelem::ask::prompt_with_stdin("", "a ``` b"), "````\na ``` b\n````");
    // Piped text alone is a prompt.
    let run = Run::new();
    let out = run.elelem(&["ask", "--json"], None, "what is this?\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(json_lines(&out)[0]["text"].as_str().unwrap().contains("```"));
}

#[test]
fn line_mode_prints_banner_tool_lines_and_reply_without_colour_when_piped() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [{"type": "thinking", "text": "hmm"}, doing("t1", "nope", json!({}))]},
        {"events": [{"type": "saying", "text": "Hello there."}]}
    ]));
    let out = run.elelem(&["chat"], Some(&script), "hi\n\n/context\n");
    assert!(out.status.success(), "EOF must exit 0");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with(&format!("elelem v{}", env!("CARGO_PKG_VERSION"))), "{stdout}");
    assert!(stdout.contains("> hi\n┊ hmm\n+ #1 nope?\nx #1 nope? · unknown tool: \"nope\""), "{stdout}");
    assert!(stdout.contains("Hello there."));
    assert!(stdout.contains("  2. user: hi\n  3. assistant: Hello there."), "{stdout}");
    assert!(!stdout.contains('\x1b'), "no escape codes when piped: {stdout:?}");
}

/// Issue 30: piped lines are prompts, never approval answers. `thanks` used to answer
/// `Allow execute? [y/N/a]` and the second prompt was lost.
#[test]
fn piped_chat_refuses_an_approval_and_sends_the_next_line_as_a_prompt() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [doing("t1", "execute", json!({"command": "touch RAN"}))]},
        {"events": [{"type": "saying", "text": "first reply"}]},
        {"events": [{"type": "saying", "text": "second reply"}]}
    ]));
    // Without the sandbox, so that execute asks (contained, it would not).
    let out = run.elelem(&["chat", "--sandbox", "off"], Some(&script), "run the tests\nthanks\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("stdin is not a terminal: its lines are prompts, not answers"), "{stdout}");
    assert_eq!(stdout.matches("stdin is not a terminal").count(), 1, "said once: {stdout}");
    assert!(!stdout.contains("Allow execute?"), "{stdout}");
    assert!(stdout
        .contains("x #1 execute touch RAN · Permission denied: execute needs approval, and a headless run cannot ask"));
    assert!(stdout.contains("first reply"), "{stdout}");
    assert!(stdout.contains("> thanks\n"), "{stdout}");
    assert!(stdout.contains("second reply"), "the second line is a prompt: {stdout}");
    assert!(!run.dir.path().join("RAN").exists());
}

/// Issue 30: `elelem "prompt"` with stdin not a terminal is the line REPL with that
/// prompt sent first, then stdin's lines.
#[test]
fn a_prompt_on_the_command_line_starts_the_line_repl_with_it_sent_first() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [{"type": "saying", "text": "first reply"}]},
        {"events": [{"type": "saying", "text": "second reply"}]}
    ]));
    let out = run.elelem(&["explain", "this"], Some(&script), "and more\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.find("> explain this\nfirst reply").expect(&stdout);
    let second = stdout.find("> and more\nsecond reply").expect(&stdout);
    assert!(first < second, "{stdout}");
    // Subcommands still win, after flags too: `elelem -p stub ask …` is not a prompt.
    let out = run.elelem(&["-p", "stub", "ask", "hi"], Some(&script), "");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "first reply\n");
    let out = run.elelem(&["--yolo", "chat"], Some(&script), "");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("> chat"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn slash_commands_show_context_json_tools_and_unknown_commands() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "Hi!"}]}]));
    let out = run.elelem(
        &["chat", "--plain"],
        Some(&script),
        "hello\n/context json\n/context 3\n/tools\n/bogus\n/exit\nread-after-exit\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"role\": \"system\""), "{stdout}");
    assert!(stdout.contains("\"content\": \"hello\""), "{stdout}");
    assert!(stdout.contains("3. assistant:\nHi!"), "{stdout}");
    assert!(stdout.contains("execute — Run a shell command"), "{stdout}");
    assert!(stdout.contains("aliases: bash, sh, exec"), "{stdout}");
    assert!(stdout.contains("unknown command: /bogus. Available: /agents, /clear, /compact, /context"), "{stdout}");
    assert!(!stdout.contains("read-after-exit"), "/exit stops reading");
}

#[test]
fn clear_forgets_the_conversation() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "Hi!"}]}]));
    let out = run.elelem(&["chat"], Some(&script), "hello\n/clear\n/context\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Conversation cleared."));
    let after = stdout.split("Conversation cleared.").nth(1).unwrap();
    assert!(after.contains("1. system:") && !after.contains("2. user"), "{after}");
}

#[test]
fn provider_command_lists_and_rejects_unknown_names() {
    let run = Run::new();
    let out = run.elelem(&["chat"], None, "/provider\n/provider x\n/reload\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("* stub (stub-demo)"), "{stdout}");
    assert!(stdout.contains("unknown provider: \"x\". Available: anthropic, ollama, openai, stub"), "{stdout}");
    assert!(stdout.contains("Reloaded: 13 tools"), "{stdout}");
}

#[test]
fn the_default_stub_demo_reads_the_readme_and_answers_in_markdown() {
    let run = Run::new();
    let out = run.elelem(&["ask", "--json", "hello"], None, "");
    assert!(out.status.success());
    let lines = json_lines(&out);
    assert_eq!(lines[0]["type"], "thinking");
    assert_eq!(lines[1], doing("stub_1", "read", json!({"path": "README.md"})));
    let reply = lines.last().unwrap()["text"].as_str().unwrap().to_string();
    assert!(reply.contains("## What I found") && reply.contains("```rust"), "{reply}");
    assert!(reply.contains("*Demo project*"), "{reply}");
}

#[test]
fn a_malformed_script_is_a_startup_error_naming_the_file() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "dance"}]}]));
    let out = run.elelem(&["ask", "hi"], Some(&script), "");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&script) && stderr.contains("step 0: event 0"), "{stderr}");
}

#[test]
fn an_unknown_provider_is_a_clear_error() {
    let run = Run::new();
    let out = run.elelem(&["ask", "-p", "x", "hi"], None, "");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown provider: \"x\". Available: anthropic, ollama, openai, stub"), "{stderr}");
}

#[test]
fn files_prints_a_documents_block() {
    let run = Run::new();
    let out = run.elelem(&["files", "README.md"], None, "");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "<documents>\n<document index=\"1\"><source>README.md</source><document_content># Demo project\n\nHello.\n</document_content></document>\n</documents>\n"
    );
}

#[test]
fn version_and_help() {
    let run = Run::new();
    let out = run.elelem(&["--version"], None, "");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("elelem {}", env!("CARGO_PKG_VERSION")));
    let out = run.elelem(&["--help"], None, "");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("chat") && help.contains("ask") && help.contains("files"));
}

#[test]
fn init_drafts_agents_md_through_a_normal_turn() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "Drafted AGENTS.md."}]}]));
    let out = run.elelem(&["chat", "--plain"], Some(&script), "/init\n/context 2\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Drafted AGENTS.md."), "{stdout}");
    assert!(stdout.contains("2. user:\nLook around this project"), "the prompt was a turn: {stdout}");
}

#[test]
fn claude_md_is_read_when_the_project_has_no_agents_md() {
    let run = Run::new();
    std::fs::write(run.dir.path().join("CLAUDE.md"), "Prefer small commits.\n").unwrap();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "ok"}]}]));
    let out = run.elelem(&["chat", "--plain"], Some(&script), "/context 1\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Prefer small commits."), "{stdout}");
}

#[test]
fn chat_flags_are_accepted_at_the_top_level() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "hi"}]}]));
    for args in [
        &["--yolo", "--plain"][..],
        &["--no-mouse", "--plain"],
        &["--allow", "write", "--plain"],
        &["chat", "--plain", "--yolo"],
    ] {
        let out = run.elelem(args, Some(&script), "");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = run.elelem(&["--yolo", "--plain"], Some(&script), "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("--yolo: tool calls run without asking"));
}

#[test]
fn copy_n_past_the_replies_says_how_many_there_are() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "**Bold** answer."}]}]));
    let out = run.elelem(&["chat", "--plain"], Some(&script), "a question\n/copy 5\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("no reply 5: there are 1"), "{stdout}");
}

#[test]
fn context_delete_edit_clear_undo_and_compact() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [{"type": "saying", "text": "first reply"}]},
        {"events": [{"type": "saying", "text": "second reply"}]},
        {"events": [{"type": "saying", "text": "We discussed two things."}]}
    ]));
    let input = "one\ntwo\n/context delete 1\n/context delete 2,3\n/context edit 2 edited two\n/context\n\
                 /clear\n/context\n/clear undo\n/compact keep it short\n/context\n";
    let out = run.elelem(&["chat", "--plain"], Some(&script), input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("message 1 is the system prompt"), "{stdout}");
    assert!(stdout.contains("Deleted 2 message(s)."), "{stdout}");
    assert!(
        stdout.contains("tokens after the change uncached (a prompt cache is written again from there)"),
        "{stdout}"
    );
    assert!(stdout.contains("  2. user: edited two\n  3. assistant: second reply"), "{stdout}");
    assert!(stdout.contains("Conversation restored (2 messages)."), "{stdout}");
    assert!(stdout.contains("Compacted: the conversation went from ~"), "{stdout}");
    assert!(stdout.contains("The next request sends those ~"), "{stdout}");
    assert!(
        stdout.contains("  2. user: Summary of the conversation so far (compacted at the user's request): …"),
        "{stdout}"
    );
}

#[test]
fn context_edit_without_text_opens_the_editor_and_an_emptied_message_is_deleted() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [{"type": "saying", "text": "first reply"}]},
        {"events": [{"type": "saying", "text": "second reply"}]}
    ]));
    // Rewrites the message that says "one", empties any other.
    let editor = r#"sh -c 'if grep -q one "$1"; then printf "edited in the editor\n" > "$1"; else : > "$1"; fi' sh"#;
    let env = std::collections::HashMap::from([("VISUAL", editor), ("EDITOR", "false")]);
    let input = "one\ntwo\n/context edit 2\n/context edit 4\n/context\n/context edit 1\n";
    let out = run.elelem_env(&["chat", "--plain"], Some(&script), input, &env);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("Message 2 replaced."), "{stdout}{stderr}");
    assert!(stdout.contains("Message 4 was emptied, so it is deleted."), "{stdout}{stderr}");
    assert!(
        stdout.contains("  2. user: edited in the editor\n  3. assistant: first reply\n  4. assistant: second reply"),
        "{stdout}"
    );
    assert!(format!("{stdout}{stderr}").contains("message 1 is the system prompt"), "{stdout}{stderr}");
}

#[test]
fn bang_runs_a_shell_command_as_the_user_and_the_next_prompt_carries_it() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "I see the listing."}]}]));
    let out =
        run.elelem(&["chat", "--plain"], Some(&script), "!echo from-the-shell; exit 3\nwhat did it say?\n/context 2\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "+ #1 ! echo from-the-shell; exit 3\n  │ from-the-shell\nx #1 ! echo from-the-shell; exit 3 · exit 3\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("I see the listing."), "{stdout}");
    assert!(
        stdout.contains("2. user:\nI ran `echo from-the-shell; exit 3` in the shell (exit status 3). Its output:\n```\nfrom-the-shell\n```\n\nwhat did it say?"),
        "{stdout}"
    );
}

#[test]
fn at_mentions_attach_the_file_to_the_prompt() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "Read it."}]}]));
    let out = run.elelem(&["chat", "--plain"], Some(&script), "summarise @README.md please\n/context 2\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "2. user:\nsummarise @README.md please\n\n<file path=\"README.md\">\n# Demo project\n\nHello.\n</file>"
        ),
        "{stdout}"
    );
}

#[test]
fn a_request_larger_than_the_context_window_is_not_sent() {
    let run = Run::new();
    let script = run.script(json!([{"events": [{"type": "saying", "text": "ok"}]}]));
    let mut cmd_env = std::collections::HashMap::new();
    cmd_env.insert("ELELEM_CONTEXT_WINDOW", "50");
    let out = run.elelem_env(&["ask", "--json", "a prompt"], Some(&script), "", &cmd_env);
    let lines = json_lines(&out);
    let error = lines.iter().find(|l| l["type"] == "error").expect("an error line");
    assert!(error["message"].as_str().unwrap().contains("-token context window"), "{error}");
    assert!(error["message"].as_str().unwrap().starts_with("not sent"), "{error}");
    assert!(!lines.iter().any(|l| l["type"] == "saying"), "the stub was never asked: {lines:?}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn context_keep_keeps_a_tool_call_of_the_last_turn_in_native_shape() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [doing("r1", "read", json!({"path": "README.md"}))]},
        {"events": [{"type": "saying", "text": "It is a demo."}]}
    ]));
    let out = run.elelem(&["chat", "--plain"], Some(&script), "read it\n/context\n/context keep k1\n/context json\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("  k1. read README.md (ok)"), "{stdout}");
    assert!(stdout.contains("Kept read (k1) and its result in the conversation."), "{stdout}");
    let json_start = stdout.find("> /context json\n[\n").unwrap() + 16;
    let json_end = stdout.rfind("\n]").unwrap() + 2;
    let messages: Vec<Value> = serde_json::from_str(&stdout[json_start..json_end]).unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    assert_eq!(messages[2]["tool_calls"][0]["name"], "read");
    assert_eq!(messages[3]["tool_call_id"], "r1");
    assert_eq!(messages[4]["content"], "It is a demo.");
}

#[test]
fn line_mode_sets_thinking_apart_shows_tool_tails_and_failures_and_each_turns_tokens_and_time() {
    let run = Run::new();
    let script = run.script(json!([
        {"events": [
            {"type": "thinking", "text": "First I look.\nThen I "},
            {"type": "thinking", "text": "run it."},
            doing("x1", "execute", json!({"command": "seq 1 10; exit 2"})),
            {"type": "usage", "input_tokens": 1200, "output_tokens": 40}
        ]},
        {"events": [
            {"type": "saying", "text": "It failed with status 2."},
            {"type": "usage", "input_tokens": 1300, "output_tokens": 12}
        ]}
    ]));
    let out = run.elelem(&["chat", "--plain", "--yolo"], Some(&script), "run the check\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let expected = "> run the check\n\
                    ┊ First I look.\n\
                    ┊ Then I run it.\n\
                    + #1 execute seq 1 10; exit 2\n  \
                    │ 1\n  │ 2\n  │ 3\n  │ 4\n  │ 5\n  │ 6\n  │ 7\n  │ 8\n  │ 9\n  │ 10\n\
                    x #1 execute seq 1 10; exit 2 · exit 2\n\
                    It failed with status 2.\n\
                    turn ↑2.5k ↓52 · ";
    assert!(stdout.contains(expected), "{stdout}");
    let after = stdout.split("turn ↑2.5k ↓52 · ").nth(1).unwrap_or("");
    assert!(
        after.starts_with(|c: char| c.is_ascii_digit()) && after.ends_with("s\n"),
        "no prompt left at the end: {stdout}"
    );
}
