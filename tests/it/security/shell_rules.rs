//! Deny rules hold against rewordings, through the real binary under `--yolo`: every
//! rewording issue 9 found of `git push` (with a fake `git` on `PATH` that records a push)
//! and of `touch`, and a command the parser cannot read is refused when the tool has deny
//! rules.

use crate::support::permissions::*;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

/// One `execute` call per command, in one model response.
fn execute_each(commands: &[String]) -> Value {
    let calls: Vec<(String, &str, Value)> =
        commands.iter().enumerate().map(|(i, c)| (format!("t{i}"), "execute", json!({"command": c}))).collect();
    let calls: Vec<(&str, &str, Value)> =
        calls.iter().map(|(id, name, args)| (id.as_str(), *name, args.clone())).collect();
    doing(&calls)
}

fn errors(run: &Run) -> Vec<String> {
    run.results().iter().map(|r| r["result"]["error"].as_str().unwrap_or("ran").to_string()).collect()
}

#[test]
fn every_rewording_of_git_push_is_denied_under_yolo() {
    let dirs = Dirs::new(Some(r#"{"execute": {"deny": ["git push"]}}"#), None);
    let bin = dirs.root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let git = bin.join("git");
    let pushed = dirs.root.path().join("PUSHED");
    std::fs::write(&git, format!("#!/bin/sh\n[ \"$1\" = push ] && touch {}\nexit 0\n", pushed.display())).unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let commands: Vec<String> = [
        "git  push".to_string(),
        format!("{} push", git.display()),
        "command git push".into(),
        "env git push".into(),
        r"\git push".into(),
        "bash -c 'git push'".into(),
        r#"sh -c "git push origin""#.into(),
        "git status && git push".into(),
        "true; git push".into(),
        "(git push)".into(),
    ]
    .to_vec();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = run_ask(&dirs.project, &dirs.home, execute_each(&commands), &["--yolo"], &[("PATH", &path)]);
    assert_eq!(errors(&run), vec!["Permission denied: execute"; commands.len()], "{commands:?}");
    assert!(!pushed.exists());
    let control =
        run_ask(&dirs.project, &dirs.home, execute_each(&["git status".into()]), &["--yolo"], &[("PATH", &path)]);
    assert_eq!(errors(&control), vec!["ran"], "other commands still run");
}

#[test]
fn every_rewording_of_touch_is_denied_under_yolo() {
    let dirs = Dirs::new(Some(r#"{"execute": {"deny": ["touch"]}}"#), None);
    let commands: Vec<String> = [
        "touch  PWNED",
        "/usr/bin/touch PWNED",
        "command touch PWNED",
        "env touch PWNED",
        r"\touch PWNED",
        "bash -c 'touch PWNED'",
        r#"sh -c "touch PWNED x""#,
        "true && touch PWNED",
        "true; touch PWNED",
        "(touch PWNED)",
        "echo \"$(touch PWNED)\"",
        "echo `touch PWNED`",
        "FOO=1 nohup nice -n 1 touch PWNED",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let run = run_ask(&dirs.project, &dirs.home, execute_each(&commands), &["--yolo"], &[]);
    assert_eq!(errors(&run), vec!["Permission denied: execute"; commands.len()], "{commands:?}");
    assert!(!dirs.project.join("PWNED").exists());
    assert!(!dirs.project.join("x").exists());
}

#[test]
fn an_unreadable_command_is_refused_under_yolo_when_deny_rules_exist() {
    let dirs = Dirs::new(Some(r#"{"execute": {"deny": ["touch"]}}"#), None);
    let commands = vec!["CMD=touch; $CMD PWNED".to_string(), "echo 'unclosed".to_string(), "echo ok".to_string()];
    let run = run_ask(&dirs.project, &dirs.home, execute_each(&commands), &["--yolo"], &[]);
    let errors = errors(&run);
    assert!(errors[0].starts_with("Permission denied: execute: elelem cannot read this command"), "{errors:?}");
    assert!(errors[1].contains("not valid shell syntax"), "{errors:?}");
    assert_eq!(errors[2], "ran");
    assert!(!dirs.project.join("PWNED").exists());

    let no_rules = Dirs::new(None, None);
    let run = run_ask(&no_rules.project, &no_rules.home, execute_each(&commands[..1]), &["--yolo"], &[]);
    assert_eq!(run.results()[0]["result"]["ok"], true, "without deny rules --yolo runs it");
}

#[test]
fn an_allowed_command_runs_headless_only_when_every_part_is_allowed() {
    let dirs = Dirs::new(Some(r#"{"execute": {"allow": ["echo", "true"]}}"#), None);
    let commands = vec![
        "echo a && true | echo b".to_string(),
        "echo a; touch PWNED".to_string(),
        "echo a > out.txt".to_string(),
        "bash -c 'echo a'".to_string(),
    ];
    // Without the sandbox: contained, execute would need no approval.
    let run = run_ask(&dirs.project, &dirs.home, execute_each(&commands), &[], &[("ELELEM_SANDBOX", "off")]);
    let errors = errors(&run);
    assert_eq!(errors[0], "ran");
    assert!(errors[1].contains("needs approval") && errors[2].contains("needs approval"), "{errors:?}");
    assert_eq!(errors[3], "ran");
    assert!(!dirs.project.join("PWNED").exists() && !dirs.project.join("out.txt").exists());
}
