//! Trust end to end through the real binary: an untrusted project's `.agents/` may only
//! tighten the user's rules (issue 9's attack: home denies `execute`, the project allows
//! it, `touch PWNED`), `--trust` and the remembered answer let it loosen them, the user's
//! own deny always wins, and the line REPL asks on a terminal but never blocks on piped
//! input.

use crate::support::permissions::*;
use serde_json::{json, Value};

fn touch_pwned() -> Value {
    doing(&[("t1", "execute", json!({"command": "touch PWNED"}))])
}

fn denied_execute() -> Value {
    json!({"type": "result", "id": "t1", "name": "execute", "result": {"error": "Permission denied: execute", "ok": false}})
}

#[test]
fn an_untrusted_project_cannot_grant_itself_a_tool_the_user_denies() {
    let dirs = Dirs::new(Some(r#"{"execute": "deny"}"#), Some(r#"{"execute": "allow"}"#));
    let run = run_ask(&dirs.project, &dirs.home, touch_pwned(), &[], &[]);
    assert_eq!(run.results(), vec![denied_execute()]);
    assert!(!dirs.project.join("PWNED").exists());
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    assert_eq!(
        run.infos(),
        vec![format!(
            "Project {} is not trusted, so its .agents/permissions.json may only make your rules stricter; \
             ignored: execute allow. To trust it, run with --trust.",
            root.display()
        )]
    );
}

#[test]
fn the_notice_goes_to_stderr_without_json() {
    let dirs = Dirs::new(None, Some(r#"{"write": "allow"}"#));
    std::fs::write(dirs.home.join("script.json"), json!([{"events": [{"type": "saying", "text": "hi"}]}]).to_string())
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "go"])
        .current_dir(&dirs.project)
        .env("HOME", &dirs.home)
        .env("ELELEM_STUB_SCRIPT", dirs.home.join("script.json"))
        .env("NO_COLOR", "1")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not trusted") && stderr.contains("ignored: write allow"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hi\n");
}

#[test]
fn with_trust_the_users_deny_still_wins() {
    let dirs = Dirs::new(Some(r#"{"execute": "deny"}"#), Some(r#"{"execute": "allow"}"#));
    let run = run_ask(&dirs.project, &dirs.home, touch_pwned(), &["--trust"], &[]);
    assert_eq!(run.results(), vec![denied_execute()]);
    assert!(!dirs.project.join("PWNED").exists());
    assert!(run.infos().is_empty(), "nothing is ignored in a trusted project");
}

#[test]
fn an_untrusted_project_cannot_allow_write_headless() {
    let dirs = Dirs::new(None, Some(r#"{"write": "allow"}"#));
    let script = doing(&[("t1", "write", json!({"path": "new.txt", "content": "x"}))]);
    let run = run_ask(&dirs.project, &dirs.home, script.clone(), &[], &[]);
    assert_eq!(run.results()[0]["result"]["ok"], false);
    assert!(run.results()[0]["result"]["error"].as_str().unwrap().contains("needs approval"));
    assert!(!dirs.project.join("new.txt").exists());
    assert!(run.infos()[0].contains("ignored: write allow"));

    let trusted = run_ask(&dirs.project, &dirs.home, script, &["--trust"], &[]);
    assert_eq!(trusted.results()[0]["result"]["ok"], true, "a trusted project's allow applies");
    assert!(dirs.project.join("new.txt").exists());
}

#[test]
fn a_remembered_answer_trusts_the_project_root_from_any_subdirectory() {
    let dirs = Dirs::new(None, Some(r#"{"write": "allow"}"#));
    std::fs::create_dir_all(dirs.project.join(".git")).unwrap();
    std::fs::create_dir_all(dirs.project.join("sub/.agents")).unwrap();
    std::fs::write(dirs.project.join("sub/.agents/permissions.json"), r#"{"write": "allow"}"#).unwrap();
    let data = dirs.root.path().join("data");
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    std::fs::create_dir_all(data.join("elelem")).unwrap();
    std::fs::write(data.join("elelem/trusted.json"), json!({"trusted": [root]}).to_string()).unwrap();
    let script = doing(&[("t1", "write", json!({"path": "new.txt", "content": "x"}))]);
    let env = [("XDG_DATA_HOME", data.to_str().unwrap())];
    let run = run_ask(&dirs.project.join("sub"), &dirs.home, script, &[], &env);
    assert_eq!(run.results()[0]["result"]["ok"], true);
    assert!(dirs.project.join("sub/new.txt").exists());
}

#[test]
fn an_untrusted_project_may_still_tighten() {
    let dirs = Dirs::new(None, Some(r#"{"read": "deny"}"#));
    std::fs::write(dirs.project.join("a.txt"), "x").unwrap();
    let run = run_ask(&dirs.project, &dirs.home, doing(&[("t1", "read", json!({"path": "a.txt"}))]), &[], &[]);
    assert_eq!(run.results()[0]["result"], json!({"error": "Permission denied: read", "ok": false}));
    assert!(run.infos().is_empty(), "tightening is not worth a notice");
}

/// Piped input never waits on the trust question: the project stays untrusted, its allow
/// is ignored, and the tool call is refused without asking (piped lines are prompts).
#[test]
fn chat_plain_with_piped_input_does_not_ask_about_trust() {
    use std::io::Write;
    let dirs = Dirs::new(None, Some(r#"{"execute": "allow"}"#));
    std::fs::write(dirs.home.join("script.json"), touch_pwned().to_string()).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .env("ELELEM_SANDBOX", "off")
        .args(["chat", "--plain"])
        .current_dir(&dirs.project)
        .env("HOME", &dirs.home)
        .env("ELELEM_STUB_SCRIPT", dirs.home.join("script.json"))
        .env("NO_COLOR", "1")
        .env_remove("XDG_DATA_HOME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("is not trusted") && stdout.contains("run with --trust"), "{stdout}");
    assert!(!stdout.contains("this project's .agents/"), "no trust question: {stdout}");
    assert!(!stdout.contains("Allow execute?"), "{stdout}");
    assert!(stdout.contains("execute needs approval, and a headless run cannot ask"), "{stdout}");
    assert!(!dirs.project.join("PWNED").exists());
    assert!(!dirs.home.join(".local/share/elelem/trusted.json").exists());
}

/// On a terminal, the line REPL asks once, showing what `.agents/` holds; "y" is
/// remembered (0600) and the project's rules apply from then on.
#[test]
fn chat_plain_on_a_terminal_asks_once_and_remembers() {
    let dirs = Dirs::new(None, Some(r#"{"execute": "allow"}"#));
    std::fs::create_dir_all(dirs.project.join(".agents/plugins")).unwrap();
    std::fs::write(dirs.project.join(".agents/plugins/tool.rb"), "").unwrap();
    std::fs::write(dirs.home.join("script.json"), touch_pwned().to_string()).unwrap();
    let term = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain"]);
    term.wait_for("Trust this project's .agents/? [y]es / [n]o, do not ask again / Enter: not now");
    let screen = term.contents();
    assert!(screen.contains("  permissions.json") && screen.contains("  plugins/tool.rb"), "{screen}");
    term.send("y\r");
    term.wait_for("its .agents/ settings apply");
    term.send("go\r");
    term.wait_for("done");
    assert!(dirs.project.join("PWNED").exists(), "the trusted project's allow applied");
    let store = dirs.home.join(".local/share/elelem/trusted.json");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&store).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    assert_eq!(saved, json!({"trusted": [root]}));
    drop(term);

    let mut again = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain"]);
    again.wait_for("> ");
    again.send("/exit\r");
    again.wait_exit();
    assert!(!again.contents().contains("this project's .agents/"), "asked once per project");
}

/// The full-screen UI asks through its approval dialog.
#[test]
fn the_tui_asks_in_its_approval_dialog() {
    let dirs = Dirs::new(None, Some(r#"{"execute": "allow"}"#));
    std::fs::write(dirs.home.join("script.json"), "[]").unwrap();
    let term = Terminal::start(&dirs.project, &dirs.home, &[]);
    term.wait_for("Trust this project's .agents/?");
    term.wait_for("permissions.json");
    // The dialog ignores keys typed ahead; it shows its answers once it takes them.
    term.wait_for("[1] yes, trust it");
    term.send("1");
    let store = dirs.home.join(".local/share/elelem/trusted.json");
    term.wait_until(|_| store.exists());
    term.wait_for("its .agents/ settings apply");
}

/// Issue 30: the trust question has its own answers (yes / no / not now, no reason to
/// give a model that is not involved), taken the deliberate way tool approvals are: only
/// digits, only after the user paused typing. "No" is remembered: not asked again.
#[test]
fn the_tui_trust_question_answers_yes_no_not_now_and_remembers_no() {
    let dirs = Dirs::new(None, Some(r#"{"execute": "allow"}"#));
    std::fs::write(dirs.home.join("script.json"), "[]").unwrap();
    let store = dirs.home.join(".local/share/elelem/trusted.json");
    let term = Terminal::start(&dirs.project, &dirs.home, &[]);
    term.wait_for("Trust this project's .agents/?");
    term.wait_for("[3] not now");
    let screen = term.contents();
    assert!(screen.contains("[1] yes, trust it") && screen.contains("[2] no, do not ask again"), "{screen}");
    assert!(!screen.contains("tell it why") && !screen.contains("[4]"), "{screen}");
    term.send("4"); // not an answer here: it is typing, and goes to the prompt
    term.wait_for("typing goes to the prompt");
    assert!(term.contents().contains("Trust this project's .agents/?"), "4 answered: {}", term.contents());
    // A pause: the dialog shows its answers again once the next digit is an answer.
    term.wait_for("[3] not now");
    term.send("3"); // not now: nothing remembered
    term.wait_for("untrusted for now");
    assert!(!store.exists());
    // The 4 was typing: it is in the prompt, not lost to the dialog.
    term.wait_until(|screen| screen.lines().any(|line| line.trim_matches(|c| c == '│' || c == ' ') == "4"));
    drop(term);

    let term = Terminal::start(&dirs.project, &dirs.home, &[]);
    term.wait_for("Trust this project's .agents/?"); // asked again
    term.wait_for("[2] no, do not ask again");
    term.send("2");
    term.wait_for("not asked again");
    term.wait_until(|_| store.exists());
    let root = std::fs::canonicalize(&dirs.project).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    assert_eq!(saved, json!({"trusted": [], "declined": [root]}));
    drop(term);

    let term = Terminal::start(&dirs.project, &dirs.home, &[]);
    term.wait_for("Ask elelem");
    // A command answered shows the session started, past the point where it would ask.
    term.send("/permissions\r");
    term.wait_for("execute");
    assert!(!term.contents().contains("Trust this project"), "{}", term.contents());
}

/// After "no" the project is not asked about again, so the notices about what its
/// `.agents/` does not do stop saying "answer yes when asked" / "when `elelem` asks":
/// they say how to trust it after all (`--trust`, or out of "declined" in the store).
#[test]
fn after_no_the_notices_say_how_to_trust_it_later_not_to_answer_yes() {
    let dirs = Dirs::new(None, Some(r#"{"execute": "allow"}"#));
    let hooks =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}});
    std::fs::write(dirs.project.join(".agents/hooks.json"), hooks.to_string()).unwrap();
    std::fs::write(dirs.home.join("script.json"), "[]").unwrap();
    let store = dirs.home.join(".local/share/elelem/trusted.json");
    let flat = |screen: &str| screen.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = |screen: &str, from: &str| -> String {
        let flat = flat(screen);
        let start = flat.find(from).unwrap_or_else(|| panic!("no {from:?}:\n{screen}"));
        flat[start..].chars().take(400).collect()
    };
    let declined = format!("take it out of \"declined\" in {} to be asked again", store.display());

    let term = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain"]);
    term.wait_for("Trust this project's .agents/?");
    term.send("n\r");
    term.wait_for("not asked again");
    term.wait_until(|screen| flat(screen).contains("Project hooks in"));
    term.wait_until(|screen| flat(screen).contains("ignored: execute allow"));
    let screen = term.contents();
    for notice in ["Project hooks in", "ignored: execute allow"] {
        let said = said(&screen, notice);
        assert!(said.contains(&declined) && said.contains("--trust"), "{notice}: {said}");
    }
    assert!(!flat(&screen).contains("answer yes when asked"), "{screen}");
    assert!(!flat(&screen).contains("asks in this folder"), "{screen}");
    drop(term);

    // The next run does not ask, and says the same.
    let term = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain"]);
    term.wait_until(|screen| flat(screen).contains("Project hooks in") && flat(screen).contains("ignored: execute"));
    let screen = term.contents();
    assert!(!screen.contains("Trust this project"), "{screen}");
    assert!(said(&screen, "Project hooks in").contains(&declined), "{screen}");
    assert!(!flat(&screen).contains("answer yes when asked") && !flat(&screen).contains("asks in this folder"));
}
