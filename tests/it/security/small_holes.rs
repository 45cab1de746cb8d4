//! Issue 37's smaller holes, through the real binary: a model name with terminal escapes
//! (`-m`, a `*_MODEL` variable, `/model NAME`) is refused with its escapes quoted, never
//! printed (line REPL, `ask`, the full-screen app in a pseudo-terminal); a Markdown
//! command whose placeholders repeat a long argument is refused past its cap instead of
//! sending and recording megabytes; `--continue` on a full disk (simulated with a file-size
//! limit, which makes writes fail as ENOSPC does and holds for root too) starts, answers
//! and says the session is not recorded.

use crate::support::home::{reply, Home, Tree};
use crate::tui::pty::Tui;
use serde_json::json;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// OSC 0 (title), BEL, clear-screen.
const HOSTILE_MODEL: &str = "gpt\u{1b}]0;pwned\u{7}\u{1b}[2J";
/// How the refusal quotes it.
const QUOTED: &str = r#"model name "gpt\u{1b}]0;pwned\u{7}\u{1b}[2J" has control characters"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// No byte a terminal would act on besides newlines and tabs.
fn assert_terminal_safe(bytes: &[u8], what: &str) {
    let text = text(bytes);
    let bad: Vec<char> = text.chars().filter(|&c| c.is_control() && c != '\n' && c != '\t').collect();
    assert!(bad.is_empty(), "{what} carries {bad:?}:\n{text}");
}

/// Runs `cmd` with `stdin` written and closed, failing the test past 60 s (a hang).
fn finish(mut cmd: Command, stdin: &str) -> Output {
    let mut child: Child = cmd.stdin(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let pid = child.id() as i32;
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output().unwrap()));
    wait.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("elelem hung")
    })
}

#[test]
fn a_model_name_with_escapes_is_refused_and_never_printed() {
    let home = Home::new();
    let script = home.script(reply("fine"));
    for args in
        [&["ask", "-p", "stub", "-m", HOSTILE_MODEL, "hi"][..], &["chat", "--plain", "-p", "stub", "-m", HOSTILE_MODEL]]
    {
        let out = finish(home.command(args, &script), "hello\n");
        assert!(!out.status.success(), "{args:?} started with the model");
        assert_terminal_safe(&out.stdout, "stdout");
        assert_terminal_safe(&out.stderr, "stderr");
        assert!(text(&out.stderr).contains(QUOTED), "{}", text(&out.stderr));
    }
    // From the provider's variable, refused before anything is sent.
    let mut cmd = home.command(&["ask", "-p", "openai", "hi"], &script);
    cmd.env("OPENAI_MODEL", HOSTILE_MODEL)
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9");
    let out = finish(cmd, "");
    assert!(!out.status.success());
    assert_terminal_safe(&out.stderr, "stderr");
    assert!(text(&out.stderr).contains(QUOTED), "{}", text(&out.stderr));

    // `/model NAME` in the line REPL: refused, the model in use kept.
    let lines = format!("/model {HOSTILE_MODEL}\n/model\n/cost\n/provider\n");
    let out = finish(home.command(&["chat", "--plain", "-p", "stub"], &script), &lines);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = [out.stdout.clone(), out.stderr.clone()].concat();
    assert_terminal_safe(&all, "the line REPL");
    let all = text(&all);
    assert!(all.contains("has control characters"), "{all}");
    assert!(all.contains("* stub (stub-demo)") && !all.contains("pwned)"), "{all}");
}

#[test]
fn the_full_screen_app_refuses_a_model_name_with_escapes_and_sets_no_title() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["-p", "stub", "-m", HOSTILE_MODEL];
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, reply("fine"), 24, 200, &[], &args);
    let status = tui.wait_exit();
    assert!(!status.success(), "the app started with the model");
    assert!(tui.screen.lock().unwrap().callbacks().0.is_empty(), "the title was changed");
    let screen = tui.contents();
    assert!(screen.contains("has control characters"), "{screen}");
}

#[test]
fn a_command_whose_placeholders_repeat_a_long_argument_is_refused() {
    let tree = Tree::with(&["proj", "home/.agents/commands"]);
    // 39 KB of placeholders and a 10 KB argument: 35 MB of prompt once filled in.
    tree.write("home/.agents/commands/big.md", &"$ARGUMENTS ".repeat(39 * 1024 / 11));
    tree.write("home/.agents/commands/small.md", "Say $1 twice: $1 $1.");
    let script = json!([{"events": [{"type": "saying", "text": "small done"}]}]);
    let lines = format!("/big {}\n/small hello\n", "x".repeat(10 * 1024));
    let out = tree.run("proj", &["chat", "--plain", "-p", "stub"], &script, &lines, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = text(&[out.stdout.clone(), out.stderr.clone()].concat());
    assert!(
        all.contains("would make a prompt of 35.5 MB, past the 256 KB a command may send"),
        "{}",
        &all[..all.len().min(4000)]
    );
    assert!(all.contains("small done"), "the next command still runs");
    assert!(all.len() < 64 * 1024, "{} bytes shown", all.len());
    let sessions = tree.path("home/.local/share/elelem/sessions");
    let files: Vec<_> = std::fs::read_dir(&sessions).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    let recorded = std::fs::read_to_string(files[0].path()).unwrap();
    assert!(recorded.len() < 64 * 1024, "the session file has {} bytes", recorded.len());
    assert!(recorded.contains("Say hello twice: hello hello."), "{recorded}");
}

#[test]
fn continue_on_a_full_disk_starts_unrecorded_and_says_so() {
    for args in [&["ask", "-c", "second question"][..], &["chat", "--plain", "-c"]] {
        let home = Home::new();
        let first = finish(home.command(&["ask", "first question"], &home.script(reply("first answer"))), "");
        assert!(first.status.success(), "{}", text(&first.stderr));
        let files = home.session_files();
        assert_eq!(files.len(), 1, "{files:?}");
        // The disk filled while the last record was written: the file ends mid-line, and
        // ending that line is the first thing resuming writes.
        let mut bytes = std::fs::read(&files[0]).unwrap();
        bytes.extend_from_slice(b"{\"type\":\"say");
        std::fs::write(&files[0], &bytes).unwrap();

        let mut cmd = home.command(args, &home.script(reply("second answer")));
        let limit = bytes.len() as u64;
        // SAFETY: setrlimit only, between fork and exec. Past the limit every write fails
        // (EFBIG; elelem ignores SIGXFSZ), as on a full disk.
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let out = finish(cmd, "second question\n");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{args:?} refused to start: {stderr}");
        assert!(stdout.contains("second answer"), "{args:?}: {stdout}");
        let all = format!("{stdout}{stderr}");
        assert!(all.contains("is resumed but not recorded") && all.contains("File too large"), "{args:?}: {all}");
        assert!(!all.contains("no earlier session"), "{all}");
        assert_eq!(std::fs::read(&files[0]).unwrap(), bytes, "the session file was written to");
    }
}
