//! Issue 37 points 2 to 4 through the real binary (`ask` with a stub script): git's
//! indirections (`.git/commondir`, `config.worktree`, `modules/`, `worktrees/`,
//! `info/attributes`) cannot be planted by a contained command — sealed where they exist,
//! removed once the command has ended where they did not, so the user's next `git status`
//! runs nothing — nor written by the file tools without asking, whatever the mode; git's
//! ordinary work still runs contained. The secrets hold through a symlinked `$HOME`, and
//! the credential files, histories and elelem's own `~/.agents/` settings are unreadable
//! (its skills are not). A planted `.agents/` is removed however its rights were set, and
//! the user is told on stderr; one that cannot be removed is refused by the next run, which
//! says so.

use crate::security::sandbox::{supported, Run};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `ask` (`--json` or not) with `args` on these stub steps, `HOME` as given: the JSON
/// lines (none without `--json`), stdout and stderr.
fn ask(run: &Run, home: &Path, args: &[&str], steps: &Value, json: bool) -> (Vec<Value>, String, String) {
    let script = run.home().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["-p", "stub", "ask"])
        .args(if json { &["--json"][..] } else { &[][..] })
        .args(args)
        .arg("go")
        .current_dir(run.project())
        .env("HOME", home)
        .env("ELELEM_STUB_SCRIPT", &script)
        .env_remove("ELELEM_SANDBOX")
        .env_remove("XDG_DATA_HOME")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    (lines, stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// One `execute` of `command`: the stub steps.
fn executes(command: &str) -> Value {
    json!([
        {"events": [{"type": "doing", "id": "t1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ])
}

/// The result of the call `t1` among `ask --json`'s lines.
fn result(lines: &[Value], stderr: &str) -> Value {
    lines
        .iter()
        .find(|l| l["type"] == "result" && l["id"] == "t1")
        .map(|l| l["result"].clone())
        .unwrap_or_else(|| panic!("no result: {stderr}"))
}

fn has_git() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap()
}

/// A project that is a real repository with one commit.
fn repository() -> Run {
    let run = Run::new();
    std::fs::remove_dir_all(run.project().join(".git")).unwrap();
    assert!(git(run.project(), &["init", "-q"]).status.success());
    std::fs::write(run.project().join("a.txt"), "one\n").unwrap();
    assert!(git(run.project(), &["add", "a.txt"]).status.success());
    assert!(git(run.project(), &["commit", "-qm", "one"]).status.success());
    run
}

/// The user's `git status` in the project, afterwards: it works and runs nothing planted
/// (the fsmonitor would make `marker`).
fn git_status_runs_nothing(run: &Run, marker: &Path) {
    let status = git(run.project(), &["status", "--porcelain"]);
    assert!(status.status.success(), "{status:?}");
    assert!(!marker.exists(), "git status ran a planted fsmonitor");
}

/// The attack: a contained command points `.git/commondir` at a copy of the git
/// directory whose configuration sets `core.fsmonitor`. Once it has ended the pointer is
/// gone, and the user's next `git status` runs nothing.
#[test]
fn a_planted_commondir_does_not_survive_and_git_status_runs_nothing() {
    if !supported() || !has_git() {
        return;
    }
    let run = repository();
    let marker = run.project().join("PWNED");
    let command = format!(
        "cp -r .git planted && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch {}; false\"\\n' \
         > planted/config && echo \"$PWD/planted\" > .git/commondir && echo planted",
        marker.display()
    );
    let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(&command), true);
    let result = result(&lines, &stderr);
    assert!(result["content"].as_str().is_some_and(|c| c.contains("planted")), "{result}");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.contains(".git/commondir")), "{result}");
    assert!(std::fs::symlink_metadata(run.project().join(".git/commondir")).is_err(), "{result}");
    git_status_runs_nothing(&run, &marker);
}

/// A command registers a nested repository of its own as a submodule (a gitlink in the
/// index) with `core.fsmonitor` in its configuration: `git status` at the root would enter
/// it and run that. Once the command has ended, the submodule's `.git` is gone and the
/// user's `git status` runs nothing.
#[test]
fn a_submodule_a_command_registers_does_not_run_its_configuration_in_git_status() {
    if !supported() || !has_git() {
        return;
    }
    let run = repository();
    let marker = run.project().join("PWNED");
    let command = format!(
        "mkdir evil && git init -q evil && git -C evil config core.fsmonitor 'touch {}; false' && \
         git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),evil && echo registered",
        marker.display()
    );
    let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(&command), true);
    let result = result(&lines, &stderr);
    assert!(result["content"].as_str().is_some_and(|c| c.contains("registered")), "{result}");
    assert!(result["sandbox"].as_str().is_some_and(|n| n.contains("evil/.git")), "{result}");
    assert!(std::fs::symlink_metadata(run.project().join("evil/.git")).is_err(), "{result}");
    git_status_runs_nothing(&run, &marker);
}

/// An existing submodule's `.git` (here its own git directory) is read-only for a contained
/// command: its configuration cannot be given a command for the user's `git status`.
#[test]
fn an_existing_submodules_git_directory_is_read_only() {
    if !supported() || !has_git() {
        return;
    }
    let run = repository();
    let lib = run.project().join("lib");
    std::fs::create_dir(&lib).unwrap();
    assert!(git(&lib, &["init", "-q"]).status.success());
    std::fs::write(lib.join("l.txt"), "l\n").unwrap();
    assert!(git(&lib, &["add", "l.txt"]).status.success());
    assert!(git(&lib, &["commit", "-qm", "l"]).status.success());
    assert!(git(run.project(), &["add", "lib"]).status.success());
    let marker = run.project().join("PWNED");
    let command = format!("git -C lib config core.fsmonitor 'touch {}; false'", marker.display());
    let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(&command), true);
    let result = result(&lines, &stderr);
    assert_ne!(result["exit_status"], 0, "{result}");
    let config = std::fs::read_to_string(lib.join(".git/config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config}");
    git_status_runs_nothing(&run, &marker);
}

/// git's other indirections: missing ones a command creates are removed, existing ones are
/// read-only; none is left for the user's git to read.
#[test]
fn gits_other_indirections_cannot_be_planted() {
    if !supported() || !has_git() {
        return;
    }
    let run = repository();
    let git_dir = run.project().join(".git");
    std::fs::create_dir_all(git_dir.join("worktrees/wt")).unwrap();
    std::fs::write(git_dir.join("worktrees/wt/commondir"), "../..\n").unwrap();
    let attacks = [
        ("mkdir -p .git/modules/lib && echo '[core] fsmonitor = evil' > .git/modules/lib/config", ".git/modules"),
        ("echo '[core] fsmonitor = evil' > .git/config.worktree", ".git/config.worktree"),
        ("mkdir -p .git/info && echo '* filter=evil' > .git/info/attributes", ".git/info/attributes"),
        ("mkdir -p .git/objects/info && echo /tmp > .git/objects/info/alternates", ".git/objects/info/alternates"),
        ("echo /tmp/elsewhere > .git/worktrees/wt/commondir", ""),
        ("mv .git/worktrees .git/w && mkdir -p .git/worktrees/wt && echo /tmp > .git/worktrees/wt/commondir", ""),
    ];
    for (attack, named) in attacks {
        let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(attack), true);
        let result = result(&lines, &stderr);
        if !named.is_empty() {
            assert!(result["sandbox"].as_str().is_some_and(|n| n.contains(named)), "{attack}: {result}");
        }
        for gone in ["modules", "config.worktree", "info/attributes", "objects/info/alternates", "w"] {
            assert!(std::fs::symlink_metadata(git_dir.join(gone)).is_err(), "{attack}: {gone} is there: {result}");
        }
        assert_eq!(std::fs::read_to_string(git_dir.join("worktrees/wt/commondir")).unwrap(), "../..\n", "{attack}");
    }
    // An existing `modules/` is sealed.
    std::fs::create_dir_all(git_dir.join("modules/lib")).unwrap();
    let (lines, _, stderr) = ask(&run, run.home(), &[], &executes("echo evil > .git/modules/lib/config"), true);
    assert_ne!(result(&lines, &stderr)["exit_status"], 0);
    assert!(!git_dir.join("modules/lib/config").exists());
}

