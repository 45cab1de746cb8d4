//! Issue 29, the user's tree through the real binary: the sandbox writes nothing to the
//! project (no `.agents/`, `.git/hooks/` or `.git/config` made to be sealed); a protected
//! path that did not exist and that a contained command creates — directly, renamed into
//! place, as a symbolic or hard link, or by a background job still at it when the command
//! ends — is removed once the command's processes have all ended, and the result says so;
//! `.agents/` in every folder from the working directory up to the project root and the
//! `.git/` of a repository nested in the project are protected like the root's; `/sandbox`
//! in the line REPL shows the sandbox and switches its mode for the session; a timeout
//! kills a contained command's whole tree.

use crate::security::sandbox::{supported, Run};
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_sandbox_writes_nothing_to_the_project() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir(run.project().join(".agents")).unwrap();
    std::fs::remove_dir(run.project().join(".git/hooks")).unwrap();
    std::fs::write(run.project().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let result = run.execute(&[], "touch src/inside.txt");
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(result.get("sandbox").is_none(), "{result}");
    assert!(run.project().join("src/inside.txt").exists());
    for path in [".agents", ".git/hooks", ".git/config"] {
        assert!(std::fs::symlink_metadata(run.project().join(path)).is_err(), "{path} was made");
    }
}

/// Every way to put something at a missing protected path: it is gone once the command
/// has ended, and the result tells the model.
#[test]
fn a_missing_protected_path_a_command_creates_is_removed() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir(run.project().join(".agents")).unwrap();
    std::fs::remove_dir(run.project().join(".git/hooks")).unwrap();
    let outside = run.project().join("src/elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("kept.txt"), "kept\n").unwrap();
    let attacks = [
        ("mkdir .agents && echo '{}' > .agents/permissions.json", ".agents"),
        ("mkdir x && echo '{}' > x/permissions.json && mv x .agents", ".agents"),
        ("ln -s src/elsewhere .agents", ".agents"),
        // Linked from inside `.git/` (which is pinned: a link from elsewhere crosses a mount).
        ("echo '[core] hooksPath = /tmp' > .git/c && ln .git/c .git/config", ".git/config"),
        ("echo '[core] fsmonitor = evil' > c && mv c .git/config", ".git/config"),
        ("mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", ".git/hooks"),
        // A background job that keeps making it, racing the command's end.
        (
            "(while :; do mkdir -p .agents/commands 2>/dev/null; echo x > .agents/commands/evil.md; done) >/dev/null 2>&1 & \
             while [ ! -e .agents/commands/evil.md ]; do sleep 0.01; done; echo made",
            ".agents",
        ),
    ];
    for (attack, path) in attacks {
        let result = run.execute(&[], attack);
        let note = result["sandbox"].as_str().unwrap_or_default();
        assert!(note.starts_with("blocked by the sandbox") && note.contains(path), "{attack}: {result}");
        assert!(note.contains("removed"), "{attack}: {result}");
        for protected in [".agents", ".git/hooks", ".git/config"] {
            assert!(std::fs::symlink_metadata(run.project().join(protected)).is_err(), "{attack}: {protected} left");
        }
        assert_eq!(std::fs::read_to_string(outside.join("kept.txt")).unwrap(), "kept\n", "{attack}");
        let _ = std::fs::remove_file(run.project().join("c"));
    }
}

