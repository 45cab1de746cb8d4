//! Issue 38, points 11 and 14: words and numbers that agree, through the real binary
//! (`ask`, `ask --json`, the line REPL, `--help`) and in the full-screen status line: one
//! word for the permission mode of headless runs, an untrusted project's notice that says
//! what to do where nothing is asked, one error line for one failure, no prompt left behind
//! when input ends, `/compact`'s numbers from one count, `--theme auto` as the code does it,
//! and "cached" as the session's share in the status line as in `/cost`.

use crate::support::home::elelem;
use elelem::agent::output::AgentEvent;
use elelem::protocol::Usage;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::Output;

/// `elelem ARGS` in `dir` (also its home) with `stdin`, the stub playing `script`.
fn run(dir: &Path, args: &[&str], script: &Value, stdin: &str, env: &[(&str, &str)]) -> Output {
    run_in(dir, dir, args, script, stdin, env)
}

/// `run` in the project `dir` with its own `home`.
fn run_in(dir: &Path, home: &Path, args: &[&str], script: &Value, stdin: &str, env: &[(&str, &str)]) -> Output {
    let path = home.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let mut cmd = elelem(dir, home);
    cmd.env("ELELEM_STUB_SCRIPT", &path).env("ELELEM_SANDBOX", "off").envs(env.iter().copied()).args(args);
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json_lines(out: &Output) -> Vec<Value> {
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn headless_runs_say_headless_never_ask_mode() {
    let dir = tempfile::tempdir().unwrap();
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "a.txt", "content": "x"}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let out = run(dir.path(), &["ask", "--json", "write it"], &script, "", &[]);
    let lines = json_lines(&out);
    let error = lines.iter().find(|l| l["type"] == "result").unwrap()["result"]["error"].as_str().unwrap().to_string();
    assert!(error.contains("write needs approval, and a headless run cannot ask"), "{error}");
    assert!(!text(&out.stdout).contains("ask mode"), "{}", text(&out.stdout));
    // The line REPL fed by a pipe is headless too, and /permissions says so in the same word.
    let out = run(dir.path(), &["chat", "--plain"], &json!([]), "/permissions\n", &[]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("write      deny (headless run: cannot ask)"), "{stdout}");
    assert!(stdout.contains(": deny (headless run: cannot ask)"), "paths outside: {stdout}");
    assert!(!stdout.contains("ask mode"), "{stdout}");
}

#[test]
fn an_untrusted_project_is_told_what_to_do_where_nothing_asks() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".agents")).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]}});
    std::fs::write(project.join(".agents/hooks.json"), hooks.to_string()).unwrap();
    std::fs::write(project.join(".agents/permissions.json"), r#"{"execute": "allow"}"#).unwrap();
    let reply = json!([{"events": [{"type": "saying", "text": "hello"}]}]);
    let out = run_in(&project, home.path(), &["ask", "hi"], &reply, "", &[]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("Project hooks in") && stderr.contains("not trusted"), "{stderr}");
    assert!(!stderr.contains("answer yes when asked"), "ask never asks:\n{stderr}");
    assert!(stderr.contains("run with --trust"), "{stderr}");
}

/// A base URL nothing listens on.
fn closed_port() -> String {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    format!("http://{closed}")
}

#[test]
fn a_refused_connection_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let base = closed_port();
    let env = [("ANTHROPIC_API_KEY", "sk-ant-test"), ("ANTHROPIC_BASE_URL", base.as_str())];
    let out = run(dir.path(), &["-p", "anthropic", "ask", "hi"], &json!([]), "", &env);
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(stdout, "", "stdout is the reply, and there is none");
    assert_eq!(stderr.matches("cannot connect").count(), 1, "{stderr}");
    let line = stderr.lines().find(|l| l.contains("cannot connect")).unwrap();
    assert!(line.starts_with("Error: anthropic: cannot connect to http://127.0.0.1:"), "{line}");
    assert_eq!(line.matches("127.0.0.1").count(), 1, "the URL said once: {line}");
    // ask --json: one error line (no warning saying it first), then the reply.
    let out = run(dir.path(), &["-p", "anthropic", "ask", "--json", "hi"], &json!([]), "", &env);
    let lines = json_lines(&out);
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["error", "reply"], "{lines:?}");
    // The line REPL: one line for the failure.
    let out = run(dir.path(), &["-p", "anthropic", "chat", "--plain"], &json!([]), "hi\n", &env);
    assert_eq!(text(&out.stdout).matches("cannot connect").count(), 1, "{}", text(&out.stdout));
}