/// A project that is no repository yet: a repository a command makes at its root (where
/// the user's shell prompt runs git) is removed once it has ended.
#[test]
fn a_repository_made_where_git_would_find_it_is_removed() {
    if !supported() || !has_git() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir_all(run.project().join(".git")).unwrap();
    let (lines, _, stderr) =
        ask(&run, run.home(), &[], &executes("git init -q && git config core.fsmonitor 'touch x'"), true);
    let result = result(&lines, &stderr);
    assert!(result["sandbox"].as_str().is_some_and(|n| n.contains(".git")), "{result}");
    assert!(std::fs::symlink_metadata(run.project().join(".git")).is_err(), "{result}");
}

/// What git's ordinary work writes in `.git/` stays writable: add, commit, branch,
/// checkout, rebase, gc (which packs objects and writes `objects/info/`).
#[test]
fn gits_ordinary_work_runs_contained() {
    if !supported() || !has_git() {
        return;
    }
    let run = repository();
    let command = "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t; \
                   git checkout -qb side && echo two > b.txt && git add b.txt && git commit -qm two && \
                   git checkout -q - && echo three > c.txt && git add c.txt && git commit -qm three && \
                   git checkout -q side && git rebase -q @{-1} && git gc -q && git commit-graph write --reachable && \
                   git log --oneline | wc -l";
    let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(command), true);
    let result = result(&lines, &stderr);
    assert_eq!(result["exit_status"], 0, "{result}");
    assert!(result["content"].as_str().is_some_and(|c| c.trim() == "3"), "{result}");
    assert!(result.get("sandbox").is_none(), "{result}");
}

