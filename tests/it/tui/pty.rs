//! End-to-end: the real binary in a pseudo-terminal (portable-pty), its screen read with
//! vt100. Types prompts, watches the reply, tool row and thinking, opens the context panel,
//! interrupts, resizes, and checks every exit path restores the terminal.

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the app asked of the terminal besides drawing: window titles (never allowed, `.0`),
/// what it put on the clipboard through OSC 52 (`.1`, base64) and whether focus reporting
/// (`CSI ? 1004 h/l`) is on (`.2`).
#[derive(Default)]
pub(crate) struct Titles(pub(crate) Vec<Vec<u8>>, pub(crate) Vec<Vec<u8>>, Option<bool>);

impl vt100::Callbacks for Titles {
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _ty: &[u8], data: &[u8]) {
        self.1.push(data.to_vec());
    }
    fn unhandled_csi(&mut self, _: &mut vt100::Screen, i1: Option<u8>, _: Option<u8>, params: &[&[u16]], c: char) {
        if i1 == Some(b'?') && params.contains(&&[1004u16][..]) {
            self.2 = Some(c == 'h');
        }
    }
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.0.push(title.to_vec());
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.0.push(name.to_vec());
    }
}

pub(crate) type Screen = Arc<Mutex<vt100::Parser<Titles>>>;

pub(crate) struct Tui {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    pub(crate) screen: Screen,
    _dir: tempfile::TempDir,
}

fn nz(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap()
}

impl Tui {
    pub(crate) fn start(script: Value, rows: u16, cols: u16, env: &[(&str, &str)]) -> Tui {
        Self::start_binary(env!("CARGO_BIN_EXE_elelem").as_ref(), script, rows, cols, env)
    }

    /// The test harness in `examples/faulty_tui.rs` (built by `cargo test`): the real app
    /// plus tools that panic on purpose.
    fn start_faulty(script: Value, rows: u16, cols: u16) -> Tui {
        let exe = std::env::current_exe().unwrap();
        let examples = exe.parent().and_then(|deps| deps.parent()).unwrap().join("examples");
        Self::start_binary(&examples.join("faulty_tui"), script, rows, cols, &[])
    }

    fn start_binary(binary: &std::path::Path, script: Value, rows: u16, cols: u16, env: &[(&str, &str)]) -> Tui {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# Pty demo\n\nHello.\n").unwrap();
        Self::launch(binary, dir, script, rows, cols, env, &[])
    }

    /// The real binary again in the project (and home) of an earlier run, with `args`.
    pub(crate) fn start_in(dir: tempfile::TempDir, script: Value, rows: u16, cols: u16, args: &[&str]) -> Tui {
        Self::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, script, rows, cols, &[], args)
    }

    pub(crate) fn launch(
        binary: &std::path::Path,
        dir: tempfile::TempDir,
        script: Value,
        rows: u16,
        cols: u16,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Tui {
        Self::launch_answering(binary, dir, script, (rows, cols), env, args, &[])
    }

    /// `launch`, with a terminal that answers each query in `answers` (the bytes the app
    /// writes, the bytes it gets back) besides the cursor position.
    pub(crate) fn launch_answering(
        binary: &std::path::Path,
        dir: tempfile::TempDir,
        script: Value,
        (rows, cols): (u16, u16),
        env: &[(&str, &str)],
        args: &[&str],
        answers: &[(&'static [u8], &'static [u8])],
    ) -> Tui {
        let answers = answers.to_vec();
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let pair = native_pty_system().openpty(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }).unwrap();
        let mut cmd = CommandBuilder::new(binary);
        cmd.args(args);
        cmd.cwd(dir.path());
        cmd.env("TERM", "xterm-256color");
        cmd.env("ELELEM_SANDBOX", "off");
        cmd.env("RUST_BACKTRACE", "0");
        cmd.env("HOME", dir.path());
        cmd.env("XDG_DATA_HOME", dir.path().join("data"));
        cmd.env("ELELEM_STUB_SCRIPT", &script_path);
        cmd.env_remove("ANTHROPIC_API_KEY");
        cmd.env_remove("OPENAI_API_KEY");
        cmd.env("OLLAMA_HOST", "http://127.0.0.1:9");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let screen: Screen =
            Arc::new(Mutex::new(vt100::Parser::new_with_callbacks(nz(rows), nz(cols), 0, Titles::default())));
        let (s, w) = (screen.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let bytes = &buf[..n];
                // Answer a cursor-position query, as a real terminal would.
                if bytes.windows(4).any(|w| w == b"\x1b[6n") {
                    let _ = w.lock().unwrap().write_all(b"\x1b[1;1R");
                }
                for (query, answer) in &answers {
                    if bytes.windows(query.len()).any(|w| w == *query) {
                        let _ = w.lock().unwrap().write_all(answer);
                    }
                }
                s.lock().unwrap().process(bytes);
            }
        });
        Tui { child, master: pair.master, writer, screen, _dir: dir }
    }

    pub(crate) fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    pub(crate) fn send(&self, bytes: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    pub(crate) fn wait_for(&self, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.contents().contains(what) {
                return;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        panic!("timed out waiting for {what:?}; screen:\n{}", self.contents());
    }

    /// Waits until the open dialog (approval, accept plan) takes answers: its last row
    /// lists them instead of saying "typing goes to the prompt" (`popups/approval.rs`).
    pub(crate) fn wait_armed(&self) {
        wait_for_screen(self, "the dialog to take answers", |screen| {
            screen.contains("[1] yes") && !screen.contains("typing goes to the prompt")
        });
    }

    pub(crate) fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(200)); // let the reader drain
                return status;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        panic!("the app did not exit; screen:\n{}", self.contents());
    }

    fn resize(&self, rows: u16, cols: u16) {
        self.master.resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }).unwrap();
        self.screen.lock().unwrap().screen_mut().set_size(nz(rows), nz(cols));
    }

    /// Alternate screen, bracketed paste, mouse reporting and raw mode are all off again.
    pub(crate) fn assert_restored(&self) {
        let parser = self.screen.lock().unwrap();
        assert_ne!(parser.callbacks().2, Some(true), "focus reporting still on");
        let screen = parser.screen();
        assert!(!screen.alternate_screen(), "still on the alternate screen");
        assert!(!screen.bracketed_paste(), "bracketed paste still on");
        assert_eq!(screen.mouse_protocol_mode(), vt100::MouseProtocolMode::None, "mouse still captured");
        assert!(!screen.hide_cursor(), "cursor still hidden");
        let fd = self.master.as_raw_fd().unwrap();
        // SAFETY: tcgetattr fills a plain C struct for a descriptor we own.
        let mut termios: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut termios) }, 0);
        let lflag = termios.c_lflag;
        assert!(lflag & libc::ICANON != 0 && lflag & libc::ECHO != 0, "raw mode not undone");
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub(crate) fn steps_with_tool() -> Value {
    json!([
        {"events": [
            {"type": "thinking", "text": "Pondering the readme deeply."},
            {"type": "doing", "id": "t1", "name": "read", "arguments": {"path": "README.md"}}
        ]},
        {"events": [{"type": "saying", "text": "The project is called **Pty demo**.\n\nAll good."}]}
    ])
}

