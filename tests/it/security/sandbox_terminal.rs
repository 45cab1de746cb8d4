//! Issue 37, point 1 and part of point 9, through the real binary: a contained command has
//! no terminal. Run in a pseudo-terminal as the line REPL, a command that runs without
//! approval finds no controlling terminal (`tty_nr` 0), cannot open `/dev/tty` nor the
//! REPL's `/dev/pts/N`, so it can neither push `!command` into the REPL's input
//! (`TIOCSTI`), take the terminal's foreground, nor write OSC 52 or a clear-screen past
//! the sanitiser. It loses the variables that lead to the session's sockets (`TMUX`,
//! `SSH_AUTH_SOCK`, `DOCKER_HOST`, the session bus, `DISPLAY`), and the sockets they name
//! (and tmux's folder, the runtime directory) are hidden, so knowing the path does not
//! help; an abstract socket outside is refused even with the network on; `/dev/shm` is
//! not writable in read-only mode.

use crate::security::sandbox::supported;
use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn has_python() -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no python3 to make the calls with");
    }
    found
}

/// Whether this kernel lets a process push input into its own controlling terminal
/// (`dev.tty.legacy_tiocsti`); without, nobody can, the sandbox or not.
fn tiocsti_allowed() -> bool {
    let allowed = std::fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").map_or(true, |v| v.trim() != "0");
    if !allowed {
        eprintln!("skipped the TIOCSTI part: dev.tty.legacy_tiocsti is 0 on this kernel, TIOCSTI fails for everyone");
    }
    allowed
}

/// What the probe tries from inside, each attempt's outcome on a line of `probe.txt`.
fn probe(pts: &Path, injected: &Path) -> String {
    let pts = pts.display();
    let injected = injected.display();
    format!(
        r#"exec > probe.txt 2>&1
echo "tty_nr=$(cut -d' ' -f7 /proc/self/stat)"
for t in /dev/tty {pts}; do
  if (exec 3<>"$t") 2>/dev/null; then echo "open $t: yes"; else echo "open $t: no"; fi
  if (printf '\033]52;c;SU5KRUNURUQ=\a\033[2J' > "$t") 2>/dev/null; then echo "osc $t: written"; else echo "osc $t: no"; fi
done
python3 - <<'EOF'
import fcntl, os, signal, termios
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
for path in ["/dev/tty", "{pts}"]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        print(f"tiocsti {{path}}: not opened ({{e.strerror}})")
        continue
    try:
        for ch in "!touch {injected}\n":
            fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
        print(f"tiocsti {{path}}: injected")
    except OSError as e:
        print(f"tiocsti {{path}}: refused ({{e.strerror}})")
    try:
        before = os.tcgetpgrp(fd)
        os.tcsetpgrp(fd, os.getpgrp())
        os.tcsetpgrp(fd, before)
        print(f"foreground {{path}}: taken")
    except OSError as e:
        print(f"foreground {{path}}: refused ({{e.strerror}})")
EOF
echo probed
"#
    )
}

/// The line REPL (`chat --plain`) in a pseudo-terminal, contained by default: the stub
/// model runs the probe, then the test types `!touch SENTINEL`. A line the probe pushed
/// into the terminal would be read before it: once the sentinel exists, `INJECTED` must
/// not.
#[test]
fn a_contained_command_has_no_terminal_to_push_input_into_or_write_to() {
    probe_the_terminal(Job::No);
}

/// The same probe run as a background job: it outlives its call, yet has no terminal either.
#[test]
fn a_background_job_has_no_terminal_to_push_input_into_or_write_to() {
    probe_the_terminal(Job::Pipes);
}

/// The same probe run as a job in a pseudo-terminal: the terminal it has is its own (elelem
/// holds the other end), never the user's.
#[test]
fn a_pty_job_has_only_its_own_terminal() {
    probe_the_terminal(Job::Pty);
}

/// How the probe runs: an ordinary call, or a background job with pipes or a pty of its own.
#[derive(Clone, Copy, PartialEq)]
enum Job {
    No,
    Pipes,
    Pty,
}