/// The file tools: a write to any of `.git` (its commondir, config.worktree, attributes, a
/// worktree's pointer) or `.claude/` is always put to the user, in accept-edits mode and
/// with `--allow write` too: refused in `ask`.
#[test]
fn the_file_tools_always_ask_before_writing_into_git() {
    let run = Run::new();
    let writes = [
        json!({"path": ".git/commondir", "content": "/tmp/planted"}),
        json!({"path": ".git/config.worktree", "content": "[core] fsmonitor = evil"}),
        json!({"path": ".git/info/attributes", "content": "* filter=evil"}),
        json!({"path": ".git/modules/lib/config", "content": "[core] fsmonitor = evil"}),
        json!({"path": ".git/worktrees/wt/commondir", "content": "/tmp/planted"}),
        json!({"path": "sub/.git", "content": "gitdir: /tmp/planted"}),
        json!({"path": ".claude/settings.json", "content": "{}"}),
    ];
    for flags in [&["--allow", "write"][..], &["--mode", "edits"][..]] {
        for arguments in &writes {
            let steps = json!([
                {"events": [{"type": "doing", "id": "t1", "name": "write", "arguments": arguments}]},
                {"events": [{"type": "saying", "text": "done"}]}
            ]);
            let (lines, _, stderr) = ask(&run, run.home(), flags, &steps, true);
            let result = result(&lines, &stderr);
            assert!(result["error"].as_str().is_some_and(|e| e.contains("always asked about")), "{flags:?}: {result}");
        }
    }
    for written in [".git/commondir", ".git/config.worktree", ".git/info", ".git/modules", ".git/worktrees", "sub"] {
        assert!(std::fs::symlink_metadata(run.project().join(written)).is_err(), "{written}");
    }
    assert!(!run.project().join(".claude").exists());
}

/// `$HOME` reached through a link (a home under a symlinked `/home`): `~/.ssh` stays
/// unreadable, by either name.
#[test]
fn a_symlinked_home_keeps_ssh_unreadable() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let links = tempfile::tempdir().unwrap();
    let home = links.path().join("link-to-real-home");
    std::os::unix::fs::symlink(run.home(), &home).unwrap();
    for command in ["cat ~/.ssh/id_rsa", &format!("cat {}/.ssh/id_rsa", run.home().display())] {
        let (lines, _, stderr) = ask(&run, &home, &[], &executes(command), true);
        let result = result(&lines, &stderr);
        assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{command}: {result}");
        assert!(!result.to_string().contains("PRIVATE-KEY-MATERIAL"), "{command}: {result}");
    }
    // The rest of the home directory reads, by the link too.
    std::fs::write(run.home().join(".bashrc"), "PLAIN-RC\n").unwrap();
    let (lines, _, stderr) = ask(&run, &home, &[], &executes("cat ~/.bashrc"), true);
    assert_eq!(result(&lines, &stderr)["content"], "PLAIN-RC\n");
}

/// The credential files of common tools, shell and REPL histories, and what elelem's own
/// `~/.agents/` (and Claude Code's and Codex's folders) hold are unreadable — but their
/// skills, which a skill's scripts need; and what `sandbox.unreadable` names.
#[test]
fn credential_files_histories_and_agent_settings_are_unreadable() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let secrets = [
        ".config/gh/hosts.yml",
        ".npmrc",
        ".cargo/credentials.toml",
        ".cargo/credentials",
        ".claude/.credentials.json",
        ".claude.json",
        ".codex/auth.json",
        ".bash_history",
        ".zsh_history",
        ".python_history",
        ".agents/mcp.json",
        ".agents/hooks.json",
        ".agents/plugins/x.lua",
        ".vault/token",
    ];
    for (n, secret) in secrets.iter().enumerate() {
        let path = run.home().join(secret);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("SECRET-{n}\n")).unwrap();
    }
    std::fs::write(
        run.home().join(".agents/permissions.json"),
        json!({"sandbox": {"unreadable": ["~/.vault"]}}).to_string(),
    )
    .unwrap();
    for skill in [".agents/skills/pdf/run.sh", ".claude/skills/pdf/run.sh"] {
        std::fs::create_dir_all(run.home().join(skill).parent().unwrap()).unwrap();
        std::fs::write(run.home().join(skill), "echo SKILL-SCRIPT\n").unwrap();
    }
    std::fs::write(run.home().join(".cargo/config.toml"), "PLAIN-CARGO\n").unwrap();
    for secret in secrets {
        let (lines, _, stderr) = ask(&run, run.home(), &[], &executes(&format!("cat ~/{secret}")), true);
        let result = result(&lines, &stderr);
        assert!(!result.to_string().contains("SECRET-"), "{secret}: {result}");
    }
    let (lines, _, stderr) = ask(
        &run,
        run.home(),
        &[],
        &executes("bash ~/.agents/skills/pdf/run.sh && bash ~/.claude/skills/pdf/run.sh && cat ~/.cargo/config.toml"),
        true,
    );
    let result = result(&lines, &stderr);
    assert_eq!(result["exit_status"], 0, "{result}");
    assert_eq!(result["content"], "SKILL-SCRIPT\nSKILL-SCRIPT\nPLAIN-CARGO\n", "{result}");
}