#[test]
fn chat_shows_reply_tool_row_thinking_and_context_panel() {
    let mut tui = Tui::start(steps_with_tool(), 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("what is this?\r");
    tui.wait_for("All good.");
    let screen = tui.contents();
    assert!(screen.contains("what is this?"), "{screen}");
    assert!(screen.contains("Pondering the readme deeply."), "{screen}");
    assert!(screen.contains("+ #1 read README.md"), "{screen}");
    assert!(screen.contains("Pty demo"), "{screen}");
    tui.send("\x0f"); // Ctrl+O
    tui.wait_for("┌ context · ~"); // its title, as long as fits
    tui.wait_for("system prompt");
    tui.send("\x04"); // Ctrl+D
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

#[test]
fn esc_interrupts_a_slow_stream_and_the_prompt_comes_back() {
    let slow: Vec<Value> =
        (0..40).map(|i| json!({"type": "saying", "text": format!("chunk{i} "), "delay_ms": 150})).collect();
    let script = json!([{"events": slow}, {"events": [{"type": "saying", "text": "second answer"}]}]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("talk slowly\r");
    tui.wait_for("chunk1 ");
    tui.send("\x1b");
    tui.wait_for("interrupted");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!tui.contents().contains("chunk39"), "the stream went on after Esc");
    tui.send("again\r");
    tui.wait_for("second answer");
    tui.send("\x03\x03"); // Ctrl+C twice quits
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// Issue 30: Tab to the tool log to watch, Esc to go back: the turn goes on.
#[test]
fn esc_in_the_tool_log_during_a_turn_does_not_interrupt() {
    let slow: Vec<Value> =
        (0..12).map(|i| json!({"type": "saying", "text": format!("chunk{i} "), "delay_ms": 150})).collect();
    let mut tui = Tui::start(json!([{"events": slow}]), 24, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("talk slowly\r");
    tui.wait_for("chunk1 ");
    tui.send("\t");
    std::thread::sleep(Duration::from_millis(100));
    tui.send("\t"); // the tool log
    tui.wait_for("Esc back to prompt");
    tui.send("\x1b");
    tui.wait_for("chunk11");
    let screen = tui.contents();
    assert!(!screen.contains("interrupted"), "{screen}");
    tui.send("\x03\x03");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// Issue 30: `◓ thinking` used to stay after a `!command` ended (it runs no turn).
#[test]
fn the_status_is_idle_after_a_bang_command_ends() {
    let mut tui = Tui::start(json!([]), 24, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("!echo bang-$((1+1))\r");
    tui.wait_for("bang-2");
    std::thread::sleep(Duration::from_millis(400));
    let screen = tui.contents();
    let status = screen.lines().last().unwrap_or_default().to_string();
    assert!(status.contains("idle") && !status.contains("thinking"), "{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// Issue 30, and issue 38: the mouse is captured for clicks, the wheel and drags with a
/// button down (never all motion), so the conversation's own selection works and the
/// terminal's Shift-drag still does; the first screen says how to copy.
#[test]
fn mouse_capture_is_clicks_wheel_and_drags_and_the_start_says_how_to_copy() {
    let mut tui = Tui::start(json!([]), 24, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.wait_for("to copy: drag in the conversation");
    {
        let parser = tui.screen.lock().unwrap();
        let screen = parser.screen();
        assert_eq!(screen.mouse_protocol_mode(), vt100::MouseProtocolMode::ButtonMotion);
        assert_eq!(screen.mouse_protocol_encoding(), vt100::MouseProtocolEncoding::Sgr);
    }
    tui.send("/mouse\r");
    tui.wait_for("mouse capture off");
    assert_eq!(tui.screen.lock().unwrap().screen().mouse_protocol_mode(), vt100::MouseProtocolMode::None);
    tui.send("/mouse\r");
    tui.wait_for("mouse capture on");
    assert_eq!(tui.screen.lock().unwrap().screen().mouse_protocol_mode(), vt100::MouseProtocolMode::ButtonMotion);
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// Issue 30: `elelem "prompt"` starts the app with that prompt sent first.
#[test]
fn a_prompt_on_the_command_line_is_sent_first() {
    let dir = tempfile::tempdir().unwrap();
    let script = json!([{"events": [{"type": "saying", "text": "answered the first prompt"}]}]);
    let mut tui = Tui::start_in(dir, script, 24, 100, &["explain", "this project"]);
    tui.wait_for("answered the first prompt");
    assert!(tui.contents().contains("explain this project"), "{}", tui.contents());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

#[test]
fn resize_reflows_the_layout() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    let narrow = tui.contents();
    let first = narrow.lines().next().unwrap_or("").to_string();
    assert!(first.contains("conversation") && !first.contains("tools"), "narrow: panes stacked\n{narrow}");
    tui.resize(40, 130);
    tui.wait_for("tools · 0");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let wide = tui.contents();
        let first = wide.lines().next().unwrap_or("").to_string();
        if first.contains("conversation") && first.contains("tools") {
            break;
        }
        assert!(Instant::now() < deadline, "wide: panes side by side\n{wide}");
        std::thread::sleep(Duration::from_millis(50));
    }
    tui.send("/exit\r");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

#[test]
fn control_sequences_from_the_model_never_reach_the_terminal() {
    let script = json!([{"events": [{"type": "saying", "text": "safe\u{1b}]0;pwned\u{7} text\u{1b}[2J still here"}]}]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("hi\r");
    tui.wait_for("still here");
    assert!(tui.contents().contains("safe text"), "{}", tui.contents());
    assert!(tui.screen.lock().unwrap().callbacks().0.is_empty(), "the title was changed");
    tui.send("\x04");
    tui.wait_exit();
}

#[test]
fn sigterm_restores_the_terminal() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    let pid = tui.child.process_id().unwrap();
    std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status().unwrap();
    tui.wait_exit();
    tui.assert_restored();
}

#[test]
fn a_slow_ollama_probe_does_not_delay_the_first_frame() {
    // An "Ollama" that accepts the connection and never answers: the default-provider probe
    // waits its whole budget. The prompt must be on screen before that.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host = format!("http://{}", listener.local_addr().unwrap());
    let held = std::thread::spawn(move || listener.accept().map(|(socket, _)| socket));
    let tui = Tui::start(steps_with_tool(), 24, 80, &[("OLLAMA_HOST", host.as_str())]);
    tui.wait_for("Ask elelem");
    let first = tui.contents();
    assert!(!first.contains("stub-demo"), "the first frame waited for the provider:\n{first}");
    tui.wait_for("stub-demo");
    drop(held);
}

#[test]
fn a_startup_error_after_the_first_frame_restores_the_terminal_and_is_printed() {
    let mut tui = Tui::start(json!({"not": "a script"}), 24, 80, &[]);
    let status = tui.wait_exit();
    assert!(!status.success());
    tui.assert_restored();
    assert!(tui.contents().contains("elelem:"), "{}", tui.contents());
}

#[test]
fn an_external_sigint_restores_the_terminal_and_exits_130() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    let pid = tui.child.process_id().unwrap();
    std::process::Command::new("kill").arg("-INT").arg(pid.to_string()).status().unwrap();
    let status = tui.wait_exit();
    assert_eq!(status.exit_code(), 130);
    tui.assert_restored();
}

#[test]
fn a_stop_signal_as_soon_as_the_screen_changes_still_restores_the_terminal() {
    // The signal lands while the first frame is drawn: the app must already listen.
    for signal in ["-QUIT", "-TERM"] {
        let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !tui.screen.lock().unwrap().screen().alternate_screen() {
            assert!(Instant::now() < deadline, "the app never took the screen");
            std::thread::sleep(Duration::from_micros(200));
        }
        let pid = tui.child.process_id().unwrap();
        std::process::Command::new("kill").arg(signal).arg(pid.to_string()).status().unwrap();
        let status = tui.wait_exit();
        assert_eq!(status.exit_code(), if signal == "-QUIT" { 131 } else { 143 }, "{signal}");
        tui.assert_restored();
    }
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

#[test]
fn sigquit_restores_the_terminal_stops_every_command_and_exits_131() {
    let mark = format!("ELELEM_PTY_QUIT_{}", std::process::id());
    let command = format!("export {mark}=1; sleep 1000 & sleep 1000 & sleep 1000");
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 24, 80, &[], &["--yolo"]);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    let deadline = Instant::now() + Duration::from_secs(20);
    while marked_processes(&mark) < 3 {
        assert!(Instant::now() < deadline, "the three sleeps never ran; screen:\n{}", tui.contents());
        std::thread::sleep(Duration::from_millis(30));
    }
    let pid = tui.child.process_id().unwrap();
    std::process::Command::new("kill").arg("-QUIT").arg(pid.to_string()).status().unwrap();
    let status = tui.wait_exit();
    assert_eq!(status.exit_code(), 131);
    tui.assert_restored();
    let deadline = Instant::now() + Duration::from_secs(10);
    while marked_processes(&mark) > 0 {
        assert!(Instant::now() < deadline, "{} commands left running", marked_processes(&mark));
        std::thread::sleep(Duration::from_millis(30));
    }
}

#[test]
fn an_uncaught_panic_restores_the_terminal_before_printing_and_exits() {
    let script = json!([{"events": [{"type": "doing", "id": "p1", "name": "explode_uncaught", "arguments": {}}]}]);
    let mut tui = Tui::start_faulty(script, 24, 80);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    let status = tui.wait_exit();
    assert!(!status.success());
    tui.assert_restored();
    assert!(tui.contents().contains("uncaught test panic"), "{}", tui.contents());
}

#[test]
fn a_panic_in_a_blocking_tool_fails_the_call_and_the_app_keeps_running() {
    let script = json!([
        {"events": [{"type": "doing", "id": "p1", "name": "explode", "arguments": {}}]},
        {"events": [{"type": "saying", "text": "still here after the panic"}]}
    ]);
    let mut tui = Tui::start_faulty(script, 24, 100);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    tui.wait_for("still here after the panic");
    assert!(tui.contents().contains("x #1 explode"), "{}", tui.contents());
    assert!(tui.child.try_wait().unwrap().is_none(), "the app exited");
    {
        let parser = tui.screen.lock().unwrap();
        assert!(parser.screen().alternate_screen(), "the terminal was restored while the app runs");
    }
    let fd = tui.master.as_raw_fd().unwrap();
    // SAFETY: tcgetattr fills a plain C struct for a descriptor we own.
    let mut termios: libc::termios = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::tcgetattr(fd, &mut termios) }, 0);
    assert!(termios.c_lflag & libc::ICANON == 0, "raw mode was turned off while the app runs");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn approval_dialog_asks_before_a_write_and_no_refuses_it() {
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "hi\n"}}]},
        {"events": [{"type": "saying", "text": "first done"}]},
        {"events": [{"type": "doing", "id": "w2", "name": "write", "arguments": {"path": "other.txt", "content": "no\n"}}]},
        {"events": [{"type": "saying", "text": "second done"}]}
    ]);
    let mut tui = Tui::start(script, 30, 100, &[]);
    tui.wait_for("Ask elelem");
    tui.send("write a file\r");
    tui.wait_for("Allow write?");
    tui.wait_for("waiting for approval"); // the row of the call asked about
    tui.wait_armed(); // an answer typed at once would be typing, not an answer
    tui.send("1");
    tui.wait_for("first done");
    assert_eq!(std::fs::read_to_string(tui._dir.path().join("new.txt")).unwrap(), "hi\n");
    tui.send("another\r");
    tui.wait_for("Allow write?");
    tui.wait_armed(); // typed "another" just before: the dialog waits for a pause
    tui.send("3");
    tui.wait_for("second done");
    assert!(!tui._dir.path().join("other.txt").exists());
    assert!(tui.contents().contains("x #2 write other.txt"), "{}", tui.contents());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn continue_shows_the_resumed_session_in_the_conversation_and_tool_log() {
    let mut tui = Tui::start(steps_with_tool(), 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send("what is this project?\r");
    tui.wait_for("All good.");
    tui.send("\x04");
    tui.wait_exit();
    let history = tui._dir.path().join("data/elelem/history");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&history).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "the input history is the user's alone");
    // The same home and project, a new process.
    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut again = Tui::start_in(dir, json!([]), 30, 110, &["--continue"]);
    again.wait_for("Resumed session");
    let screen = again.contents();
    assert!(screen.contains("(1 turn, "), "one turn, not `1 turns`:\n{screen}");
    assert!(screen.contains("what is this project?"), "{screen}");
    assert!(screen.contains("All good."), "{screen}");
    assert!(screen.contains("read README.md"), "{screen}");
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn copy_puts_the_last_reply_on_the_clipboard_through_osc52() {
    let script = json!([{"events": [{"type": "saying", "text": "copy me"}]}]);
    let tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("hello\r");
    tui.wait_for("copy me");
    tui.send("/copy\r");
    tui.wait_for("Copied the last reply (1 line)");
    let copied = tui.screen.lock().unwrap().callbacks().1.clone();
    assert_eq!(copied, vec![b"Y29weSBtZQ==".to_vec()], "base64 of the reply");
}

#[test]
fn a_refusal_with_a_reason_reaches_the_model() {
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "hi\n"}}]},
        {"events": [{"type": "saying", "text": "understood"}]}
    ]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("write a file\r");
    tui.wait_for("Allow write?");
    tui.wait_armed();
    tui.send("4");
    tui.wait_for("Reason:");
    tui.send("not in this repo\r");
    tui.wait_for("understood");
    // The failed call's line shows the refusal the model got, reason included.
    tui.wait_for("User denied permission: write. Reason: not in this repo");
    assert!(!tui._dir.path().join("new.txt").exists());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn a_zoomed_pane_is_remembered_in_the_data_directory() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap();
    let mut tui = Tui::start(steps_with_tool(), 40, 120, &[("XDG_DATA_HOME", data_dir)]);
    tui.wait_for("Ask elelem");
    tui.send("\t\t"); // focus the tool log
    tui.send("\x1a"); // Ctrl+Z: zoom it
    tui.wait_for("no tool calls yet");
    let path = data.path().join("elelem/tui.json");
    // The preference file is written when the key is handled, the zoomed frame drawn after.
    let zoomed = |tui: &Tui| {
        let first = tui.contents().lines().next().unwrap_or("").to_string();
        first.contains("tools") && !first.contains("conversation")
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(path.exists() && zoomed(&tui)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
    assert!(zoomed(&tui), "{}", tui.contents());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);

    let mut again = Tui::start(steps_with_tool(), 40, 120, &[("XDG_DATA_HOME", data_dir)]);
    again.wait_for("Ask elelem");
    let first = again.contents().lines().next().unwrap_or("").to_string();
    assert!(first.contains("tools") && !first.contains("conversation"), "{}", again.contents());
    again.send("\x04");
    assert!(again.wait_exit().success());
}

