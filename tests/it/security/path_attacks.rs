//! Attacks on how paths are resolved and opened (issue 26): a project directory named `~`
//! whose links lead into `~/.ssh`, a file or directory swapped for a symlink between the
//! permission check and the open, and the approval question naming the file really
//! opened.

use crate::support::permissions::*;
use elelem::agent::input::Approval;
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::Path;

fn error_of(result: &Value) -> String {
    result["result"]["error"].as_str().unwrap_or("ran").to_string()
}

/// A project shipping `~/notes -> $HOME/.ssh`, a home with a key and a rule denying `~/.ssh`.
fn tilde_project() -> Dirs {
    let dirs = Dirs::new(Some(r#"{"paths": {"deny": ["~/.ssh"]}}"#), None);
    std::fs::create_dir_all(dirs.home.join(".ssh")).unwrap();
    std::fs::write(dirs.home.join(".ssh/id_rsa"), "SECRET KEY\n").unwrap();
    std::fs::create_dir_all(dirs.project.join("~")).unwrap();
    symlink(dirs.home.join(".ssh"), dirs.project.join("~/notes")).unwrap();
    dirs
}

#[test]
fn a_tilde_directory_in_the_project_does_not_lead_past_a_deny_rule() {
    let dirs = tilde_project();
    let script = doing(&[
        ("t1", "read", json!({"path": "~/notes/id_rsa"})),
        ("t2", "write", json!({"path": "~/notes/authorized_keys", "content": "ssh-ed25519 ATTACKER\n"})),
    ]);
    let run = run_ask(&dirs.project, &dirs.home, script, &["--yolo"], &[]);
    let results = run.results();
    assert_eq!(results.len(), 2, "{:?} {}", run.events, run.stderr);
    let read = results[0].to_string();
    assert!(!read.contains("SECRET"), "the key was read through ./~/notes: {read}");
    assert!(error_of(&results[0]).contains("notes/id_rsa"), "{read}");
    assert!(!dirs.home.join(".ssh/authorized_keys").exists(), "the write landed in ~/.ssh");
    assert_eq!(
        std::fs::read_to_string(dirs.home.join("notes/authorized_keys")).unwrap(),
        "ssh-ed25519 ATTACKER\n",
        "~ is home for the tool as for the gate"
    );
}

#[test]
fn the_project_tilde_directory_is_reached_as_dot_slash_tilde_and_checked_as_such() {
    let dirs = tilde_project();
    let script = doing(&[("t1", "read", json!({"path": "./~/notes/id_rsa"}))]);
    let run = run_ask(&dirs.project, &dirs.home, script, &["--yolo"], &[]);
    let error = error_of(&run.results()[0]);
    assert!(error.ends_with(".ssh/id_rsa: a paths rule denies it"), "{error}");
}

/// A session whose second before hook (after the permissions gate) runs `swap`: the file
/// system changing between the check and the open.
fn session_swapping(dirs: &Dirs, answers: std::sync::Arc<Answers>, swap: fn(&Path)) -> elelem::agent::Session {
    let mut session = dirs.session(interactive(), answers).unwrap();
    let project = dirs.project.clone();
    session.toolbox_mut().before(None, move |_call| {
        let project = project.clone();
        async move {
            swap(&project);
            Ok(())
        }
    });
    session
}

fn outside_secret(dirs: &Dirs) -> std::path::PathBuf {
    let outside = dirs.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "OUTSIDE\n").unwrap();
    outside
}

#[tokio::test]
async fn a_file_swapped_for_a_symlink_after_the_check_is_not_followed() {
    let dirs = Dirs::new(Some(r#"{"write": "allow", "read": "allow"}"#), None);
    let outside = outside_secret(&dirs);
    std::fs::write(dirs.project.join("a.txt"), "inside\n").unwrap();
    let answers = Answers::new(&[]);
    let mut session = session_swapping(&dirs, answers.clone(), |project| {
        let outside = project.parent().unwrap().join("outside/secret");
        let _ = std::fs::remove_file(project.join("a.txt"));
        let _ = symlink(outside, project.join("a.txt"));
    });
    let read = call(&mut session, "read", json!({"path": dirs.file("a.txt")})).await;
    assert!(!read.to_string().contains("OUTSIDE"), "{read}");
    assert!(read["error"].as_str().unwrap().contains("a.txt is a symlink that was not there"), "{read}");

    std::fs::remove_file(dirs.project.join("a.txt")).unwrap();
    std::fs::write(dirs.project.join("a.txt"), "inside\n").unwrap();
    let write = call(&mut session, "write", json!({"path": dirs.file("a.txt"), "content": "pwned\n"})).await;
    assert_eq!(write["ok"], true, "the link is replaced, not written through: {write}");
    assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "OUTSIDE\n");
    assert!(std::fs::symlink_metadata(dirs.project.join("a.txt")).unwrap().is_file());
    assert!(answers.asked().is_empty(), "inside the project, allowed: nobody was asked");
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_after_the_check_is_not_followed() {
    let dirs = Dirs::new(Some(r#"{"write": "allow", "read": "allow", "edit": "allow"}"#), None);
    let outside = outside_secret(&dirs);
    std::fs::create_dir_all(dirs.project.join("sub")).unwrap();
    std::fs::write(dirs.project.join("sub/secret"), "inside\n").unwrap();
    let mut session = session_swapping(&dirs, Answers::new(&[]), |project| {
        let outside = project.parent().unwrap().join("outside");
        let _ = std::fs::remove_dir_all(project.join("sub"));
        let _ = symlink(outside, project.join("sub"));
    });
    let path = dirs.file("sub/secret");
    let restore = || {
        std::fs::remove_file(dirs.project.join("sub")).unwrap();
        std::fs::create_dir_all(dirs.project.join("sub")).unwrap();
        std::fs::write(dirs.project.join("sub/secret"), "inside\n").unwrap();
    };
    let read = call(&mut session, "read", json!({"path": path})).await;
    assert!(read["error"].as_str().unwrap().contains("sub is a symlink that was not there"), "{read}");
    restore();
    let write = call(&mut session, "write", json!({"path": path, "content": "pwned\n"})).await;
    assert!(write["error"].as_str().unwrap().contains("sub is a symlink that was not there"), "{write}");
    restore();
    let edit = call(&mut session, "edit", json!({"path": path, "old": "OUTSIDE", "new": "pwned"})).await;
    assert_eq!(edit["ok"], false, "{edit}");
    assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "OUTSIDE\n");
}

#[tokio::test]
async fn the_approval_question_names_the_file_a_link_leads_to() {
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.project.join("real.txt"), "old\n").unwrap();
    symlink(dirs.project.join("real.txt"), dirs.project.join("link.txt")).unwrap();
    let answers = Answers::new(&[Approval::Yes]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    let link = dirs.file("link.txt");
    let result = call(&mut session, "write", json!({"path": link, "content": "new\n"})).await;
    assert_eq!(result["ok"], true, "{result}");
    let real = std::fs::canonicalize(dirs.project.join("real.txt")).unwrap();
    let text = &answers.asked()[0].preview.text;
    assert!(text.starts_with(&format!("{link} leads to {}\n", real.display())), "{text}");
    assert!(text.contains("-old\n+new\n"), "the diff is of the file written: {text}");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
}

#[test]
fn walking_tools_read_a_tilde_as_home_too() {
    let dirs = tilde_project();
    std::fs::create_dir_all(dirs.home.join("notes")).unwrap();
    std::fs::write(dirs.home.join("notes/todo.md"), "buy milk\n").unwrap();
    let script = doing(&[
        ("t1", "grep", json!({"pattern": "KEY", "path": "~/notes"})),
        ("t2", "list", json!({"path": "~/notes"})),
        ("t3", "glob", json!({"pattern": "*", "path": "~/notes"})),
    ]);
    let run = run_ask(&dirs.project, &dirs.home, script, &["--yolo"], &[]);
    let results = run.results();
    assert_eq!(results.len(), 3, "{:?}", run.events);
    for result in &results {
        let text = result.to_string();
        assert!(!text.contains("SECRET") && !text.contains("id_rsa"), "walked ./~/notes: {text}");
    }
    // The three read-only calls run together: their results come in the order they end.
    let listed = results.iter().find(|result| result["id"] == "t2").map(|result| result.to_string());
    assert!(listed.as_deref().is_some_and(|text| text.contains("todo.md")), "{results:?}");
}

/// `elelem chat --plain ARGS` in the project with `stdin` (a model that answers "ok"),
/// killed after 20 s; stdout and stderr together.
fn chat(dirs: &Dirs, args: &[&str], stdin: &str) -> String {
    use std::io::Write as _;
    let script = dirs.home.join("chat-script.json");
    std::fs::write(&script, json!([{"events": [{"type": "saying", "text": "ok"}]}]).to_string()).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain"])
        .args(args)
        .current_dir(&dirs.project)
        .env("HOME", &dirs.home)
        .env("XDG_DATA_HOME", dirs.home.join("data"))
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "chat hung");
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_mention_outside_the_project_is_asked_about_like_a_tools_path() {
    let dirs = Dirs::new(None, None);
    std::fs::write(dirs.root.path().join("outside.txt"), "OUTSIDE TEXT\n").unwrap();
    // Piped, nobody can be asked: refused as in `ask`.
    let refused = chat(&dirs, &[], "look at @../outside.txt\n/context 2\n");
    assert!(!refused.contains("Allow mention?") && refused.contains("is outside the project"), "{refused}");
    assert!(refused.contains("@../outside.txt is not attached: Permission denied: mention"), "{refused}");
    assert!(!refused.contains("OUTSIDE TEXT"), "{refused}");

    // On a terminal, asked like a tool's path.
    std::fs::write(dirs.home.join("script.json"), json!([{"events": [{"type": "saying", "text": "ok"}]}]).to_string())
        .unwrap();
    let term = Terminal::start(&dirs.project, &dirs.home, &["chat", "--plain", "--trust"]);
    term.wait_for("> ");
    term.send("look at @../outside.txt\r");
    term.wait_for("Allow mention? [y/N/a]");
    assert!(term.contents().contains("is outside the project"), "{}", term.contents());
    term.send("y\r");
    term.wait_for("ok");
    term.send("/context 2\r");
    term.wait_for("OUTSIDE TEXT");
}

#[test]
fn a_mention_under_a_denied_directory_is_refused_even_under_yolo() {
    let dirs = tilde_project();
    let text = chat(&dirs, &["--yolo"], "what is @~/.ssh/id_rsa\n/context 2\n");
    assert!(text.contains("@~/.ssh/id_rsa is not attached: Permission denied: mention"), "{text}");
    assert!(text.contains(".ssh/id_rsa: a paths rule denies it"), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    let through_link = chat(&dirs, &["--yolo"], "what is @./~/notes/id_rsa\n/context 2\n");
    assert!(!through_link.contains("SECRET"), "{through_link}");
}

#[test]
fn a_mentioned_fifo_is_refused_without_blocking() {
    let dirs = Dirs::new(None, None);
    let fifo = dirs.project.join("pipe");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let text = chat(&dirs, &[], "read @pipe\n/context 2\n");
    assert!(text.contains("@pipe is not attached: ") && text.contains("is a FIFO (named pipe)"), "{text}");
}

#[test]
fn an_image_under_a_denied_directory_is_not_attached_even_through_a_link() {
    let dirs = tilde_project();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03\x08\x06\0\0\0";
    std::fs::write(dirs.home.join(".ssh/shot.png"), png).unwrap();
    let text = chat(&dirs, &["--yolo"], "what is in @~/.ssh/shot.png\n/context 2\n");
    assert!(text.contains("@~/.ssh/shot.png is not attached: Permission denied: mention"), "{text}");
    assert!(!text.contains("[image shot.png"), "{text}");
    let through_link = chat(&dirs, &["--yolo"], "what is in @./~/notes/shot.png\n/context 2\n");
    assert!(through_link.contains("is not attached"), "{through_link}");
    assert!(!through_link.contains("[image shot.png"), "{through_link}");
    // The same image in the project is attached (the checks above are not vacuous).
    std::fs::write(dirs.project.join("shot.png"), png).unwrap();
    let attached = chat(&dirs, &[], "what is in @shot.png\n/context 2\n");
    assert!(attached.contains("[image shot.png 29 B]"), "{attached}");
}