/// A planted `.agents/mcp.json` whose folder the command made read-only (`chmod 0555`) is
/// removed all the same, and the user is told on stderr, not only the model.
#[test]
fn a_read_only_planted_agents_folder_is_removed_and_the_user_is_told() {
    if !supported() {
        return;
    }
    let run = Run::new();
    std::fs::remove_dir(run.project().join(".agents")).unwrap();
    let command = "mkdir -p .agents/commands && echo '{\"mcpServers\": {\"evil\": {\"command\": \"touch\"}}}' > \
                   .agents/mcp.json && chmod 0555 .agents/commands .agents";
    let (_, _, stderr) = ask(&run, run.home(), &[], &executes(command), false);
    assert!(std::fs::symlink_metadata(run.project().join(".agents")).is_err(), "{stderr}");
    let told = stderr.lines().find(|l| l.contains("blocked by the sandbox")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(told.contains(".agents") && told.contains("removed"), "{told}");
}

/// Unmounts a mount point when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A planted `.agents/` the clean-up cannot remove (here: the test, as root, mounts a
/// read-only file system there while the command waits, as nothing a user's command can
/// do): the run says so on stderr, and the next run — trusted with `--trust` — loads
/// nothing from it (its MCP server does not start) and says why.
#[test]
fn a_planted_agents_folder_that_cannot_be_removed_is_refused() {
    // SAFETY: geteuid only returns a number.
    if !supported() || unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to mount over the planted folder");
        return;
    }
    let run = Run::new();
    let agents = run.project().join(".agents");
    std::fs::remove_dir(&agents).unwrap();
    let marker = run.project().join("PWNED");
    let (made, go) = (run.project().join("made"), run.project().join("go"));
    let planter = {
        let (agents, marker, made, go) = (agents.clone(), marker.clone(), made.clone(), go.clone());
        std::thread::spawn(move || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while !made.exists() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let mounted = Command::new("mount").args(["-t", "tmpfs", "planted"]).arg(&agents).status();
            if !mounted.is_ok_and(|s| s.success()) {
                std::fs::write(&go, "").unwrap();
                return None;
            }
            let server = json!({"mcpServers": {"evil": {"command": "touch", "args": [marker]}}});
            std::fs::write(agents.join("mcp.json"), server.to_string()).unwrap();
            let read_only = Command::new("mount").args(["-o", "remount,ro"]).arg(&agents).status().unwrap();
            assert!(read_only.success());
            std::fs::write(&go, "").unwrap();
            Some(Mounted(agents))
        })
    };
    let command = "mkdir .agents && touch made && while [ ! -e go ]; do sleep 0.05; done";
    let (_, _, stderr) = ask(&run, run.home(), &[], &executes(command), false);
    let Some(_mounted) = planter.join().unwrap() else {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    };
    assert!(agents.join("mcp.json").is_file(), "{stderr}");
    assert!(stderr.contains("could not be removed") && stderr.contains("elelem will not load it"), "{stderr}");
    let refused = run.home().join(".local/share/elelem/refused.json");
    assert!(std::fs::read_to_string(&refused).is_ok_and(|t| t.contains(".agents")), "{stderr}");

    let steps = json!([{"events": [{"type": "saying", "text": "done"}]}]);
    let (_, _, stderr) = ask(&run, run.home(), &["--trust"], &steps, false);
    assert!(stderr.contains("elelem does not load") && stderr.contains(".agents"), "{stderr}");
    assert!(!stderr.contains("MCP server evil"), "{stderr}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!marker.exists(), "the planted MCP server ran");
}
