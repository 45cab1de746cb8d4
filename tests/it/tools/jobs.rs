//! Issue 40, background and interactive jobs, through the real binary (`ask --json` and
//! the line REPL with a stub script, the full-screen app in a pseudo-terminal), with the
//! sandbox as a user gets it by default: a background `python3 -m http.server` answers a
//! later contained `curl` over loopback (the session's shared network namespace) and
//! `job_output` shows its log; `python3 -q -i` in a `pty` job answers `print(6*7)`; jobs
//! (and what they fork away with `setsid`) are gone once `ask` exits and after SIGTERM to
//! the full-screen app; a job printing 1 GB keeps elelem's memory bounded; the 17th job
//! is refused; `/jobs` lists and stops them; `/clear` in the line REPL and `/resume` of
//! another session in the full-screen app stop them while elelem keeps running.

use crate::security::sandbox::supported;
use crate::tui::pty::Tui;
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than any of these runs needs; only there so a hang fails the test.
const HANG_GUARD: Duration = Duration::from_secs(90);

fn doing(id: &str, name: &str, arguments: Value) -> Value {
    json!({"events": [{"type": "doing", "id": id, "name": name, "arguments": arguments}]})
}

fn done() -> Value {
    json!({"events": [{"type": "saying", "text": "done"}]})
}

/// A run's project and home, and the user elelem runs as (`None`: the test's own).
struct Run {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    user: Option<u32>,
}

/// What `ask --json` printed, and the most memory elelem held (KiB).
struct Ran {
    lines: Vec<Value>,
    stderr: String,
    max_rss_kib: i64,
    took: Duration,
}

impl Ran {
    /// The result of the call with this id.
    fn result(&self, id: &str) -> Value {
        self.lines
            .iter()
            .find(|l| l["type"] == "result" && l["id"] == id)
            .map(|l| l["result"].clone())
            .unwrap_or_else(|| panic!("no result for {id}: {:?}\n{}", self.lines, self.stderr))
    }
}

impl Run {
    fn new() -> Self {
        Run { home: tempfile::tempdir().unwrap(), project: tempfile::tempdir().unwrap(), user: None }
    }

