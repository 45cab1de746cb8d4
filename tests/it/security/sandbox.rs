//! Issue 29 through the real binary (`ask --json` with a stub script, no `--allow`): by
//! default `execute`'s child runs in the kernel sandbox (Landlock, new user, mount and
//! network namespaces). It writes inside the project, at its top level too, but not outside
//! it, nor the project's `.agents/`, `.git/hooks/` and `.git/config` (whatever it tries:
//! creating, renaming, linking; see also `sandbox_tree.rs`); it cannot read `~/.ssh`, nor connect to a TCP port;
//! `~/.agents/permissions.json` may add writable directories, unreadable ones and the
//! network; `--sandbox off` opts out, and a call may ask to run outside (refused in `ask`).

use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};

pub(crate) struct Run {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Run {
    pub(crate) fn new() -> Self {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir_all(project.path().join("src")).unwrap();
        std::fs::create_dir_all(project.path().join(".agents")).unwrap();
        std::fs::create_dir_all(project.path().join(".git/hooks")).unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL\n").unwrap();
        Run { home, project }
    }

    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    pub(crate) fn project(&self) -> &Path {
        self.project.path()
    }

    /// Runs one `execute` of `command` with `args`; returns its result.
    pub(crate) fn execute(&self, args: &[&str], command: &str) -> Value {
        self.execute_with(args, json!({"command": command}))
    }

    /// Runs one `execute` call with these arguments; returns its result.
    pub(crate) fn execute_with(&self, args: &[&str], arguments: Value) -> Value {
        self.call(args, "execute", arguments)
    }

    /// Runs one call of `tool` with these arguments; returns its result.
    pub(crate) fn call(&self, args: &[&str], tool: &str, arguments: Value) -> Value {
        let steps = json!([
            {"events": [{"type": "doing", "id": "t1", "name": tool, "arguments": arguments}]},
            {"events": [{"type": "saying", "text": "done"}]}
        ]);
        let (lines, stderr) = self.ask(args, &steps);
        lines
            .iter()
            .find(|l| l["type"] == "result" && l["id"] == "t1")
            .map(|l| l["result"].clone())
            .unwrap_or_else(|| panic!("no result: {stderr}"))
    }

    /// Runs `ask --json` with `args` on these stub steps: its JSON lines and its stderr.
    pub(crate) fn ask(&self, args: &[&str], steps: &Value) -> (Vec<Value>, String) {
        let script = self.home().join("script.json");
        std::fs::write(&script, steps.to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_elelem"))
            .args(["-p", "stub", "ask", "--json"])
            .args(args)
            .arg("go")
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("ELELEM_STUB_SCRIPT", &script)
            .env_remove("ELELEM_SANDBOX")
            .env_remove("XDG_DATA_HOME")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let lines = String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        (lines, String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Whether this kernel has what the sandbox needs (Landlock ABI 4, Linux 6.7); without,
/// elelem asks as before and these tests have nothing to check.
pub(crate) fn supported() -> bool {
    // SAFETY: landlock_create_ruleset with the VERSION flag only returns a number.
    let abi = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
    if abi < 4 {
        eprintln!("skipped: Landlock ABI {abi} < 4 on this kernel");
    }
    abi >= 4
}

#[test]
fn a_command_writes_inside_the_project_without_approval() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&[], "touch src/inside.txt && touch inside.txt && mkdir -p target/debug && echo ok");
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(run.project().join("src/inside.txt").exists());
    assert!(run.project().join("inside.txt").exists(), "a new file at the project's top level");
    assert!(run.project().join("target/debug").is_dir(), "a new directory at the project's top level");
}

#[test]
fn a_command_cannot_write_outside_the_project() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&[], "touch ~/outside.txt");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.starts_with("blocked by the sandbox")), "{result}");
    assert!(!run.home().join("outside.txt").exists());
}

#[test]
fn a_command_cannot_write_agents_or_git_hooks() {
    if !supported() {
        return;
    }
    let run = Run::new();
    for command in ["echo '{}' > .agents/permissions.json", "echo evil > .git/hooks/pre-commit"] {
        let result = run.execute(&[], command);
        assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{command}: {result}");
    }
    assert!(!run.project().join(".agents/permissions.json").exists());
    assert!(!run.project().join(".git/hooks/pre-commit").exists());
    // A missing `.git/config` is not made by elelem: one the command creates is removed.
    let result = run.execute(&[], "echo x > .git/config");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.contains(".git/config")), "{result}");
    assert!(!run.project().join(".git/config").exists());
}

