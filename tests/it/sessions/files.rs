//! Session files that someone else shaped (issue 26 items 3, 18-21), through the real
//! binary: a symlinked session is never followed (`--resume` neither appends to nor chmods
//! its target), a FIFO or a link to `/dev/zero` named `*.jsonl` neither hangs nor aborts
//! `sessions`, `ask -c` or `--resume`, a file past the read limit is listed as far as it and
//! not resumed, `elelem sessions` shows no terminal escapes, a file-size limit stops the
//! recording with one warning while the reply is still shown, and two processes never
//! record into one session.

use serde_json::json;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::home::{reply as support_reply, Home};

/// The shared temporary home, with the runs these tests make.
trait Runs {
    fn replying(&self, args: &[&str], reply: &str) -> Command;
    fn run(&self, args: &[&str], reply: &str) -> Output;
    fn first_session(&self) -> String;
}

impl Runs for Home {
    /// `elelem ARGS` with a stub that answers `reply`; stdin empty.
    fn replying(&self, args: &[&str], reply: &str) -> Command {
        let mut cmd = Home::command(self, args, &self.script(support_reply(reply)));
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Runs to the end, or fails the test if that takes over 30 s (a hang).
    fn run(&self, args: &[&str], reply: &str) -> Output {
        finish(self.replying(args, reply).spawn().unwrap())
    }

    /// A first session (by `ask`), and its id.
    fn first_session(&self) -> String {
        assert!(self.run(&["ask", "first question"], "first answer").status.success());
        let files = self.session_files();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].file_stem().unwrap().to_string_lossy().into_owned()
    }
}