#[test]
fn the_line_repl_leaves_no_prompt_behind_when_input_ends() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &["chat", "--plain"],
        &json!([{"events": [{"type": "saying", "text": "hi back"}]}]),
        "hi\n",
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(stdout.contains("> hi\n"), "the piped line after its prompt: {stdout:?}");
    assert!(stdout.ends_with('\n') && !stdout.ends_with("> \n") && !stdout.ends_with("> "), "{stdout:?}");
}

/// The `~N` after `prefix` in `text`.
fn tokens_after(text: &str, prefix: &str) -> u64 {
    let start = text.find(prefix).unwrap_or_else(|| panic!("no {prefix:?} in {text}")) + prefix.len();
    text[start..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

#[test]
fn compact_reports_numbers_that_agree() {
    let dir = tempfile::tempdir().unwrap();
    let script = json!([
        {"events": [{"type": "saying", "text": "A long first answer. ".repeat(40)}]},
        {"events": [{"type": "saying", "text": "We talked about one thing."}]}
    ]);
    let out = run(dir.path(), &["chat", "--plain"], &script, "tell me\n/compact\n", &[]);
    let stdout = text(&out.stdout);
    let before = tokens_after(&stdout, "the conversation went from ~");
    let after = tokens_after(&stdout, " to ~");
    let sent = tokens_after(&stdout, "The next request sends those ~");
    assert_eq!(after, sent, "{stdout}");
    assert!(before > after, "{stdout}");
}

#[test]
fn the_theme_help_says_what_auto_does() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["--help"], &json!([]), "", &[]);
    let help = text(&out.stdout);
    let theme = &help[help.find("--theme").unwrap()..];
    let theme = &theme[..theme.find("\n  -").unwrap_or(theme.len())];
    assert!(theme.contains("OSC 11") && theme.contains("else COLORFGBG"), "{theme}");
}

/// Two calls: the first writes the cache, the second reads it all; the session's share is
/// half, the last call's all of it.
fn two_calls() -> [Usage; 2] {
    [
        Usage { input_tokens: 1000, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 1000 },
        Usage { input_tokens: 1000, output_tokens: 10, cache_read_tokens: 1000, cache_write_tokens: 0 },
    ]
}

#[test]
fn cached_is_the_session_share_in_the_status_line_as_in_cost() {
    let dir = tempfile::tempdir().unwrap();
    let usage = |u: &Usage| {
        json!({"type": "usage", "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
               "cache_read_tokens": u.cache_read_tokens, "cache_write_tokens": u.cache_write_tokens})
    };
    let [first, second] = two_calls();
    let script = json!([
        {"events": [{"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "x"}}, usage(&first)]},
        {"events": [{"type": "saying", "text": "ok"}, usage(&second)]}
    ]);
    let out = run(dir.path(), &["chat", "--plain"], &script, "go\n/cost\n", &[]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("50% of input read from cache"), "{stdout}");

    let mut app = crate::tui::screens::app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    for call in two_calls() {
        app.handle_agent(AgentEvent::Usage(call));
    }
    let screen = crate::tui::screens::text(&crate::tui::screens::frame(&mut app, 120, 40));
    let status = screen.lines().last().unwrap();
    assert!(status.contains("· 50% cached"), "the session's share, as /cost says:\n{status}");
}
