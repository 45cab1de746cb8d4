//! Permissions end to end: every path (allow, deny, ask-yes, ask-no, always, headless deny,
//! `--allow`, `--yolo`, command prefixes, home vs project files, malformed file) through a
//! real session's toolbox, then through the real binary with `ask --json`.

use crate::support::permissions::*;
use elelem::agent::input::{Approval, ApprovalRequest};
use elelem::agent::{Preview, PreviewKind};
use elelem::startup::Options;
use serde_json::{json, Value};

#[tokio::test]
async fn read_only_tools_are_allowed_without_asking() {
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.file("a.txt"), "hi\n").unwrap();
    let answers = Answers::new(&[]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    let read = call(&mut session, "read", json!({"path": dirs.file("a.txt")})).await;
    assert_eq!(read["ok"], true);
    let list = call(&mut session, "list", json!({"path": dirs.project.to_str().unwrap()})).await;
    assert_eq!(list["ok"], true);
    assert!(answers.asked().is_empty());
}

#[tokio::test]
async fn deny_refuses_with_a_normal_result() {
    let dirs = Dirs::new(None, Some(r#"{"read": "deny"}"#));
    let answers = Answers::new(&[]);
    let mut session = dirs.session(Options { yolo: true, ..interactive() }, answers.clone()).unwrap();
    assert_eq!(
        call(&mut session, "cat", json!({"path": "x"})).await,
        json!({"error": "Permission denied: read", "ok": false}),
        "deny holds even with --yolo"
    );
    assert!(answers.asked().is_empty());
}

#[tokio::test]
async fn ask_yes_shows_the_diff_before_writing() {
    let dirs = Dirs::new(None, None);
    let path = dirs.file("a.txt");
    std::fs::write(&path, "one\ntwo\n").unwrap();
    let answers = Answers::new(&[Approval::Yes]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    let result = call(&mut session, "write", json!({"path": path, "content": "one\n2\n"})).await;
    assert_eq!(result["ok"], true);
    let diff = format!("--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
    assert_eq!(
        answers.asked(),
        vec![ApprovalRequest {
            call_id: String::new(),
            tool: "write".into(),
            args: json!({"path": path, "content": "one\n2\n"}),
            summary: path.clone(),
            preview: Preview { kind: PreviewKind::Diff, text: diff.clone() }
        }]
    );
    assert_eq!(result["diff"], diff, "the diff asked about is the diff made");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n2\n");
}

#[tokio::test]
async fn ask_no_refuses_and_changes_nothing() {
    let dirs = Dirs::new(None, None);
    let path = dirs.file("a.txt");
    std::fs::write(&path, "x = 1\n").unwrap();
    let answers = Answers::new(&[Approval::No]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    assert_eq!(
        call(&mut session, "edit", json!({"path": path, "old": "1", "new": "2"})).await,
        json!({"error": "User denied permission: edit", "ok": false})
    );
    assert_eq!(answers.asked()[0].preview.text, format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 1\n");
}

#[tokio::test]
async fn an_edit_that_would_fail_is_not_asked_about() {
    let dirs = Dirs::new(None, None);
    let path = dirs.file("a.txt");
    std::fs::write(&path, "abc\n").unwrap();
    let answers = Answers::new(&[Approval::Yes]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    let result = call(&mut session, "edit", json!({"path": path, "old": "zzzzzz", "new": "y"})).await;
    assert_eq!(
        result,
        json!({"error": format!("`old` was not found in {path}. No similar lines; read the file to see its current text."), "ok": false})
    );
    assert!(answers.asked().is_empty());
}

#[tokio::test]
async fn always_allows_the_tool_for_the_rest_of_the_session() {
    let dirs = Dirs::new(None, None);
    let answers = Answers::new(&[Approval::Always]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    for word in ["one", "two", "three"] {
        let result = call(&mut session, "execute", json!({"command": format!("echo {word}")})).await;
        assert_eq!(result, json!({"exit_status": 0, "content": format!("{word}\n"), "ok": true}));
    }
    assert_eq!(answers.asked().len(), 1);
    assert_eq!(answers.asked()[0].preview.text, "echo one", "the command is what is shown");
    session.reload().unwrap();
    assert_eq!(call(&mut session, "execute", json!({"command": "true"})).await["ok"], true);
    assert_eq!(answers.asked().len(), 1, "always survives /reload");
    let write = call(&mut session, "write", json!({"path": dirs.file("w"), "content": ""})).await;
    assert_eq!(write, json!({"error": "User denied permission: write", "ok": false}), "only that tool");
}

#[tokio::test]
async fn headless_ask_is_denied_with_how_to_allow_it() {
    let dirs = Dirs::new(None, None);
    let answers = Answers::new(&[Approval::Yes]);
    let mut session = dirs.session(headless(), answers.clone()).unwrap();
    assert_eq!(
        call(&mut session, "bash", json!({"command": "echo hi"})).await,
        json!({
            "error": "Permission denied: execute needs approval, and a headless run cannot ask. Allow it with --allow execute \
                      (repeatable) or --yolo (allow everything), or set \"execute\": \"allow\" in .agents/permissions.json",
            "ok": false
        })
    );
    assert!(answers.asked().is_empty());
}

#[tokio::test]
async fn allow_flags_take_tool_names_or_aliases() {
    let dirs = Dirs::new(None, None);
    let options = Options { allow: vec!["bash".into(), "write".into()], ..headless() };
    let mut session = dirs.session(options, Answers::new(&[])).unwrap();
    assert_eq!(call(&mut session, "execute", json!({"command": "echo hi"})).await["ok"], true);
    assert_eq!(call(&mut session, "write", json!({"path": dirs.file("w.txt"), "content": "x"})).await["ok"], true);
    assert_eq!(
        call(&mut session, "edit", json!({"path": dirs.file("w.txt"), "old": "x", "new": "y"})).await["ok"],
        false,
        "edit was not allowed"
    );
}

#[tokio::test]
async fn yolo_allows_every_ask() {
    let dirs = Dirs::new(None, None);
    let answers = Answers::new(&[]);
    let mut session = dirs.session(Options { yolo: true, ..interactive() }, answers.clone()).unwrap();
    assert_eq!(call(&mut session, "execute", json!({"command": "true"})).await["ok"], true);
    assert_eq!(call(&mut session, "write", json!({"path": dirs.file("w.txt"), "content": "x"})).await["ok"], true);
    assert!(answers.asked().is_empty());
}

#[tokio::test]
async fn command_prefixes_decide_execute() {
    let rules = r#"{"execute": {"allow": ["echo", "git status"], "deny": ["rm"]}}"#;
    let dirs = Dirs::new(Some(rules), None);
    let answers = Answers::new(&[Approval::No, Approval::No]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    assert_eq!(call(&mut session, "execute", json!({"command": "echo ok"})).await["ok"], true);
    assert_eq!(
        call(&mut session, "execute", json!({"command": "rm -rf x"})).await,
        json!({"error": "Permission denied: execute", "ok": false})
    );
    let chained = call(&mut session, "execute", json!({"command": "echo ok; touch pwned"})).await;
    assert_eq!(chained, json!({"error": "User denied permission: execute", "ok": false}));
    let other = call(&mut session, "execute", json!({"command": "ls"})).await;
    assert_eq!(other, json!({"error": "User denied permission: execute", "ok": false}));
    let details: Vec<String> = answers.asked().into_iter().map(|r| r.preview.text).collect();
    assert_eq!(details, vec!["echo ok; touch pwned", "ls"]);
}

#[tokio::test]
async fn a_project_file_may_tighten_the_home_file() {
    let dirs = Dirs::new(Some(r#"{"execute": "allow", "write": "allow"}"#), Some(r#"{"execute": "deny"}"#));
    let mut session = dirs.session(headless(), Answers::new(&[])).unwrap();
    assert_eq!(
        call(&mut session, "execute", json!({"command": "true"})).await,
        json!({"error": "Permission denied: execute", "ok": false})
    );
    assert_eq!(call(&mut session, "write", json!({"path": dirs.file("w.txt"), "content": "x"})).await["ok"], true);
}

#[tokio::test]
async fn a_malformed_file_fails_setup_naming_it() {
    let dirs = Dirs::new(Some(r#"{"execute": "sometimes"}"#), None);
    let error = dirs.session(interactive(), Answers::new(&[])).err().unwrap();
    let path = dirs.home.join(".agents/permissions.json");
    assert_eq!(
        format!("{error:#}"),
        format!(
            "plugin permissions: invalid permissions file {}: \"execute\": expected \"allow\", \"deny\" or \"ask\", not \"sometimes\"",
            path.display()
        )
    );
}

// ---- the real binary ----

#[test]
fn ask_json_denies_write_headless() {
    let dirs = Dirs::new(None, None);
    let script = doing(&[("t1", "write", json!({"path": "new.txt", "content": "hi\n"}))]);
    let (results, _, code) = ask(&dirs.project, &dirs.home, script, &[]);
    assert_eq!(
        results,
        vec![json!({"type": "result", "id": "t1", "name": "write", "result": {
            "error": "Permission denied: write needs approval, and a headless run cannot ask. Allow it with --allow write \
                      (repeatable) or --yolo (allow everything), or set \"write\": \"allow\" in .agents/permissions.json",
            "ok": false
        }})]
    );
    assert_eq!(code, Some(0));
    assert!(!dirs.project.join("new.txt").exists());
}

#[test]
fn ask_json_allow_write_writes() {
    let dirs = Dirs::new(None, None);
    let script = doing(&[("t1", "write", json!({"path": "new.txt", "content": "hi\n"}))]);
    let (results, _, _) = ask(&dirs.project, &dirs.home, script, &["--allow", "write"]);
    assert_eq!(
        results,
        vec![
            json!({"type": "result", "id": "t1", "name": "write", "result": {"bytes": 3, "path": "new.txt", "ok": true}})
        ]
    );
    assert_eq!(std::fs::read_to_string(dirs.project.join("new.txt")).unwrap(), "hi\n");
}

#[test]
fn ask_json_yolo_runs_commands_and_deny_still_denies() {
    let dirs = Dirs::new(None, Some(r#"{"write": "deny"}"#));
    let script = doing(&[
        ("t1", "bash", json!({"command": "echo hi; exit 4"})),
        ("t2", "write", json!({"path": "w.txt", "content": "x"})),
    ]);
    let (results, _, _) = ask(&dirs.project, &dirs.home, script, &["--yolo"]);
    assert_eq!(
        results,
        vec![
            json!({"type": "result", "id": "t1", "name": "execute", "result": {"exit_status": 4, "content": "hi\n", "ok": true}}),
            json!({"type": "result", "id": "t2", "name": "write", "result": {"error": "Permission denied: write", "ok": false}}),
        ]
    );
}

#[test]
fn a_malformed_permissions_file_stops_startup() {
    let dirs = Dirs::new(None, Some("{\"execute\": "));
    let (results, stderr, code) = ask(&dirs.project, &dirs.home, json!([]), &[]);
    assert!(results.is_empty());
    assert_eq!(code, Some(1));
    let path = dirs.project.join(".agents/permissions.json");
    assert!(
        stderr.starts_with(&format!(
            "elelem: plugin permissions: invalid permissions file {}: not valid JSON",
            path.display()
        )),
        "{stderr}"
    );
}

/// The model explores and changes a project end to end with the default policies plus
/// the flags a headless run needs for its changes: read, grep, edit, then run the tests.
#[test]
fn a_model_can_read_grep_edit_and_test_a_project() {
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.project.join("calc.sh"), "add() { echo $(( $1 - $2 )); }\n").unwrap();
    std::fs::write(
        dirs.project.join("test.sh"),
        ". ./calc.sh\n[ \"$(add 2 3)\" = 5 ] && echo PASS || { echo FAIL; exit 1; }\n",
    )
    .unwrap();
    let script = json!([
        {"events": [
            {"type": "doing", "id": "t1", "name": "grep", "arguments": {"pattern": "add\\(\\)"}},
            {"type": "doing", "id": "t2", "name": "read", "arguments": {"path": "calc.sh"}}
        ]},
        {"events": [{"type": "doing", "id": "t3", "name": "edit", "arguments": {"path": "calc.sh", "old": "$1 - $2", "new": "$1 + $2"}}]},
        {"events": [{"type": "doing", "id": "t4", "name": "execute", "arguments": {"command": "bash test.sh"}}]},
        {"events": [{"type": "saying", "text": "fixed"}]}
    ]);
    let (mut results, _, code) = ask(&dirs.project, &dirs.home, script, &["--allow", "edit", "--allow", "execute"]);
    assert_eq!(code, Some(0));
    // grep and read run together and may finish in either order: compare in call order.
    results.sort_by_key(|r| r["id"].as_str().map(str::to_string));
    let results: Vec<Value> = results.into_iter().map(|r| r["result"].clone()).collect();
    assert_eq!(
        results,
        vec![
            json!({"content": "calc.sh:1:add() { echo $(( $1 - $2 )); }", "matches": 1, "files": 1, "ok": true}),
            json!({"content": "     1\tadd() { echo $(( $1 - $2 )); }\n", "path": "calc.sh", "lines": 1, "ok": true}),
            json!({
                "path": "calc.sh", "replacements": 1,
                "diff": "--- a/calc.sh\n+++ b/calc.sh\n@@ -1 +1 @@\n-add() { echo $(( $1 - $2 )); }\n+add() { echo $(( $1 + $2 )); }\n",
                "ok": true
            }),
            json!({"exit_status": 0, "content": "PASS\n", "ok": true}),
        ]
    );
}

/// On a terminal the line REPL asks `Allow TOOL? [y/N/a]` with the diff or command, and
/// reads the answer typed there.
#[test]
fn chat_plain_asks_and_reads_the_answer_on_a_terminal() {
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.project.join("a.txt"), "hi\n").unwrap();
    let script = doing(&[
        ("t1", "write", json!({"path": "a.txt", "content": "hi there\n"})),
        ("t2", "execute", json!({"command": "echo ran > ran.txt"})),
    ]);
    std::fs::write(dirs.home.join("script.json"), script.to_string()).unwrap();
    // Without the sandbox, so that execute asks (contained, it would not).
    let term = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain", "--trust", "--sandbox", "off"]);
    term.wait_for("> ");
    term.send("go\r");
    term.wait_for("Allow write? [y/N/a]");
    let screen = term.contents();
    assert!(
        screen.contains(
            "write wants to make this change:\n  --- a/a.txt\n  +++ b/a.txt\n  @@ -1 +1 @@\n  -hi\n  +hi there\n"
        ),
        "{screen}"
    );
    term.send("y\r");
    term.wait_for("Allow execute? [y/N/a]");
    assert!(term.contents().contains("execute wants to run:\n  echo ran > ran.txt\n"), "{}", term.contents());
    term.send("n\r");
    term.wait_for("x #2 execute echo ran > ran.txt · User denied permission: execute");
    term.wait_for("done");
    assert_eq!(std::fs::read_to_string(dirs.project.join("a.txt")).unwrap(), "hi there\n");
    assert!(!dirs.project.join("ran.txt").exists());
}

/// Piped, the lines are prompts: nothing is asked, and what would be is refused as in `ask`.
#[test]
fn chat_plain_with_piped_input_refuses_what_would_ask() {
    use std::io::Write;
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.project.join("a.txt"), "hi\n").unwrap();
    let script = doing(&[("t1", "write", json!({"path": "a.txt", "content": "hi there\n"}))]);
    let script_path = dirs.home.join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain"])
        .current_dir(&dirs.project)
        .env("HOME", &dirs.home)
        .env("ELELEM_STUB_SCRIPT", &script_path)
        // Without the sandbox, so that execute asks (contained, it would not).
        .env("ELELEM_SANDBOX", "off")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"go\ny\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("Allow write?"), "{stdout}");
    assert!(
        stdout.contains("x #1 write a.txt · Permission denied: write needs approval, and a headless run cannot ask"),
        "{stdout}"
    );
    assert!(stdout.contains("> y\n"), "`y` is the next prompt: {stdout}");
    assert_eq!(std::fs::read_to_string(dirs.project.join("a.txt")).unwrap(), "hi\n");
}

#[test]
fn permissions_command_shows_the_policy_of_each_tool() {
    use std::io::Write;
    let dirs = Dirs::new(Some(r#"{"execute": {"allow": ["cargo test"], "default": "ask"}, "glob": "deny"}"#), None);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "--allow", "edit"])
        .current_dir(&dirs.project)
        .env("HOME", &dirs.home)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"/permissions\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("read       allow\n"), "{stdout}");
    // Piped, nobody can be asked: what would ask is refused, and /permissions says so.
    assert!(stdout.contains("write      deny (headless run: cannot ask)\n"), "{stdout}");
    assert!(stdout.contains("edit       allow (--allow edit)\n"), "{stdout}");
    assert!(
        stdout.contains(
            "execute    deny (headless run: cannot ask)\n             allow commands starting `cargo test`\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("glob       deny\n"), "{stdout}");
}