/// Waits for `child` with a deadline, killing it (and failing) past it.
fn finish(child: Child) -> Output {
    let pid = child.id() as i32;
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output().unwrap()));
    match wait.recv_timeout(Duration::from_secs(30)) {
        Ok(out) => out,
        Err(_) => {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let out = wait.recv().unwrap();
            panic!("elelem hung; stderr: {}", text(&out.stderr[..out.stderr.len().min(2000)]));
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

#[test]
fn resume_never_follows_a_symlinked_session_file() {
    let home = Home::new();
    let id = home.first_session();
    // Something that looks like a session, outside the sessions directory, readable by all.
    let victim = home.dir.path().join("victim.jsonl");
    std::fs::copy(home.sessions_dir().join(format!("{id}.jsonl")), &victim).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = std::fs::read(&victim).unwrap();
    std::os::unix::fs::symlink(&victim, home.sessions_dir().join("linked.jsonl")).unwrap();

    for args in [&["ask", "--resume", "linked", "again"][..], &["chat", "--plain", "--resume", "linked"]] {
        let out = home.run(args, "appended?");
        assert!(!out.status.success(), "{args:?} resumed through a link");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("symbolic link"), "{stderr}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), before, "the link's target was written to");
    let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "the link's target was chmod'ed");
    let list = text(&home.run(&["sessions"], "").stdout);
    assert!(!list.contains("linked"), "a link is not listed: {list}");
}

#[test]
fn a_fifo_a_link_to_dev_zero_and_a_huge_file_neither_hang_nor_abort() {
    let home = Home::new();
    let id = home.first_session();
    mkfifo(&home.sessions_dir().join("fifo.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", home.sessions_dir().join("zero.jsonl")).unwrap();
    // 300 MB of zeros, sparse: one "line" longer than the read limit (256 MB).
    let huge = std::fs::File::create(home.sessions_dir().join("huge.jsonl")).unwrap();
    huge.set_len(300 << 20).unwrap();
    drop(huge);

    let list = home.run(&["sessions"], "");
    assert!(list.status.success(), "{list:?}");
    let list = text(&list.stdout);
    assert_eq!(list.lines().count(), 2, "only regular files are listed: {list}");
    assert!(list.contains(&id) && list.contains("first question"), "{list}");
    let huge_line = list.lines().find(|l| l.contains("huge")).unwrap();
    assert!(huge_line.contains("0+ turns") && huge_line.contains("300.0 MB"), "the cap is shown: {list}");

    let again = home.run(&["ask", "-c", "again"], "second answer");
    assert!(again.status.success(), "{again:?}");
    assert!(text(&again.stdout).contains("second answer"));

    for (name, says) in [("fifo", "FIFO"), ("zero", "symbolic link")] {
        let out = home.run(&["ask", "--resume", name, "x"], "");
        assert!(!out.status.success());
        assert!(text(&out.stderr).contains(says), "{name}: {}", text(&out.stderr));
    }
    let out = home.run(&["ask", "--resume", "huge", "x"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("past the 256 MB elelem reads back"), "{}", text(&out.stderr));
}

#[test]
fn sessions_prints_no_terminal_escapes_from_a_session_file() {
    let home = Home::new();
    std::fs::create_dir_all(home.sessions_dir()).unwrap();
    let cwd = "/home/x/\u{1b}]0;owned title\u{7}proj\u{202e}gpj.exe\u{1b}[2J";
    let prompt = "\u{1b}]52;c;cm0gLXJmIH4=\u{7}hello \u{1b}[31mred\u{9b}31m \u{202e}txt.exe";
    let name = "2026-01-01-00001-1\u{1b}[5m";
    let lines = [
        json!({"type": "session", "version": 1, "id": name, "cwd": cwd, "started": 0}),
        json!({"type": "prompt", "text": prompt}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(home.sessions_dir().join(format!("{name}.jsonl")), body).unwrap();
    let out = home.run(&["sessions"], "");
    assert!(out.status.success());
    let list = text(&out.stdout);
    for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
        assert!(!list.contains(bad), "{bad:?} reached the terminal: {list:?}");
    }
    assert!(list.contains("hello red") && list.contains("proj<U+202E>gpj.exe"), "{list:?}");
}

#[test]
fn a_file_size_limit_stops_the_recording_with_one_warning_and_the_reply_is_shown() {
    let home = Home::new();
    let reply = "every word of a long reply ".repeat(4000); // 108 KB
    let mut cmd = home.replying(&["ask", "write a lot"], &reply);
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 16 << 10, rlim_max: 16 << 10 };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = finish(cmd.spawn().unwrap());
    assert!(out.status.success(), "killed by SIGXFSZ? {:?} {}", out.status, text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.trim_end() == reply.trim_end(),
        "the reply was not shown whole: {} of {} bytes",
        shown.len(),
        reply.len()
    );
    let stderr = text(&out.stderr);
    assert_eq!(stderr.matches("no longer being recorded").count(), 1, "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
}

#[test]
fn two_processes_never_record_into_one_session() {
    let home = Home::new();
    let id = home.first_session();
    let path = home.sessions_dir().join(format!("{id}.jsonl"));
    let mut first =
        home.replying(&["chat", "--plain", "--resume", &id], "from the first").stdin(Stdio::piped()).spawn().unwrap();
    let seen = Arc::new(Mutex::new(String::new()));
    let mut stdout = first.stdout.take().unwrap();
    let shared = seen.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            shared.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.lock().unwrap().contains("Resumed session") {
        assert!(Instant::now() < deadline, "the first never resumed: {}", seen.lock().unwrap());
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = std::fs::read(&path).unwrap();
    for args in [&["ask", "--resume", &id, "second"][..], &["ask", "-c", "second"]] {
        let second = home.run(args, "from the second");
        assert!(!second.status.success(), "{args:?} recorded into a session another process records");
        let stderr = text(&second.stderr);
        assert!(stderr.contains("open in another elelem"), "{stderr}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);

    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"first again\n").unwrap();
    drop(stdin);
    let out = finish(first);
    reader.join().unwrap();
    assert!(out.status.success());
    assert!(seen.lock().unwrap().contains("from the first"));
    // Once the first is gone, the session is free again; every line is a whole record.
    assert!(home.run(&["ask", "-c", "third"], "from the third").status.success());
    let file = std::fs::read_to_string(&path).unwrap();
    for line in file.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(file.contains("from the first") && file.contains("from the third") && !file.contains("from the second"));
}

#[test]
fn a_line_cut_short_does_not_swallow_the_next_record() {
    let home = Home::new();
    let id = home.first_session();
    let path = home.sessions_dir().join(format!("{id}.jsonl"));
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    file.write_all(br#"{"type":"saying","text":"cut sh"#).unwrap(); // a crash, a full disk
    drop(file);
    assert!(home.run(&["ask", "-c", "again"], "second answer").status.success());
    let recorded = std::fs::read_to_string(&path).unwrap();
    let broken: Vec<&str> =
        recorded.lines().filter(|l| serde_json::from_str::<serde_json::Value>(l).is_err()).collect();
    assert_eq!(broken, [r#"{"type":"saying","text":"cut sh"#], "{recorded}");
    let mut chat = home.replying(&["chat", "--plain", "-c"], "").stdin(Stdio::piped()).spawn().unwrap();
    chat.stdin.take().unwrap().write_all(b"/context\n").unwrap();
    let shown = text(&finish(chat).stdout);
    assert!(shown.contains("user: first question") && shown.contains("user: again"), "{shown}");
    assert!(shown.contains("assistant: second answer"), "{shown}");
}