/// A command run in a folder below the project root: `.agents/` in that folder and every
/// one above it, and the `.git/` of the repository it is in, are protected.
#[test]
fn nested_agents_and_a_nested_repository_are_protected() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let sub = run.project().join("sub");
    for dir in ["sub/.agents", "sub/.git/hooks", "sub/deep/.agents", "sub/deep/src"] {
        std::fs::create_dir_all(run.project().join(dir)).unwrap();
    }
    std::fs::write(sub.join(".git/config"), "[core]\n").unwrap();
    let in_deep = |command: &str| run.execute_with(&[], json!({"command": command, "cwd": "sub/deep"}));
    for attack in [
        "echo '{}' > .agents/permissions.json",
        "echo '{}' > ../.agents/permissions.json",
        "echo '{}' > ../../.agents/permissions.json",
        "echo evil > ../.git/hooks/pre-commit",
        "echo '[core] hooksPath = /tmp' >> ../.git/config",
        "mv ../.agents ../gone",
        "mv ../.git ../git && mkdir -p ../.git/hooks && echo evil > ../.git/hooks/pre-commit",
    ] {
        let result = in_deep(attack);
        assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{attack}: {result}");
        for path in ["sub/deep/.agents/permissions.json", "sub/.agents/permissions.json", ".agents/permissions.json"] {
            assert!(!run.project().join(path).exists(), "{attack}: {path}");
        }
        assert!(!sub.join(".git/hooks/pre-commit").exists(), "{attack}");
        assert_eq!(std::fs::read_to_string(sub.join(".git/config")).unwrap(), "[core]\n", "{attack}");
        assert!(sub.join(".agents").is_dir(), "{attack}");
    }
    // A missing `.agents/` on the way is watched too; the rest of the folder is writable.
    std::fs::remove_dir(run.project().join("sub/deep/.agents")).unwrap();
    let result = in_deep("mkdir .agents && touch src/ok.txt");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.contains("sub/deep/.agents")), "{result}");
    assert!(!run.project().join("sub/deep/.agents").exists());
    assert!(run.project().join("sub/deep/src/ok.txt").exists());
}

/// `/sandbox` in the line REPL: the mode, where commands may write, the network, the
/// protected and unreadable paths; `/sandbox off` switches for the session, and the
/// permissions gate follows (execute is asked about again).
#[test]
fn the_sandbox_command_shows_and_switches_the_mode() {
    let run = Run::new();
    let script = run.home().join("script.json");
    std::fs::write(&script, "[]").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["-p", "stub", "chat", "--plain"])
        .current_dir(run.project())
        .env("HOME", run.home())
        .env("ELELEM_STUB_SCRIPT", &script)
        .env_remove("ELELEM_SANDBOX")
        .env_remove("XDG_DATA_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = "/sandbox\n/permissions\n/sandbox off\n/sandbox\n/permissions\n/sandbox loose\n";
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let all = format!("{stdout}{stderr}");
    let (before, after) = all.split_once("Sandbox: ").unwrap_or_else(|| panic!("no switch: {all}"));
    if supported() {
        assert!(before.contains("Sandbox for execute: workspace-write"), "{all}");
        assert!(before.contains("network:    off"), "{all}");
        assert!(before.contains("allow (contained by the sandbox)"), "{all}");
    }
    for words in ["writable:", "protected:", ".agents", "unreadable:", ".ssh"] {
        assert!(before.contains(words), "{words}: {all}");
    }
    assert!(after.starts_with("workspace-write → off for this session"), "{all}");
    assert!(after.contains("Sandbox for execute: off"), "{all}");
    assert!(!after.contains("contained by the sandbox"), "{all}");
    assert!(after.contains("unknown sandbox mode \"loose\""), "{all}");
}

/// A contained command that times out is killed with everything it started, a `setsid`
/// daemon and a double-forked orphan too (they live in its PID namespace).
#[test]
fn a_contained_commands_timeout_kills_its_whole_tree() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let mark = format!("ELELEM_TEST_MARK=sandbox_timeout_{}", std::process::id());
    let command = format!(
        "export {mark}; setsid sleep 1000 >/dev/null 2>&1 & (setsid sleep 1000 >/dev/null 2>&1 &); echo started; sleep 1000"
    );
    let result = run.execute_with(&[], json!({"command": command, "timeout_secs": 1}));
    assert_eq!(result["error"], "timed out after 1s; the command and its children were killed", "{result}");
    assert_eq!(result["content"], "started\n", "{result}");
    assert_eq!(crate::support::marked_processes(&mark), Vec::<String>::new());
}