    /// A run as the unprivileged user `nobody` (65534), whose home and project are its own,
    /// when the tests run as root (root hides what an ordinary user may not do: here, make
    /// the session's network namespace and join it); `None` otherwise.
    fn unprivileged() -> Option<Self> {
        // SAFETY: geteuid only returns a number.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        const NOBODY: u32 = 65534;
        let run = Run { user: Some(NOBODY), ..Run::new() };
        for dir in [run.home.path(), run.project.path()] {
            std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        Some(run)
    }

    fn elelem(&self) -> Command {
        let script = self.home.path().join("script.json");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_elelem"));
        cmd.args(["-p", "stub"])
            .current_dir(self.project.path())
            .env("HOME", self.home.path())
            .env("ELELEM_STUB_SCRIPT", script)
            .env_remove("ELELEM_SANDBOX")
            .env_remove("XDG_DATA_HOME")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env("OLLAMA_HOST", "http://127.0.0.1:9");
        if let Some(user) = self.user {
            use std::os::unix::process::CommandExt;
            // SAFETY: setgroups, setgid and setuid only, between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setgroups(0, std::ptr::null()) != 0 || libc::setgid(user) != 0 || libc::setuid(user) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        cmd
    }

    /// `ask --json go` on these stub steps, watching elelem's peak memory as it runs.
    fn ask(&self, steps: Value) -> Ran {
        std::fs::write(self.home.path().join("script.json"), steps.to_string()).unwrap();
        let started = Instant::now();
        let mut child = self
            .elelem()
            .args(["ask", "--json", "go"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
        let out = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let err = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let pid = child.id();
        let mut max_rss_kib = 0;
        loop {
            max_rss_kib = max_rss_kib.max(high_water_kib(pid));
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if started.elapsed() > HANG_GUARD {
                let _ = child.kill();
                panic!("elelem hung: still running after {HANG_GUARD:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let took = started.elapsed();
        let lines = out.join().unwrap().lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        Ran { lines, stderr: err.join().unwrap(), max_rss_kib, took }
    }
}

/// The most memory process `pid` has held (VmHWM), in KiB; 0 once it has exited.
fn high_water_kib(pid: u32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|line| line.strip_prefix("VmHWM:")).unwrap_or("");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

/// Live (not zombie) processes whose environment holds `marker`.
fn marked_processes(marker: &str) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("Z");
        if !zombie && String::from_utf8_lossy(&environ).contains(marker) {
            found += 1;
        }
    }
    found
}

/// Waits up to five seconds for no process to hold `marker`.
fn assert_none_left(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while marked_processes(marker) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
    assert_eq!(marked_processes(marker), 0, "processes of the jobs outlived elelem");
}

/// The elelem process whose environment holds `marker` (its commands inherit it too).
fn elelem_marked(marker: &str) -> Option<u32> {
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_elelem")).ok()?;
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let exe = std::fs::read_link(entry.path().join("exe")).ok()?;
        let environ = std::fs::read(entry.path().join("environ")).ok()?;
        (exe == binary && String::from_utf8_lossy(&environ).contains(marker)).then_some(pid)
    })
}

fn has(program: &str) -> bool {
    Command::new("which").arg(program).stdout(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// A background server and a later contained client meet over loopback (the session's one
/// network namespace); the server's log comes through `job_output`; the outside stays off.
#[test]
fn a_background_server_answers_a_later_contained_client_over_loopback() {
    if !supported() || !has("python3") {
        return;
    }
    server_and_client(Run::new());
}

/// The same as an unprivileged user (when the tests run as root): the session's network
/// namespace is made and joined without privileges.
#[test]
fn an_unprivileged_users_background_server_answers_a_later_contained_client() {
    if !supported() || !has("python3") {
        return;
    }
    match Run::unprivileged() {
        Some(run) => server_and_client(run),
        None => eprintln!("skipped: the tests do not run as root, so they already run unprivileged"),
    }
}

fn server_and_client(run: Run) {
    let port = 20_000 + std::process::id() % 20_000;
    let get = match has("curl") {
        true => format!("curl -sS -o /dev/null -w 'status %{{http_code}}' http://127.0.0.1:{port}/"),
        false => format!(
            "python3 -c \"import urllib.request as u; print('status', u.urlopen('http://127.0.0.1:{port}/').status)\""
        ),
    };
    let client = format!("for i in $(seq 50); do {get} && exit 0; sleep 0.1; done; exit 1");
    let ran = run.ask(json!([
        doing(
            "t1",
            "execute",
            json!({"command": format!("python3 -m http.server {port} --bind 127.0.0.1"), "background": true})
        ),
        doing("t2", "execute", json!({"command": client})),
        doing("t3", "job_output", json!({"id": 1, "wait_ms": 3000})),
        doing("t4", "execute", json!({"command": "exec 3<>/dev/tcp/1.1.1.1/80"})),
        doing("t5", "execute", json!({"command": "id -u"})),
        done()
    ]));
    let user = ran.result("t5");
    if let Some(uid) = run.user {
        assert_eq!(user["content"].as_str().map(str::trim), Some(uid.to_string().as_str()), "{user}");
    }
    let started = ran.result("t1");
    assert_eq!((started["job"].clone(), started["running"].clone()), (json!(1), json!(true)), "{started}");
    let client = ran.result("t2");
    assert_eq!(client["exit_status"], 0, "{client}");
    assert!(client["content"].as_str().unwrap().contains("status 200"), "{client}");
    let log = ran.result("t3");
    assert!(log["content"].as_str().unwrap().contains("\"GET / HTTP/1.1\" 200"), "{log}");
    assert_eq!(log["running"], true, "{log}");
    let outside = ran.result("t4");
    assert_ne!(outside["exit_status"], 0, "the outside network answered: {outside}");
}

/// `python3 -q -i` in a job with a terminal of its own answers `print(6*7)`.
#[test]
fn python_in_a_pty_job_answers_through_job_input_and_job_output() {
    if !has("python3") {
        return;
    }
    let run = Run::new();
    let ran = run.ask(json!([
        doing("t1", "execute", json!({"command": "python3 -q -i", "pty": true})),
        doing("t2", "job_input", json!({"id": 1, "input": "print(6*7)\n"})),
        doing("t3", "job_output", json!({"id": 1, "wait_ms": 5000})),
        doing("t4", "job_output", json!({"id": 1, "wait_ms": 1000})),
        doing("t5", "job_input", json!({"id": 1, "keys": ["Ctrl+D"]})),
        doing("t6", "job_output", json!({"id": 1, "wait_ms": 5000})),
        // `job_output` returns at the first new output: the terminal's answer to Ctrl+D
        // can come before python has exited, so a second read waits for the end.
        doing("t7", "job_output", json!({"id": 1, "wait_ms": 10000})),
        done()
    ]));
    assert_eq!(ran.result("t2")["written_bytes"], 11, "{}", ran.result("t2"));
    let answer = format!("{}{}", ran.result("t3")["content"], ran.result("t4")["content"]);
    assert!(answer.contains("\\n42\\n"), "{answer}");
    let (t6, t7) = (ran.result("t6"), ran.result("t7"));
    let ended = if t6["running"] == false { &t6 } else { &t7 };
    assert_eq!(ended["exit_status"], 0, "Ctrl+D ends the REPL: {t6} then {t7}");
}

/// A job and the daemon it forked away (`setsid`) are gone once `ask` has exited.
#[test]
fn jobs_and_what_they_fork_away_are_gone_after_ask_exits() {
    let mark = format!("ELELEM_JOB_ASK_{}", std::process::id());
    let command = format!("export {mark}=1; setsid sleep 1000 & echo started; sleep 1000");
    let run = Run::new();
    let ran = run.ask(json!([
        doing("t1", "execute", json!({"command": command, "background": true})),
        doing("t2", "execute", json!({"command": "sleep 0.3"})),
        done()
    ]));
    let started = ran.result("t1");
    assert_eq!(
        (started["content"].as_str(), started["running"].as_bool()),
        (Some("started\n"), Some(true)),
        "{started}"
    );
    assert_none_left(&mark);
}

/// SIGTERM to the full-screen app stops its jobs, contained, and what they forked away.
#[test]
fn jobs_are_gone_after_sigterm_to_the_full_screen_app() {
    if !supported() {
        return;
    }
    let mark = format!("ELELEM_JOB_TUI_{}", std::process::id());
    let command = format!("export {mark}=1; setsid sleep 1000 & sleep 1000");
    let steps = json!([doing("c1", "execute", json!({"command": command, "background": true})), done()]);
    let dir = tempfile::tempdir().unwrap();
    let app_mark = format!("ELELEM_JOB_TUI_APP_{}", std::process::id());
    let env = [("ELELEM_SANDBOX", "workspace-write"), (app_mark.as_str(), "1")];
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 24, 80, &env, &[]);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) < 2 {
        assert!(Instant::now() < deadline, "the job never ran; screen:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(30));
    }
    tui.wait_for("done");
    let pid = elelem_marked(&app_mark).expect("the app's process");
    Command::new("kill").arg("-TERM").arg(pid.to_string()).status().unwrap();
    assert_eq!(tui.wait_exit().exit_code(), 143);
    tui.assert_restored();
    assert_none_left(&mark);
}

/// A job that prints 1 GB: elelem keeps the newest output (the rest counted as dropped),
/// its memory stays bounded and the calls after it answer in time.
#[test]
fn a_job_printing_a_gigabyte_keeps_elelem_bounded_and_responsive() {
    let run = Run::new();
    let flood = "head -c 1073741824 /dev/zero | tr '\\0' x; echo; echo END; touch flood.done";
    let ran = run.ask(json!([
        doing("t1", "execute", json!({"command": flood, "background": true})),
        doing("t2", "execute", json!({"command": "echo still here"})),
        doing("t3", "job_output", json!({"id": 1, "wait_ms": 60000})),
        doing("t4", "execute", json!({"command": "until [ -e flood.done ]; do sleep 0.1; done", "timeout_secs": 60})),
        doing("t5", "job_output", json!({"id": 1, "wait_ms": 10000})),
        doing("t6", "job_output", json!({"id": 1, "wait_ms": 10000})),
        done()
    ]));
    assert_eq!(ran.result("t2")["content"], "still here\n");
    assert_eq!(ran.result("t4")["exit_status"], 0, "the flood did not end: {}", ran.result("t4"));
    let (end, last) = (ran.result("t5"), ran.result("t6"));
    let content = end["content"].as_str().unwrap();
    assert!(content.ends_with("END\n"), "ends with {:?}", &content[content.len().saturating_sub(40)..]);
    assert!(content.len() < 40 * 1024, "a read is capped: {} bytes", content.len());
    let status = end["exit_status"].as_i64().or(last["exit_status"].as_i64());
    assert_eq!(status, Some(0), "{:?} {:?}", end.get("exit_status"), last.get("exit_status"));
    let dropped: u64 =
        ["t1", "t3", "t5", "t6"].iter().map(|id| ran.result(id)["dropped_bytes"].as_u64().unwrap_or(0)).sum();
    assert!(dropped > 1000 * 1024 * 1024, "dropped {dropped} bytes");
    eprintln!("1 GB job: {:?} in all, elelem's peak {} MiB", ran.took, ran.max_rss_kib / 1024);
    assert!(ran.max_rss_kib < 150 * 1024, "elelem held {} MiB", ran.max_rss_kib / 1024);
    assert!(ran.took < Duration::from_secs(60), "took {:?}", ran.took);
}

/// Sixteen jobs run at once; the seventeenth is refused with a sentence saying why.
#[test]
fn the_seventeenth_job_is_refused() {
    let mark = format!("ELELEM_JOB_17_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000");
    let mut steps: Vec<Value> =
        (1..=17).map(|i| doing(&format!("t{i}"), "execute", json!({"command": command, "background": true}))).collect();
    steps.push(done());
    let run = Run::new();
    let ran = run.ask(Value::Array(steps));
    assert_eq!(ran.result("t16")["job"], 16, "{}", ran.result("t16"));
    let refused = ran.result("t17");
    assert!(refused["error"].as_str().unwrap().contains("at most 16 jobs run at once"), "{refused}");
    assert_none_left(&mark);
}

/// `/jobs` in the line REPL lists the job started in the turn before; `/jobs stop 1` stops it.
#[test]
fn slash_jobs_lists_and_stops_them() {
    let mark = format!("ELELEM_JOB_SLASH_{}", std::process::id());
    let run = Run::new();
    let steps = json!([
        doing("t1", "execute", json!({"command": format!("export {mark}=1; sleep 1000"), "background": true})),
        done()
    ]);
    std::fs::write(run.home.path().join("script.json"), steps.to_string()).unwrap();
    let mut child = run
        .elelem()
        .args(["--yolo", "chat", "--plain"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"go\n/jobs\n/jobs stop 1\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
    let stopped_before_exit = marked_processes(&mark) == 0;
    drop(input);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("%1") && stdout.contains("running"), "{stdout}");
    assert!(stdout.contains("Job 1 stopped"), "{stdout}");
    assert!(stopped_before_exit, "/jobs stop left the job running");
}

/// `/clear` in the line REPL stops the jobs the conversation started; elelem keeps running.
#[test]
fn clear_in_the_line_repl_stops_the_jobs() {
    let mark = format!("ELELEM_JOB_CLEAR_{}", std::process::id());
    let run = Run::new();
    let steps = json!([
        doing("t1", "execute", json!({"command": format!("export {mark}=1; sleep 1000"), "background": true})),
        done()
    ]);
    std::fs::write(run.home.path().join("script.json"), steps.to_string()).unwrap();
    let mut child = run
        .elelem()
        .args(["--yolo", "chat", "--plain"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut input = child.stdin.take().unwrap();
    input.write_all(b"go\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) == 0 {
        assert!(Instant::now() < deadline, "the job never ran");
        std::thread::sleep(Duration::from_millis(30));
    }
    input.write_all(b"/clear\n").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while marked_processes(&mark) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
    let left = marked_processes(&mark);
    let running = child.try_wait().unwrap().is_none();
    drop(input);
    let _ = child.wait();
    assert!(running, "elelem ended at /clear");
    assert_eq!(left, 0, "/clear left the job running");
}

/// `/resume` of another session in the full-screen app (the line REPL has none) drops the
/// session, and with it its jobs; the app keeps running, on the resumed session.
#[test]
fn resuming_another_session_in_the_app_stops_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.json");
    std::fs::write(&first, json!([{"events": [{"type": "saying", "text": "first answer"}]}]).to_string()).unwrap();
    let recorded = Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["-p", "stub", "ask", "the first question"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .env("ELELEM_STUB_SCRIPT", &first)
        .env("ELELEM_SANDBOX", "off")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{}", String::from_utf8_lossy(&recorded.stderr));
    let mark = format!("ELELEM_JOB_RESUME_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000");
    let steps = json!([doing("c1", "execute", json!({"command": command, "background": true})), done()]);
    let app_mark = format!("ELELEM_JOB_RESUME_APP_{}", std::process::id());
    let env = [(app_mark.as_str(), "1")];
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 30, 110, &env, &["--yolo"]);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) == 0 {
        assert!(Instant::now() < deadline, "the job never ran; screen:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(30));
    }
    tui.wait_for("done");
    let pid = elelem_marked(&app_mark).expect("the app's process");
    tui.send("/resume\r");
    tui.wait_for("resume a session · type to filter");
    tui.send("first");
    tui.wait_for("1 of 2");
    tui.send("\r");
    tui.wait_for("Resumed session");
    assert_none_left(&mark);
    assert_eq!(elelem_marked(&app_mark), Some(pid), "the app is still running");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}