#[test]
fn focus_reporting_is_on_while_the_app_runs_and_off_after() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    assert_eq!(tui.screen.lock().unwrap().callbacks().2, Some(true), "the app asks for focus events");
    tui.send("\x1b[O\x1b[I"); // focus lost, gained: events the app takes quietly
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
    assert_eq!(tui.screen.lock().unwrap().callbacks().2, Some(false));
}

#[test]
fn context_edit_opens_the_editor_on_the_real_terminal_and_saves_back() {
    let script = json!([{"events": [{"type": "saying", "text": "first reply"}]}]);
    // Reads a line from the terminal: only works once the app gave the terminal back
    // (raw mode off, its key reader stopped).
    let editor = r#"sh -c 'printf "EDITOR RUNNING\n"; read answer; printf "%s" "$answer" > "$1"' sh"#;
    let mut tui = Tui::start(script, 24, 100, &[("VISUAL", editor)]);
    tui.wait_for("Ask elelem");
    tui.send("one\r");
    tui.wait_for("first reply");
    tui.send("/context edit 2\r");
    tui.wait_for("EDITOR RUNNING");
    assert!(!tui.screen.lock().unwrap().screen().alternate_screen(), "the editor gets the main screen");
    tui.send("typed in the editor\r");
    tui.wait_for("Message 2 replaced.");
    assert!(tui.screen.lock().unwrap().screen().alternate_screen(), "the app took the screen back");
    tui.send("\x0f"); // Ctrl+O: the context panel
    tui.wait_for("typed in the editor");
    tui.send("\x04");
    tui.wait_exit();
    tui.assert_restored();
}

