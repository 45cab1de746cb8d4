//! Issue 29 through the real binary (`ask --json` with a stub script): `execute`'s child
//! runs in the kernel sandbox (Landlock + a new network namespace). It writes inside the
//! project but not outside it, nor the project's `.agents/` and `.git/hooks/`; it cannot
//! read `~/.ssh`, nor connect to a TCP port; `--sandbox off` opts out.

use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};

struct Run {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Run {
    fn new() -> Self {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir_all(project.path().join("src")).unwrap();
        std::fs::create_dir_all(project.path().join(".agents")).unwrap();
        std::fs::create_dir_all(project.path().join(".git/hooks")).unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL\n").unwrap();
        Run { home, project }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }

    fn project(&self) -> &Path {
        self.project.path()
    }

    /// Runs one `execute` of `command` with `args`; returns its result.
    fn execute(&self, args: &[&str], command: &str) -> Value {
        let script = self.home().join("script.json");
        let steps = json!([
            {"events": [{"type": "doing", "id": "t1", "name": "execute", "arguments": {"command": command}}]},
            {"events": [{"type": "saying", "text": "done"}]}
        ]);
        std::fs::write(&script, steps.to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_elelem"))
            .args(["-p", "stub", "ask", "--json"])
            .args(args)
            .arg("go")
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("ELELEM_STUB_SCRIPT", &script)
            // Opt-in for now (the default is off until a contained command can create
            // files at the project's top level).
            .env("ELELEM_SANDBOX", "workspace-write")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let lines: Vec<Value> =
            String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        lines
            .iter()
            .find(|l| l["type"] == "result" && l["id"] == "t1")
            .map(|l| l["result"].clone())
            .unwrap_or_else(|| panic!("no result: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

#[test]
fn a_command_writes_inside_the_project_without_approval() {
    let run = Run::new();
    let result = run.execute(&[], "touch src/inside.txt && echo ok");
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(run.project().join("src/inside.txt").exists());
}

#[test]
fn a_command_cannot_write_outside_the_project() {
    let run = Run::new();
    let result = run.execute(&[], "touch ~/outside.txt");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.starts_with("blocked by the sandbox")), "{result}");
    assert!(!run.home().join("outside.txt").exists());
}

#[test]
fn a_command_cannot_write_agents_or_git_hooks() {
    let run = Run::new();
    for command in ["echo '{}' > .agents/permissions.json", "echo evil > .git/hooks/pre-commit", "echo x > .git/config"]
    {
        let result = run.execute(&[], command);
        assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{command}: {result}");
    }
    assert!(!run.project().join(".agents/permissions.json").exists());
    assert!(!run.project().join(".git/hooks/pre-commit").exists());
    assert!(!run.project().join(".git/config").exists());
}

#[test]
fn a_command_cannot_read_ssh_keys() {
    let run = Run::new();
    let result = run.execute(&[], "cat ~/.ssh/id_rsa");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    assert!(!result.to_string().contains("PRIVATE-KEY-MATERIAL"), "{result}");
}

#[test]
fn a_command_cannot_connect_to_a_local_tcp_port() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let run = Run::new();
    let result = run.execute(&[], &format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
}

#[test]
fn sandbox_off_opts_out() {
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
    let run = Run::new();
    std::fs::create_dir_all(run.home().join(".agents")).unwrap();
    std::fs::write(run.home().join(".agents/permissions.json"), r#"{"execute": "ask"}"#).unwrap();
    let result = run.execute(&[], "touch src/inside.txt");
    assert!(result["error"].as_str().is_some_and(|e| e.contains("needs approval")), "{result}");
    assert!(!run.project().join("src/inside.txt").exists());
}
