//! Issue 38 points 2 and 15 through the real binary: a command the sandbox refused says so
//! on its row (`blocked by the sandbox · /sandbox`: the TUI's conversation and tool log, the
//! line REPL's and `ask`'s `x` line), and the note to the model names the rule — the network
//! being off, decided from the sandbox's rule and not from the failure (with the network on,
//! the same failure is not the sandbox's); `/sandbox` lists only where a contained command
//! can write, and a contained command's temp directory (`$TMPDIR`) is this run's own,
//! outside the project, writable, and gone when elelem exits.

use crate::security::sandbox::{supported, Run};
use crate::support::home::Tree;
use crate::tui::pty::Tui;
use crate::tui::screens::{app, call, frame, text};
use elelem::agent::output::{AgentEvent, TurnEnd};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A stub script: one `execute` of `command`, then a reply.
fn executes(command: &str) -> Value {
    json!([
        {"events": [{"type": "doing", "id": "t1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "DONE-REPLY"}]}
    ])
}

/// What a resolver says when a name lookup fails: the command fails with it wherever it
/// runs (this machine has no outside network at all), so only the sandbox's network rule
/// can tell the two runs apart.
const LOOKUP: &str = "echo 'curl: (6) Could not resolve host: example.invalid' >&2; exit 6";

#[test]
fn a_refused_touch_outside_the_project_is_tagged_in_the_tui() {
    if !supported() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let home_dir = home.path().to_string_lossy().into_owned();
    let exe = Path::new(env!("CARGO_BIN_EXE_elelem"));
    let env = [("HOME", home_dir.as_str()), ("ELELEM_SANDBOX", "workspace-write")];
    let mut tui = Tui::launch(exe, project, executes("touch ~/outside.txt"), 40, 120, &env, &[]);
    tui.wait_for("Ask elelem");
    tui.send("make a file\r");
    tui.wait_for("DONE-REPLY");
    let screen = tui.contents();
    assert!(tagged(&screen), "{screen}");
    // The tool log's row says it too.
    assert!(screen.lines().any(|l| l.contains("sandbox · exit 1")), "{screen}");
    assert!(!home.path().join("outside.txt").exists());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn the_line_repl_and_ask_tag_the_x_line() {
    if !supported() {
        return;
    }
    let tree = Tree::with(&["proj", "home"]);
    let out = tree.run("proj", &["chat", "--plain"], &executes("touch ~/outside.txt"), "make a file\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().find(|l| l.starts_with("x #1 execute")).unwrap_or_default();
    assert_eq!(row, "x #1 execute touch ~/outside.txt · exit 1 · blocked by the sandbox · /sandbox", "{stdout}");
    let out = tree.run("proj", &["ask", "make a file"], &executes("touch ~/outside.txt"), "", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("· exit 1 · blocked by the sandbox · /sandbox"), "{stderr}");
    // A command that fails on its own is not tagged.
    let out = tree.run("proj", &["chat", "--plain"], &executes("ls missing-file"), "look\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let row = stdout.lines().find(|l| l.starts_with("x #1 execute")).unwrap_or_default();
    assert!(row.ends_with("· exit 2"), "{stdout}");
    assert!(!tree.path("home/outside.txt").exists());
}

#[test]
fn a_refused_write_tells_the_model_where_it_may_write() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&[], "touch ~/outside.txt");
    assert_eq!(result["sandbox_refused"], "write", "{result}");
    let note = result["sandbox"].as_str().unwrap_or_default();
    let outside = run.home().canonicalize().unwrap().join("outside.txt");
    assert!(note.starts_with("blocked by the sandbox"), "{note}");
    assert!(note.contains(&format!("{} is outside where a contained command may write", outside.display())), "{note}");
    assert!(note.contains("$TMPDIR") && note.contains("\"sandbox\": false"), "{note}");
}

#[test]
fn a_failed_name_lookup_is_explained_to_the_model_when_the_network_is_off() {
    if !supported() {
        return;
    }
    let run = Run::new();
    let result = run.execute(&[], LOOKUP);
    assert_eq!(result["sandbox_refused"], "network", "{result}");
    let note = result["sandbox"].as_str().unwrap_or_default();
    assert!(note.contains("network is off in the sandbox") && note.contains("\"sandbox\": false"), "{note}");
    // A real lookup, where the machine has the tools.
    if std::process::Command::new("python3").arg("--version").output().is_ok() {
        let result = run.execute(&[], "python3 -c \"import socket; socket.getaddrinfo('example.com', 80)\"");
        assert_eq!(result["sandbox_refused"], "network", "{result}");
    }
    // With the network on, the same failure is not the sandbox's.
    let result = run.execute(&["--sandbox-network"], LOOKUP);
    assert_eq!(result["exit_status"], 6, "{result}");
    assert!(result.get("sandbox_refused").is_none() && result.get("sandbox").is_none(), "{result}");
}

/// The conversation's rows (the left pane) joined as one line, so that a wrapped row reads
/// as it was written.
fn joined(screen: &str) -> String {
    let title = screen.lines().find(|l| l.contains("┌ conversation")).unwrap_or_default();
    let right = title.chars().skip(1).position(|c| c == '┌').map_or(usize::MAX, |i| i + 1);
    let rows: Vec<String> = screen
        .lines()
        .map(|l| {
            l.chars().take(right).collect::<String>().trim_matches(|c: char| c == '│' || c.is_whitespace()).to_string()
        })
        .collect();
    rows.join(" ")
}

/// Whether the refused `touch ~/outside.txt`'s row carries the tag: at its end, or on the
/// row under it when it does not fit.
fn tagged(screen: &str) -> bool {
    let rows = joined(screen);
    let row = "x #1 execute touch ~/outside.txt · exit 1";
    [" · ", " "].iter().any(|between| rows.contains(&format!("{row}{between}blocked by the sandbox · /sandbox")))
}

/// The places `/sandbox` lists as writable, each as the line REPL printed it.
fn listed_writable(stdout: &str) -> Vec<String> {
    let line = stdout.lines().find(|l| l.trim_start().starts_with("writable:")).unwrap_or_else(|| panic!("{stdout}"));
    line.trim_start().trim_start_matches("writable:").split(", ").map(|p| p.trim().to_string()).collect()
}

#[test]
fn slash_sandbox_lists_only_what_a_contained_command_can_write() {
    if !supported() {
        return;
    }
    // The home in the temp directory (as here): the temp directory is split around it, and
    // nothing new can be made in it itself.
    let tree = Tree::with(&["proj", "home"]);
    let temp = std::env::temp_dir().canonicalize().unwrap();
    assert!(tree.path("home").canonicalize().unwrap().starts_with(&temp), "the test needs the home in the temp dir");
    let probe = "touch \"$TMPDIR/probe\" && echo \"TMPDIR=$TMPDIR\"; touch \"$(dirname \"$TMPDIR\")/elelem-new-entry\"";
    let out = tree.run("proj", &["chat", "--plain"], &executes(probe), "/sandbox\nprobe the temp dir\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let listed = listed_writable(&stdout);
    assert!(!listed.iter().any(|p| Path::new(p) == temp), "{temp:?} is not writable, yet listed: {stdout}");
    let project = tree.path("proj").canonicalize().unwrap();
    assert_eq!(listed.first().map(PathBuf::from), Some(project.clone()), "{stdout}");
    // This run's temp directory, outside the project, is listed, and a contained command of
    // the same run writes there.
    let own = listed.iter().find_map(|p| p.strip_suffix(" ($TMPDIR)")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(!Path::new(own).starts_with(&project), "{stdout}");
    assert!(stdout.contains(&format!("TMPDIR={own}")), "{stdout}");
    assert!(!temp.join("elelem-new-entry").exists(), "a new entry in {temp:?}: {stdout}");
}

#[test]
fn a_contained_python_gets_a_private_temp_directory_outside_the_project() {
    if !supported() || std::process::Command::new("python3").arg("--version").output().is_err() {
        return;
    }
    let run = Run::new();
    let script = "import tempfile, os\n\
                  d = tempfile.gettempdir()\n\
                  f = tempfile.NamedTemporaryFile(delete=False)\n\
                  f.write(b'x'); f.close()\n\
                  print(d); print(f.name); print(oct(os.stat(d).st_mode & 0o777))";
    let result = run.execute(&[], &format!("python3 -c \"{script}\" && echo \"TMPDIR=$TMPDIR\""));
    assert_eq!(result["exit_status"], 0, "{result}");
    let content = result["content"].as_str().unwrap_or_default();
    let lines: Vec<&str> = content.lines().collect();
    let (dir, file) = (PathBuf::from(lines[0]), PathBuf::from(lines[1]));
    let project = run.project().canonicalize().unwrap();
    assert!(!dir.starts_with(&project), "the temp directory lies in the project: {content}");
    assert!(file.starts_with(&dir), "{content}");
    assert_eq!(lines[2], "0o700", "{content}");
    assert_eq!(lines[3], format!("TMPDIR={}", dir.display()), "{content}");
    let left: Vec<_> = std::fs::read_dir(&project).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(!left.iter().any(|n| n.to_string_lossy().starts_with("tmp")), "temp files in the project: {left:?}");
    // elelem removed it on its way out.
    assert!(!dir.exists(), "{dir:?} outlived the run");
}

/// The tag on a refused command's row, at both sizes.
fn refused_turn() -> elelem::tui::app::App {
    let mut app = app();
    let clock = elelem::tui::runtime::clock::ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let touch = call("t1", "execute", json!({"command": "touch ~/outside.txt"}));
    let events = vec![
        AgentEvent::TurnStarted { prompt: "make a file in my home".into() },
        AgentEvent::ToolStarted { call: touch.clone(), summary: "touch ~/outside.txt".into() },
        AgentEvent::ToolFinished {
            call: touch,
            result: json!({
                "exit_status": 1,
                "content": "touch: cannot touch '/home/user/outside.txt': Permission denied\n",
                "sandbox": "blocked by the sandbox: /home/user/outside.txt is outside where a contained command may write",
                "sandbox_refused": "write",
                "ok": true
            })
            .into(),
        },
        AgentEvent::saying("The sandbox refused it."),
        AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done },
    ];
    for event in events {
        if matches!(event, AgentEvent::ToolFinished { .. }) {
            clock.advance(std::time::Duration::from_millis(300));
        }
        app.handle_agent(event);
    }
    app
}

#[test]
fn the_sandbox_tag_80x24() {
    let screen = text(&frame(&mut refused_turn(), 80, 24));
    assert!(tagged(&screen), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn the_sandbox_tag_120x40() {
    let screen = text(&frame(&mut refused_turn(), 120, 40));
    assert!(tagged(&screen), "{screen}");
    insta::assert_snapshot!(screen);
}