fn probe_the_terminal(job: Job) {
    if !supported() || !has_python() {
        return;
    }
    let (dir, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let outside = tempfile::tempdir().unwrap();
    let (injected, sentinel) = (outside.path().join("INJECTED"), outside.path().join("SENTINEL"));
    let pair = native_pty_system().openpty(PtySize { rows: 40, cols: 200, pixel_width: 0, pixel_height: 0 }).unwrap();
    let pts = pair.master.tty_name().expect("the pseudo-terminal's name");
    let mut arguments = json!({"command": probe(&pts, &injected)});
    if job != Job::No {
        arguments["background"] = json!(true);
        arguments["pty"] = json!(job == Job::Pty);
    }
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": arguments}]},
        {"events": [{"type": "saying", "text": "the probe ran"}]}
    ]);
    let script = home.path().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_elelem"));
    cmd.args(["chat", "--plain"]);
    cmd.cwd(dir.path());
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", home.path());
    cmd.env("XDG_DATA_HOME", home.path().join("data"));
    cmd.env("ELELEM_STUB_SCRIPT", &script);
    cmd.env_remove("ELELEM_SANDBOX");
    cmd.env_remove("ANTHROPIC_API_KEY");
    cmd.env_remove("OPENAI_API_KEY");
    cmd.env("OLLAMA_HOST", "http://127.0.0.1:9");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let seen = output.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let text = |output: &Arc<Mutex<Vec<u8>>>| String::from_utf8_lossy(&output.lock().unwrap()).into_owned();
    let wait_until = |done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(30));
        }
        done()
    };
    writer.write_all(b"go\n").unwrap();
    writer.flush().unwrap();
    let report = dir.path().join("probe.txt");
    let probed = || std::fs::read_to_string(&report).is_ok_and(|r| r.contains("probed"));
    // A job goes on after its call: the probe is done once it says so.
    let replied = wait_until(&|| text(&output).contains("the probe ran")) && wait_until(&probed);
    writer.write_all(format!("!touch {}\n", sentinel.display()).as_bytes()).unwrap();
    writer.flush().unwrap();
    // A REPL the probe left in the background of its terminal never gets there: the
    // assertions on what the probe did say why.
    let answered = replied && wait_until(&|| sentinel.exists());
    let _ = writer.write_all(b"/quit\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
    let _ = child.kill();

    let report = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(report.contains("probed"), "the probe did not finish: {report}\nterminal:\n{}", text(&output));
    let pts = pts.display();
    assert!(report.contains(&format!("open {pts}: no")), "the user's terminal opened:\n{report}");
    assert!(!report.contains(&format!("osc {pts}: written")), "the command wrote to the terminal:\n{report}");
    let user_terminal = [format!("tiocsti {pts}: injected"), format!("foreground {pts}: taken")];
    assert!(!user_terminal.iter().any(|line| report.contains(line)), "{report}");
    if job == Job::Pty {
        // Its own pseudo-terminal: what it writes or pushes there reaches elelem's job, not
        // the user.
        assert!(!report.contains("tty_nr=0\n"), "a pty job without its terminal:\n{report}");
    } else {
        assert!(report.contains("tty_nr=0\n"), "the command has a controlling terminal:\n{report}");
        assert!(report.contains("open /dev/tty: no"), "/dev/tty opened:\n{report}");
        assert!(!report.contains(": written"), "the command wrote to a terminal:\n{report}");
        assert!(!report.contains(": injected") && !report.contains(": taken"), "{report}");
    }
    let raw = output.lock().unwrap().clone();
    let osc = b"\x1b]52;c;SU5KRUNURUQ=";
    assert!(!raw.windows(osc.len()).any(|w| w == osc), "an OSC 52 of the command reached the terminal");
    if tiocsti_allowed() {
        assert!(!injected.exists(), "a line pushed into the terminal ran outside the sandbox:\n{report}");
    }
    assert!(answered, "the REPL did not run the next typed line; the terminal shows:\n{}", text(&output));
}

