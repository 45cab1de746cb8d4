//! Issue 26 (processes and secrets) through the real binary: a command cannot read the
//! keys from elelem's own `/proc` entries; the user's `!command` starts without secret
//! variables, has secret values masked and its output bounded, and leaves no background
//! job behind; `execute`'s timeout and elelem's exit stop every process a command started,
//! `setsid` daemons and double-forked orphans included.

use base64::Engine as _;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-proc-0123456789abcdef";
const TOKEN: &str = "ghp-test-proc-fedcba9876543210";
/// Far longer than any of these runs needs; only there so a hang fails the test.
const HANG_GUARD: Duration = Duration::from_secs(60);

struct Run {
    dir: tempfile::TempDir,
}

/// What a finished run left: exit code, stdout, and its peak memory (KiB).
struct Ran {
    code: Option<i32>,
    stdout: String,
    max_rss_kib: i64,
}

impl Run {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
        Run { dir }
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs `elelem -p stub ARGS` with `steps` as the stub script, the test keys in its
    /// environment and `stdin` written to it; waits for it (with `wait4`, for its peak
    /// memory).
    #[allow(clippy::zombie_processes)] // reaped by wait4, which std's `wait` cannot be told to use
    fn elelem(&self, args: &[&str], steps: Value, stdin: &str) -> Ran {
        let script = self.path("script.json");
        std::fs::write(&script, steps.to_string()).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_elelem"))
            .env("ELELEM_SANDBOX", "off")
            .args(["-p", "stub"])
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("ELELEM_STUB_SCRIPT", &script)
            .env("ANTHROPIC_API_KEY", KEY)
            .env("GITHUB_TOKEN", TOKEN)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ELELEM_MAX_STEPS")
            .env_remove("ELELEM_EXECUTE_KEEP_ENV")
            .env("OLLAMA_HOST", "http://127.0.0.1:9")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).unwrap();
        drop(input);
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = stdout.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        let pid = i32::try_from(child.id()).unwrap();
        let started = Instant::now();
        // The peak is read from /proc (VmHWM, elelem's own image), not from wait4's
        // ru_maxrss: that also counts the image before exec, which is this test binary's.
        let mut max_rss_kib = 0;
        let code = loop {
            max_rss_kib = max_rss_kib.max(high_water_kib(pid));
            let mut status = 0;
            // SAFETY: waitpid(2) on our own child writes only `status`.
            let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if done == pid {
                break libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            }
            if started.elapsed() > HANG_GUARD {
                let _ = child.kill();
                panic!("elelem hung: still running after {HANG_GUARD:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Ran { code, stdout: reader.join().unwrap(), max_rss_kib }
    }

    /// The pid a background process wrote to `rel`.
    fn pid_in(&self, rel: &str) -> i32 {
        let text = std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        text.trim().parse().unwrap_or_else(|e| panic!("{rel}: {text:?}: {e}"))
    }
}

/// The most memory process `pid` has held (VmHWM), in KiB; 0 once it has exited.
fn high_water_kib(pid: i32) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|line| line.strip_prefix("VmHWM:")).unwrap_or("");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

fn doing(id: &str, name: &str, arguments: Value) -> Value {
    json!({"type": "doing", "id": id, "name": name, "arguments": arguments})
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The result of the call with this id.
fn result_of(lines: &[Value], id: &str) -> Value {
    lines
        .iter()
        .find(|l| l["type"] == "result" && l["id"] == id)
        .map(|l| l["result"].clone())
        .unwrap_or_else(|| panic!("no result for {id}: {lines:?}"))
}

/// Whether the process runs (a zombie has died; it only waits to be reaped).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// Waits up to two seconds for every process to be gone; kills what is left before failing.
fn assert_gone(pids: &[(i32, &str)]) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|(pid, _)| alive(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<String> =
        pids.iter().filter(|(pid, _)| alive(*pid)).map(|(pid, what)| format!("{what} (pid {pid})")).collect();
    for (pid, _) in pids.iter().filter(|(pid, _)| alive(*pid)) {
        // SAFETY: kill(2); the test cleans up what it proved was left behind.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(left.is_empty(), "outlived what should have stopped them: {left:?}");
}

/// Every base64 run of 16 characters or more in `text`, decoded (lossily).
fn decoded_base64(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
        .filter(|word| word.len() >= 16)
        .filter_map(|word| {
            let trimmed = &word[..word.len() - word.len() % 4];
            base64::engine::general_purpose::STANDARD
                .decode(trimmed.trim_end_matches('='))
                .ok()
                .or_else(|| base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed.trim_end_matches('=')).ok())
        })
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect()
}

/// Point 5: `execute` reads `/proc/$PPID/environ` (elelem's, the environment it started
/// with) and every ancestor's, raw and as base64 (which the value mask does not catch).
/// Neither shows the key: elelem overwrote the values in its initial environment block
/// (and is not dumpable, so its `/proc` files are root's: this alone does not stop a
/// process running as root, as the tests may).
#[test]
fn a_command_cannot_read_the_keys_from_elelems_proc_entries() {
    let run = Run::new();
    let walk = r#"p=$PPID; while [ "$p" -gt 1 ]; do echo "== $p"; base64 -w0 /proc/$p/environ; echo; tr '\0' '\n' < /proc/$p/environ; base64 -w0 /proc/$p/task/$p/environ; echo; p=$(sed -n 's/^PPid:\t*//p' /proc/$p/status); done 2>&1"#;
    let steps = json!([
        {"events": [doing("t1", "execute", json!({"command": walk}))]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let ran = run.elelem(&["--yolo", "ask", "--json", "go"], steps, "");
    assert_eq!(ran.code, Some(0), "{}", ran.stdout);
    let result = result_of(&json_lines(&ran.stdout), "t1");
    let content = result["content"].as_str().unwrap();
    let walked = content.matches("== ").count();
    assert!(walked >= 2, "the walk did not reach past elelem:\n{content}");
    assert!(!ran.stdout.contains(KEY) && !ran.stdout.contains(TOKEN), "{}", ran.stdout);
    for text in decoded_base64(content) {
        assert!(!text.contains(KEY) && !text.contains(TOKEN), "a key in base64 of an environ: {text}");
    }
}

/// Point 6: `!env` shows no secret variable, and a secret's value the command prints
/// (from a file here) reaches neither the tool result nor the next prompt.
#[test]
fn bang_commands_start_without_secret_variables_and_their_values_are_masked() {
    let run = Run::new();
    std::fs::write(run.path("leak.txt"), format!("key={KEY} token={TOKEN}\n")).unwrap();
    let steps = json!([{"events": [{"type": "saying", "text": "noted"}]}]);
    let input = "!env | grep -c -e ANTHROPIC_API_KEY -e GITHUB_TOKEN; echo \"[$ANTHROPIC_API_KEY$GITHUB_TOKEN]\"; cat leak.txt\nwhat now?\n/context 2\n";
    let ran = run.elelem(&["chat", "--plain"], steps, input);
    assert!(!ran.stdout.contains(KEY) && !ran.stdout.contains(TOKEN), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("Its output:\n```\n0\n[]\nkey=*** token=***\n```\n\nwhat now?"),
        "the next prompt should carry the masked output:\n{}",
        ran.stdout
    );
}

/// Point 7: `!` with 400 MB of output, and `!yes` (endless, stdin at EOF), are stopped past
/// the output limit; elelem's memory stays far below the output's size.
#[test]
fn bang_commands_with_endless_output_are_stopped_and_memory_stays_bounded() {
    let run = Run::new();
    let input = "!head -c 400000000 /dev/zero | tr '\\0' x\n!yes\n!echo still here\n";
    let started = Instant::now();
    let ran = run.elelem(&["chat", "--plain"], json!([]), input);
    let limit_notes = ran.stdout.matches("stopped after 16 MiB of output (the limit)").count();
    assert_eq!(limit_notes, 2, "{}", ran.stdout.chars().take(4000).collect::<String>());
    assert!(ran.stdout.contains("still here"), "elelem did not go on after them");
    assert!(ran.max_rss_kib > 0, "elelem's memory was never read");
    assert!(ran.max_rss_kib < 150 * 1024, "elelem peaked at {} KiB", ran.max_rss_kib);
    eprintln!("peak {} KiB, {:?}", ran.max_rss_kib, started.elapsed());
}

/// Point 7: background jobs of a `!` command, in its group, in a session of their own or
/// orphaned at once, are stopped when elelem exits.
#[test]
fn background_jobs_of_a_bang_command_do_not_outlive_elelem() {
    let run = Run::new();
    let input = "!sh -c 'echo $$ > a.pid; exec sleep 1000' >/dev/null 2>&1 & (setsid sh -c 'echo $$ > b.pid; exec sleep 1000' >/dev/null 2>&1 &); while [ ! -s a.pid ] || [ ! -s b.pid ]; do sleep 0.01; done; echo started\n";
    let ran = run.elelem(&["chat", "--plain"], json!([]), input);
    assert!(ran.stdout.contains("started"), "{}", ran.stdout);
    assert_gone(&[(run.pid_in("a.pid"), "a background job of !"), (run.pid_in("b.pid"), "a setsid orphan of !")]);
}

/// Point 14: `execute`'s timeout says "the command and its children were killed": a
/// `setsid` child and a double-forked orphan are gone when the next call looks.
#[test]
fn execute_timeout_kills_setsid_children_and_orphans() {
    let run = Run::new();
    let start = "setsid sh -c 'echo $$ > a.pid; exec sleep 1000' >/dev/null 2>&1 & (setsid sh -c 'echo $$ > b.pid; exec sleep 1000' >/dev/null 2>&1 &); sleep 30";
    // A killed process not reaped yet is a zombie (state Z) for a moment, and may be reaped
    // between the two looks: both count as gone.
    let look = "for f in a.pid b.pid; do p=$(cat $f); s=$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null); if [ -n \"$s\" ] && [ \"$s\" != Z ]; then echo \"$f alive $s\"; else echo \"$f gone\"; fi; done";
    let steps = json!([
        {"events": [doing("t1", "execute", json!({"command": start, "timeout_secs": 1}))]},
        {"events": [doing("t2", "execute", json!({"command": look}))]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let ran = run.elelem(&["--yolo", "ask", "--json", "go"], steps, "");
    let lines = json_lines(&ran.stdout);
    let left = result_of(&lines, "t2")["content"].clone();
    assert_gone(&[(run.pid_in("a.pid"), "a setsid child"), (run.pid_in("b.pid"), "an orphan")]);
    assert_eq!(left, "a.pid gone\nb.pid gone\n", "when the next call looked");
    assert_eq!(
        result_of(&lines, "t1")["error"],
        "timed out after 1s; the command and its children were killed",
        "{}",
        ran.stdout
    );
}

/// Point 14: a `setsid` daemon a finished `execute` command left running is stopped when
/// elelem exits.
#[test]
fn a_setsid_daemon_of_execute_does_not_outlive_elelem() {
    let run = Run::new();
    let start = "setsid sh -c 'echo $$ > c.pid; exec sleep 1000' >/dev/null 2>&1 & while [ ! -s c.pid ]; do sleep 0.01; done; echo started";
    let steps = json!([
        {"events": [doing("t1", "execute", json!({"command": start}))]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let ran = run.elelem(&["--yolo", "ask", "--json", "go"], steps, "");
    assert_eq!(result_of(&json_lines(&ran.stdout), "t1")["content"], "started\n");
    assert!(Path::new(&run.path("c.pid")).exists());
    assert_gone(&[(run.pid_in("c.pid"), "a setsid daemon of execute")]);
}

/// Point 14: an orphan elelem adopted (it is a subreaper) and that then dies is reaped at
/// once, not left a zombie until the next command ends.
#[test]
fn an_adopted_orphan_that_dies_is_reaped() {
    let run = Run::new();
    let start =
        "(setsid sh -c 'echo $$ > d.pid; exec sleep 0.3' >/dev/null 2>&1 &); while [ ! -s d.pid ]; do sleep 0.01; done";
    let look = "sleep 1.5; p=$(cat d.pid); if [ -e /proc/$p ]; then echo \"left $(cut -d' ' -f3 /proc/$p/stat)\"; else echo reaped; fi";
    let steps = json!([
        {"events": [doing("t1", "execute", json!({"command": start}))]},
        {"events": [doing("t2", "execute", json!({"command": look}))]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let ran = run.elelem(&["--yolo", "ask", "--json", "go"], steps, "");
    let lines = json_lines(&ran.stdout);
    assert_eq!(result_of(&lines, "t1")["exit_status"], 0, "{}", ran.stdout);
    assert_eq!(result_of(&lines, "t2")["content"], "reaped\n");
}