#[test]
fn a_command_cannot_read_ssh_keys() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&[], "cat ~/.ssh/id_rsa");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(!result.to_string().contains("PRIVATE-KEY-MATERIAL"), "{result}");
}

#[test]
fn a_command_cannot_connect_to_a_local_tcp_port() {
    if !supported() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let run = Run::new();
    let result = run.execute(&[], &format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
}

#[test]
fn sandbox_off_opts_out() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&["--sandbox", "off", "--allow", "execute"], "touch ~/outside.txt && cat ~/.ssh/id_rsa");
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(run.home().join("outside.txt").exists());
    assert!(result.to_string().contains("PRIVATE-KEY-MATERIAL"));
}

#[test]
fn without_the_sandbox_execute_still_needs_approval() {
    let run = Run::new();
    let result = run.execute(&["--sandbox", "off"], "touch src/inside.txt");
    assert!(result["error"].as_str().is_some_and(|e| e.contains("needs approval")), "{result}");
    assert!(!run.project().join("src/inside.txt").exists());
}

#[test]
fn an_ask_rule_the_user_wrote_still_asks() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::create_dir_all(run.home().join(".agents")).unwrap();
    std::fs::write(run.home().join(".agents/permissions.json"), r#"{"execute": "ask"}"#).unwrap();
    let result = run.execute(&[], "touch src/inside.txt");
    assert!(result["error"].as_str().is_some_and(|e| e.contains("needs approval")), "{result}");
    assert!(!run.project().join("src/inside.txt").exists());
}

/// Everything a command might try to get at `.agents/`, `.git/hooks/` and `.git/config`:
/// each attempt fails and nothing changes there.
#[test]
fn a_command_cannot_get_around_the_protected_paths() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::write(run.project().join(".git/config"), "[core]\n").unwrap();
    std::fs::write(run.project().join(".agents/keep.txt"), "kept\n").unwrap();
    let attacks = [
        "mv .agents gone && mkdir .agents && echo '{}' > .agents/permissions.json",
        "rm -rf .agents; mkdir -p .agents && echo '{}' > .agents/permissions.json",
        "ln -s .agents a && echo x > a/permissions.json",
        "ln -s .git/hooks h && echo evil > h/pre-commit",
        "mkdir x && echo '{}' > x/permissions.json && mv -T x .agents",
        "mv .git g && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
        "echo '[core] hooksPath = /tmp' > c && mv c .git/config",
        "cp .git/config c && echo '[core] fsmonitor = evil' >> c && mv -f c .git/config",
        "ln .git/config c && echo '[core] fsmonitor = evil' >> c",
        "git config --file .git/config core.hooksPath /tmp",
        "cd src && echo x > ../.agents/permissions.json",
        "echo x > \"$PWD/.agents/permissions.json\"",
        "umount .agents; echo x > .agents/permissions.json",
        "unshare -Um sh -c 'umount .agents; echo x > .agents/permissions.json'",
    ];
    for attack in attacks {
        let result = run.execute(&[], attack);
        assert!(result["exit_status"].as_i64().is_none_or(|s| s != 0), "{attack}: {result}");
        assert!(!run.project().join(".agents/permissions.json").exists(), "{attack}: {result}");
        assert!(!run.project().join(".git/hooks/pre-commit").exists(), "{attack}: {result}");
        assert_eq!(std::fs::read_to_string(run.project().join(".git/config")).unwrap(), "[core]\n", "{attack}");
        assert!(run.project().join(".agents/keep.txt").exists(), "{attack}: {result}");
        assert!(run.project().join(".git/hooks").is_dir(), "{attack}: {result}");
    }
    // The mounts were the command's own: elelem's view of the project is unchanged.
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mounts.contains(&*run.project().to_string_lossy()), "{mounts}");
}

/// A project without `.agents/`: a command may make one, but it is removed once the
/// command has ended, and the result says so (elelem writes nothing to the tree to seal).
#[test]
fn a_missing_agents_directory_cannot_be_created() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir(run.project().join(".agents")).unwrap();
    let result = run.execute(&[], "mkdir -p .agents && echo '{}' > .agents/permissions.json");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.starts_with("blocked by the sandbox")), "{result}");
    assert!(!run.project().join(".agents").exists());
}