#[test]
fn resume_without_an_id_opens_a_picker_and_the_chosen_session_comes_back() {
    let mut tui = Tui::start(json!([{"events": [{"type": "saying", "text": "older answer"}]}]), 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send("the older question\r");
    tui.wait_for("older answer");
    tui.send("\x04");
    tui.wait_exit();
    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut newer = Tui::start_in(dir, json!([{"events": [{"type": "saying", "text": "newer answer"}]}]), 30, 110, &[]);
    newer.wait_for("Ask elelem");
    newer.send("the newer question\r");
    newer.wait_for("newer answer");
    newer.send("\x04");
    newer.wait_exit();

    let dir = std::mem::replace(&mut newer._dir, tempfile::tempdir().unwrap());
    let mut picker = Tui::start_in(dir, json!([]), 30, 110, &["--resume"]);
    picker.wait_for("resume a session · type to filter");
    picker.wait_for("2 of 2");
    let screen = picker.contents();
    let row = screen.lines().find(|l| l.contains("the older question")).expect("the older session is listed");
    assert!(row.contains("1 turn "), "turns: {row}");
    let date = row.split_whitespace().nth(1).unwrap_or_default();
    assert!(date.len() == 10 && date.as_bytes()[4] == b'-', "a date: {row}");
    // The newest first, with a preview of its last exchange.
    assert!(screen.find("the newer question").unwrap() < screen.find("the older question").unwrap(), "{screen}");
    assert!(screen.contains("› the newer question") && screen.contains("‹ newer answer"), "{screen}");
    // Typing filters.
    picker.send("older");
    picker.wait_for("1 of 2");
    assert!(picker.contents().contains("‹ older answer"), "{}", picker.contents());
    picker.send("\r");
    picker.wait_for("Resumed session");
    let screen = picker.contents();
    assert!(screen.contains("the older question") && screen.contains("older answer"), "{screen}");
    assert!(!screen.contains("newer answer"), "{screen}");
    picker.send("\x04");
    picker.wait_exit();
    picker.assert_restored();
    // The new session the picker opened over, left before its first turn, left no file.
    let sessions = picker._dir.path().join("data/elelem/sessions");
    let files: Vec<_> = std::fs::read_dir(sessions).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
}

#[test]
fn slash_resume_in_the_app_switches_to_the_chosen_session() {
    let mut tui = Tui::start(json!([{"events": [{"type": "saying", "text": "first answer"}]}]), 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send("the first question\r");
    tui.wait_for("first answer");
    tui.send("\x04");
    tui.wait_exit();
    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut again =
        Tui::start_in(dir, json!([{"events": [{"type": "saying", "text": "second answer"}]}]), 30, 110, &[]);
    again.wait_for("Ask elelem");
    again.send("a second question\r");
    again.wait_for("second answer");
    again.send("/resume\r");
    again.wait_for("resume a session · type to filter");
    again.send("first");
    again.wait_for("1 of 2");
    again.send("\r");
    again.wait_for("Resumed session");
    let screen = again.contents();
    assert!(screen.contains("the first question") && screen.contains("first answer"), "{screen}");
    assert!(!screen.contains("second answer"), "the other session is gone from the screen:\n{screen}");
    again.send("\x04");
    assert!(again.wait_exit().success());
    again.assert_restored();
}

#[test]
fn at_picks_a_file_that_is_then_attached_to_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() { println!(\"picked me\"); }\n").unwrap();
    std::fs::write(dir.path().join("src/map.rs"), "// another\n").unwrap();
    let script = json!([{"events": [{"type": "saying", "text": "Read it."}]}]);
    let mut tui = Tui::start_in(dir, script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("explain @src/ma");
    tui.wait_for("files · 2 of");
    tui.wait_for("› src/map.rs");
    tui.send("\x1b[B"); // Down
    tui.wait_for("› src/main.rs");
    tui.send("\t");
    tui.wait_for("explain @src/main.rs");
    tui.send("\r");
    tui.wait_for("Read it.");
    // The model got the file with the prompt: the context's first message holds it.
    tui.send("/context 1\r");
    tui.wait_for("<file path=\"src/main.rs\">");
    tui.wait_for("picked me");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn ctrl_r_finds_a_prompt_of_an_earlier_session_and_sends_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("data/elelem")).unwrap();
    let earlier = ["\"run the unit tests\"", "\"explain the parser\"", "\"list the files\""];
    std::fs::write(dir.path().join("data/elelem/history"), earlier.join("\n") + "\n").unwrap();
    let script = json!([{"events": [{"type": "saying", "text": "Parser explained."}]}]);
    let mut tui = Tui::start_in(dir, script, 24, 80, &[]);
    tui.wait_for("? for help"); // the session (and the history) is ready
    tui.send("draft");
    tui.send("\x12"); // Ctrl+R
    tui.wait_for("history search");
    tui.send("the");
    tui.wait_for("list the files");
    tui.send("\x12");
    tui.wait_for("explain the parser");
    tui.send("\x1b"); // Esc: the draft comes back
    tui.wait_for("draft");
    assert!(!tui.contents().contains("history search"), "{}", tui.contents());
    tui.send("\x12pars\r"); // search again, Enter accepts into the prompt
    tui.wait_for("explain the parser");
    tui.send("\r"); // and Enter sends it
    tui.wait_for("Parser explained.");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// Types `text` one key every 70 ms, as a person typing the next prompt would.
fn type_slowly(tui: &Tui, text: &str) {
    for c in text.chars() {
        tui.send(&c.to_string());
        std::thread::sleep(Duration::from_millis(70));
    }
}

/// The screen row that holds `text`, trimmed.
fn row_with(tui: &Tui, text: &str) -> Option<String> {
    let row = tui.contents().lines().find(|row| row.contains(text))?.to_string();
    Some(row.trim_matches(|c: char| c == '│' || c.is_whitespace()).to_string())
}

#[test]
fn typing_through_two_approvals_answers_neither_and_the_prompt_keeps_every_key() {
    let script = json!([
        {"events": [{"type": "doing", "id": "e1", "name": "execute", "arguments": {"command": "echo one > one.txt"}}]},
        {"events": [{"type": "doing", "id": "e2", "name": "execute", "arguments": {"command": "echo two > two.txt"}}]},
        {"events": [{"type": "saying", "text": "both asked"}]}
    ]);
    let mut tui = Tui::start(script, 30, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("run both\r");
    // The first dialog opens while this is being typed.
    let first = "yes any nay ";
    type_slowly(&tui, first);
    tui.wait_for("Allow execute?");
    let dir = tui._dir.path().to_path_buf();
    assert!(!dir.join("one.txt").exists(), "typing answered the first approval:\n{}", tui.contents());
    assert!(!tui.contents().contains("allowed"), "{}", tui.contents());
    tui.wait_for("typing goes to the prompt");
    // A deliberate answer: a pause, then a digit.
    tui.wait_armed();
    tui.send("1");
    // The second dialog opens while the user goes on typing.
    let second = "and also say hi any day yay";
    type_slowly(&tui, second);
    tui.wait_for("Allow execute?");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !dir.join("one.txt").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dir.join("one.txt").exists(), "the first command ran once allowed");
    assert!(!dir.join("two.txt").exists(), "typing answered the second approval:\n{}", tui.contents());
    assert!(!tui.contents().contains("always allowed"), "{}", tui.contents());
    let typed = format!("{first}{second}");
    let row = row_with(&tui, &typed).unwrap_or_else(|| panic!("the prompt lost keys:\n{}", tui.contents()));
    assert!(row.ends_with(&typed), "{row:?}");
    let before = row[..row.len() - typed.len()].chars().last();
    assert!(before.is_none_or(|c| !c.is_alphanumeric()), "a key too many in the prompt: {row:?}");
    // No for the second, deliberately; the typed prompt is still there afterwards.
    tui.wait_armed();
    tui.send("3");
    tui.wait_for("both asked");
    assert!(!dir.join("two.txt").exists());
    assert!(row_with(&tui, &typed).is_some_and(|row| row.ends_with(&typed)), "{}", tui.contents());
    tui.send("\x03"); // clears the prompt
    tui.send("\x04");
    tui.wait_exit();
}

/// The background colour of the status line (the row holding `stub-demo`), once drawn.
pub(crate) fn status_background(tui: &Tui) -> vt100::Color {
    tui.wait_for("stub-demo");
    let parser = tui.screen.lock().unwrap();
    let screen = parser.screen();
    let rows = screen.size().0.get();
    let row = (0..rows).rev().find(|&row| screen.contents_between(row, 0, row + 1, 0).contains("stub-demo")).unwrap();
    screen.cell(row, 1).unwrap().bgcolor()
}

/// The background of the bottom row's second cell (the status line, before the session is
/// ready and names its provider there).
pub(crate) fn bottom_background(tui: &Tui) -> vt100::Color {
    let parser = tui.screen.lock().unwrap();
    let screen = parser.screen();
    screen.cell(screen.size().0.get() - 1, 1).unwrap().bgcolor()
}

/// The light palette's status line background (`Theme::status`), and the dark one's.
pub(crate) const LIGHT_STATUS: vt100::Color = vt100::Color::Rgb(0xe4, 0xe7, 0xec);
pub(crate) const DARK_STATUS: vt100::Color = vt100::Color::Rgb(30, 34, 42);

/// The environment, the arguments, and the status line background they should give.
type ThemeCase<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], vt100::Color);

#[test]
fn a_light_terminal_gets_the_light_palette_by_setting_flag_or_colorfgbg() {
    let cases: [ThemeCase; 6] = [
        (&[("ELELEM_THEME", ""), ("COLORFGBG", "")], &[], DARK_STATUS),
        (&[("ELELEM_THEME", "light"), ("COLORFGBG", "")], &[], LIGHT_STATUS),
        (&[("ELELEM_THEME", ""), ("COLORFGBG", "0;15")], &[], LIGHT_STATUS),
        (&[("ELELEM_THEME", "dark"), ("COLORFGBG", "0;15")], &[], DARK_STATUS),
        (&[("ELELEM_THEME", "dark"), ("COLORFGBG", "")], &["--theme", "light"], LIGHT_STATUS),
        (&[("ELELEM_THEME", "light"), ("COLORFGBG", "0;15")], &["--theme", "dark"], DARK_STATUS),
    ];
    for (env, args, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps_with_tool(), 24, 80, env, args);
        assert_eq!(status_background(&tui), want, "{env:?} {args:?}");
        tui.send("\x03\x03");
        tui.wait_exit();
    }
}