/// `ask --json` with one `execute` of `command`, in `project` with a home of its own: its
/// result.
fn execute(project: &Path, args: &[&str], env: &[(&str, String)], command: &str) -> Value {
    let home = tempfile::tempdir().unwrap();
    let steps = json!([
        {"events": [{"type": "doing", "id": "t1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let script = home.path().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_elelem"));
    cmd.args(["-p", "stub", "ask", "--json"])
        .args(args)
        .arg("go")
        .current_dir(project)
        .env("HOME", home.path())
        .env("ELELEM_STUB_SCRIPT", &script)
        .env_remove("ELELEM_SANDBOX")
        .env_remove("XDG_DATA_HOME")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null());
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["type"] == "result" && l["id"] == "t1")
        .map(|l| l["result"].clone())
        .unwrap_or_else(|| panic!("no result: {}", String::from_utf8_lossy(&out.stderr)))
}

/// A listening socket at `path` (its folder made), kept open by the returned listener.
fn listen(path: &Path) -> UnixListener {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    UnixListener::bind(path).unwrap()
}

/// A Python snippet that connects to each of `paths` (a leading `@`: an abstract name) and
/// prints `connected PATH` or `refused PATH`.
fn connect_each(paths: &[String]) -> String {
    let list: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    format!(
        r#"python3 - <<'EOF'
import socket
for path in [{}]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect("\0" + path[1:] if path.startswith("@") else path)
        print("connected", path)
    except OSError as e:
        print("refused", path, e.strerror)
EOF"#,
        list.join(", ")
    )
}

#[test]
fn a_contained_command_loses_the_session_sockets_and_cannot_reach_them_by_path() {
    if !supported() || !has_python() {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = outside.path().canonicalize().unwrap();
    // SAFETY: getuid only returns a number.
    let uid = unsafe { libc::getuid() };
    let agent: PathBuf = out.join("ssh-agent/agent.1");
    let tmux = out.join(format!("tmux/tmux-{uid}/default"));
    let docker = out.join("docker.sock");
    let runtime = out.join("run");
    let bus = runtime.join("bus");
    let _listeners: Vec<UnixListener> = [&agent, &tmux, &docker, &bus].into_iter().map(|p| listen(p)).collect();
    let text = |p: &Path| p.display().to_string();
    let env = [
        ("TMUX", format!("{},4242,0", text(&tmux))),
        ("TMUX_PANE", "%1".to_string()),
        ("TMUX_TMPDIR", text(&out.join("tmux"))),
        ("SSH_AUTH_SOCK", text(&agent)),
        ("DOCKER_HOST", format!("unix://{}", text(&docker))),
        ("XDG_RUNTIME_DIR", text(&runtime)),
        ("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={},guid=0", text(&bus))),
        ("DISPLAY", ":99".to_string()),
    ];
    let names = "TMUX|TMUX_PANE|SSH_AUTH_SOCK|DOCKER_HOST|DBUS_SESSION_BUS_ADDRESS|DISPLAY";
    let paths: Vec<String> = [&agent, &tmux, &docker, &bus].into_iter().map(|p| text(p)).collect();
    let command = format!("env | grep -E '^({names})=' || echo 'no socket variables'\n{}", connect_each(&paths));
    let result = execute(project.path(), &[], &env, &command);
    let content = result["content"].as_str().unwrap_or_default();
    assert!(content.contains("no socket variables"), "{result}");
    for path in &paths {
        assert!(content.contains(&format!("refused {path}")), "{path} was reached: {result}");
    }
    // Outside the sandbox (`--sandbox off`, the user's own choice) they stay.
    let result = execute(project.path(), &["--sandbox", "off", "--yolo"], &env, &command);
    let content = result["content"].as_str().unwrap_or_default();
    assert!(content.contains("SSH_AUTH_SOCK=") && content.contains(&format!("connected {}", text(&agent))), "{result}");
}

/// With the network on there is no network namespace: the host's abstract sockets (an X
/// server's, a session bus's) are reached only if Landlock scopes them (ABI 6).
#[test]
fn an_abstract_socket_outside_is_refused_even_with_the_network_on() {
    if !supported() || !has_python() {
        return;
    }
    // SAFETY: landlock_create_ruleset with the VERSION flag only returns a number.
    let abi = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
    if abi < 6 {
        eprintln!("skipped: Landlock ABI {abi} < 6 has no scoping of abstract sockets");
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let name = format!("elelem-test-{}-{}", std::process::id(), line!());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let _listener = UnixListener::bind_addr(&address).unwrap();
    let project = tempfile::tempdir().unwrap();
    let result = execute(project.path(), &["--sandbox-network"], &[], &connect_each(&[format!("@{name}")]));
    let content = result["content"].as_str().unwrap_or_default();
    assert!(content.contains(&format!("refused @{name}")), "{result}");
}

#[test]
fn dev_shm_is_not_writable_in_read_only_mode() {
    if !supported() || !Path::new("/dev/shm").is_dir() {
        return;
    }
    let project = tempfile::tempdir().unwrap();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let file = PathBuf::from(format!("/dev/shm/elelem-test-{}-{nanos}", std::process::id()));
    let command = format!("echo x > {}", file.display());
    let result = execute(project.path(), &["--sandbox", "read-only"], &[], &command);
    let written = file.exists();
    let _ = std::fs::remove_file(&file);
    assert!(!written, "a read-only command wrote to /dev/shm: {result}");
    assert!(result["exit_status"].as_i64().is_some_and(|s| s != 0), "{result}");
    // In workspace-write mode it may (Python's multiprocessing, for one, needs it).
    let result = execute(project.path(), &[], &[], &command);
    let written = file.exists();
    let _ = std::fs::remove_file(&file);
    assert!(written && result["exit_status"] == 0, "{result}");
}