#[test]
fn git_works_inside_the_sandbox() {
    if !supported() || Command::new("git").arg("--version").output().is_err() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir_all(run.project().join(".git")).unwrap();
    let init = Command::new("git").args(["init", "-q"]).current_dir(run.project()).status().unwrap();
    assert!(init.success());
    let result = run.execute(
        &[],
        "echo hi > new.txt && git add new.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline",
    );
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(result["content"].as_str().is_some_and(|c| c.contains("one")), "{result}");
}

#[test]
fn the_users_file_adds_writable_and_unreadable_directories() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let extra = run.home().join("cargo");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::create_dir_all(run.project().join("private")).unwrap();
    std::fs::write(run.project().join("private/token"), "PROJECT-SECRET\n").unwrap();
    std::fs::create_dir_all(run.home().join(".agents")).unwrap();
    std::fs::write(
        run.home().join(".agents/permissions.json"),
        json!({"sandbox": {"writable": ["~/cargo"]}, "paths": {"deny": [run.project().join("private")]}}).to_string(),
    )
    .unwrap();
    let result = run.execute(&[], "touch ~/cargo/ok && cat private/token");
    assert!(run.home().join("cargo/ok").exists(), "{result}");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(!result.to_string().contains("PROJECT-SECRET"), "{result}");
}

#[test]
fn the_users_file_may_turn_the_network_on() {
    if !supported() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let run = Run::new();
    std::fs::create_dir_all(run.home().join(".agents")).unwrap();
    std::fs::write(run.home().join(".agents/permissions.json"), r#"{"sandbox": {"network": true}}"#).unwrap();
    let result = run.execute(&[], &format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
    assert_eq!(result["exit_status"], 0, "{result}");
    // And the flag does the same.
    std::fs::remove_file(run.home().join(".agents/permissions.json")).unwrap();
    let result = run.execute(&["--sandbox-network"], &format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
    assert_eq!(result["exit_status"], 0, "{result}");
}

#[test]
fn the_users_file_may_set_the_mode() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::create_dir_all(run.home().join(".agents")).unwrap();
    std::fs::write(run.home().join(".agents/permissions.json"), r#"{"sandbox": {"mode": "read-only"}}"#).unwrap();
    let result = run.execute(&[], "touch src/inside.txt");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(!run.project().join("src/inside.txt").exists());
    // The command line wins over the file.
    let result = run.execute(&["--sandbox", "workspace-write"], "touch src/inside.txt");
    assert_eq!(result["exit_status"], 0, "{result}");
}

#[test]
fn running_outside_the_sandbox_is_refused_in_ask() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute_with(&[], json!({"command": "touch ~/outside.txt", "sandbox": false}));
    assert!(result["error"].as_str().is_some_and(|e| e.contains("outside the sandbox")), "{result}");
    assert!(!run.home().join("outside.txt").exists());
    let result = run.execute_with(&["--allow", "execute"], json!({"command": "touch ~/outside.txt", "sandbox": false}));
    assert!(result["error"].as_str().is_some_and(|e| e.contains("--sandbox off")), "{result}");
    assert!(!run.home().join("outside.txt").exists());
    let result = run.execute_with(
        &["--sandbox", "off", "--allow", "execute"],
        json!({"command": "touch ~/outside.txt", "sandbox": false}),
    );
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(run.home().join("outside.txt").exists());
}

/// A job a contained command leaves in the background ends with it (it would otherwise
/// keep the command's mounts while the protected files could be replaced outside).
#[test]
fn a_contained_commands_background_jobs_end_with_it() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let call = |id: &str, command: &str| json!({"type": "doing", "id": id, "name": "execute", "arguments": {"command": command}});
    let steps = json!([
        {"events": [call("t1", "(sleep 1; touch late.txt) > /dev/null 2>&1 & echo started")]},
        {"events": [call("t2", "sleep 2")]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let (lines, stderr) = run.ask(&[], &steps);
    assert!(lines.iter().any(|l| l["type"] == "reply"), "{stderr}");
    assert!(!run.project().join("late.txt").exists());
}