#[test]
fn an_unknown_theme_flag_is_refused_with_the_choices() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_elelem")).args(["--theme", "pink"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("light, dark or auto"), "{err}");
}

/// Waits until the screen passes `test`, and returns that screen.
fn wait_for_screen(tui: &Tui, what: &str, test: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let screen = tui.contents();
        if test(&screen) {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("timed out waiting for {what}; screen:\n{}", tui.contents());
}

/// Issue 30: a running command's latest lines show under its line in the conversation
/// while it runs (not only in the tool log), and its final tail when it ends.
#[test]
fn a_running_command_shows_its_latest_lines_under_its_line_in_the_conversation() {
    let command = "for i in 1 2 3; do echo line$i; sleep 1; done";
    let steps = json!([
        {"events": [{"type": "doing", "id": "c1", "name": "execute", "arguments": {"command": command}}]},
        {"events": [{"type": "saying", "text": "all done"}]}
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut tui = Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, steps, 40, 120, &[], &["--yolo"]);
    tui.wait_for("Ask elelem");
    tui.send("go\r");
    // The conversation's rows start with its border; a command's output sits under a gutter.
    let in_conversation = |screen: &str, text: &str| screen.lines().any(|l| l.starts_with(&format!("│  │ {text}")));
    let screen = wait_for_screen(&tui, "line2 in the conversation", |s| in_conversation(s, "line2"));
    assert!(in_conversation(&screen, "line1"), "{screen}");
    assert!(screen.lines().any(|l| l.starts_with("│⋯ #1 execute for i in")), "still running:\n{screen}");
    let screen = wait_for_screen(&tui, "the reply", |s| s.contains("all done"));
    assert!(screen.lines().any(|l| l.starts_with("│+ #1 execute")), "{screen}");
    assert!(in_conversation(&screen, "line3"), "the final tail:\n{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// Issue 30: the first screen says what was found (the demo provider, and why), and on quit
/// after a turn the normal screen says how to resume.
#[test]
fn the_first_screen_welcomes_and_quitting_after_a_turn_says_how_to_resume() {
    let steps = json!([{"events": [{"type": "saying", "text": "hello back"}]}]);
    let mut tui = Tui::start(steps, 40, 120, &[]);
    tui.wait_for("No API key found");
    tui.wait_for("not their tool output");
    tui.wait_for("Try: explain this project");
    tui.send("hello\r");
    tui.wait_for("hello back");
    assert!(!tui.contents().contains("Try: explain"), "the prompt took the welcome away:\n{}", tui.contents());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
    let screen = tui.contents();
    assert!(screen.contains("elelem --continue") && screen.contains("elelem --resume "), "{screen}");
}

/// Issue 31: a plan the model set stays on screen, pinned above the prompt, after a reply of
/// 80 paragraphs has scrolled the conversation past it.
#[test]
fn a_plan_stays_on_screen_after_a_long_reply() {
    let steps: Vec<Value> =
        [("Read the code", "completed"), ("Fix the bug", "in_progress"), ("Run the tests", "pending")]
            .iter()
            .map(|(step, status)| json!({"step": step, "status": status}))
            .collect();
    let reply: String = (1..=80).map(|i| format!("Paragraph number {i}.\n\n")).collect();
    let script = json!([
        {"events": [{"type": "doing", "id": "p1", "name": "plan", "arguments": {"steps": steps}}]},
        {"events": [{"type": "saying", "text": reply}]}
    ]);
    let mut tui = Tui::start(script, 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("fix it\r");
    tui.wait_for("Paragraph number 80.");
    let screen = tui.contents();
    assert!(!screen.contains("Paragraph number 1."), "the reply scrolled: {screen}");
    for step in ["✓ Read the code", "▸ Fix the bug", "○ Run the tests", "plan 1/3"] {
        assert!(screen.contains(step), "{step} missing:\n{screen}");
    }
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// Issue 31: a `task` call's sub-agent shows its running call nested under the task's row
/// in the tool log, and Esc stops it with the turn; the next prompt works.
#[test]
fn esc_stops_a_sub_agent_whose_call_is_nested_under_its_task_row() {
    let script = json!([
        {"events": [{"type": "doing", "id": "toolu_task", "name": "task",
                     "arguments": {"description": "count slowly", "prompt": "run the counter"}}]},
        {"events": [{"type": "doing", "id": "c1", "name": "execute",
                     "arguments": {"command": "for i in $(seq 1 300); do echo tick $i; sleep 0.1; done"}}]},
        {"events": [{"type": "saying", "text": "second answer"}]}
    ]);
    let mut tui = Tui::start(script, 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("count\r");
    // The child's call is asked about like the parent's (no sandbox here), the task's row
    // waiting meanwhile.
    tui.wait_for("Allow execute?");
    let screen = tui.contents();
    assert!(screen.contains("↳ · execute for i in"), "the child's call nested:\n{screen}");
    assert!(row_with(&tui, "waiting for approval").is_some_and(|r| r.contains("? #1 task count")), "{screen}");
    assert!(!screen.contains("#2 execute"), "the child's call is not a row of its own:\n{screen}");
    tui.wait_armed();
    tui.send("1");
    wait_for_screen(&tui, "the dialog to close", |s| !s.contains("Allow execute?"));
    tui.send("\x1b");
    tui.wait_for("interrupted");
    tui.send("again\r");
    tui.wait_for("second answer");
    tui.send("\x03\x03");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// A sub-agent survives resume: its calls were recorded under the `task` call, so the
/// resumed session's tool log shows the task row with the child's call nested when
/// expanded, and the child's traffic is not in the model's context.
#[test]
fn a_resumed_session_shows_the_sub_agents_calls_under_its_task_row() {
    let script = json!([
        {"events": [{"type": "doing", "id": "toolu_task", "name": "task",
                     "arguments": {"description": "find the readme", "prompt": "read the readme"}}]},
        {"events": [{"type": "doing", "id": "c1", "name": "read", "arguments": {"path": "README.md"}}]},
        {"events": [{"type": "saying", "text": "the child found it"}]},
        {"events": [{"type": "saying", "text": "parent done"}]}
    ]);
    let mut tui = Tui::start(script, 40, 120, &[]);
    std::fs::write(tui._dir.path().join("README.md"), "# hello\n").unwrap();
    tui.wait_for("Ask elelem");
    tui.send("look\r");
    tui.wait_for("parent done");
    tui.send("\x04");
    assert!(tui.wait_exit().success());

    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut again = Tui::start_in(dir, json!([]), 40, 120, &["--continue"]);
    again.wait_for("Resumed session");
    assert!(row_with(&again, "#1 task").is_some(), "{}", again.contents());
    assert!(!again.contents().contains("#2 read"), "the child's call is no row of its own:\n{}", again.contents());
    // Tab twice: the tool log; Up selects the newest row; Enter expands it.
    again.send("\t");
    again.send("\t");
    again.send("\x1b[A");
    again.send("\r");
    wait_for_screen(&again, "the nested call", |s| s.lines().any(|l| l.contains("↳ + read README.md")));
    again.send("\x1b");
    again.send("\x04");
    assert!(again.wait_exit().success());
    let sessions = again._dir.path().join("data/elelem/sessions");
    let file = std::fs::read_dir(&sessions).unwrap().flatten().next().unwrap().path();
    let text = std::fs::read_to_string(file).unwrap();
    let messages: Vec<&str> = text.lines().filter(|l| l.starts_with(r#"{"type":"messages""#)).collect();
    assert!(messages.iter().all(|l| !l.contains("README.md") && !l.contains("the child found it")), "{messages:?}");
    assert!(text.lines().any(|l| l.starts_with(r#"{"type":"sub_agent","call_id":"toolu_task""#)), "{text}");
}

/// Issue 31 point 4: through the real binary, `@shot.png` in the prompt shows its chip in
/// the conversation, and the context panel (Ctrl+O) lists the image with its pixels and
/// token estimate.
#[test]
fn an_image_mention_shows_a_chip_and_a_context_panel_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x03\x20\0\0\x02\x58\x08\x06\0\0\0".to_vec();
    png.extend([7u8; 1000]);
    std::fs::write(dir.path().join("shot.png"), png).unwrap();
    let script = json!([{"events": [{"type": "saying", "text": "a picture"}]}]);
    let mut tui = Tui::start_in(dir, script, 40, 140, &["what is in @shot.png ?"]);
    tui.wait_for("a picture");
    assert!(tui.contents().contains("[image shot.png 2 KB]"), "{}", tui.contents());
    tui.send("\x0f");
    tui.wait_for("[image shot.png 2 KB] 800×600  ~640 tok");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// Modes on Shift+Tab: its own file, a child of this module for `Tui`.
#[path = "modes.rs"]
mod modes;

/// Rewind: its own file, a child of this module for `Tui`.
#[path = "rewind.rs"]
mod rewind;

/// Issue 30's rough edges through the real binary: a child of this module for `Tui`.
#[path = "rough_edges_pty.rs"]
mod rough_edges_pty;
