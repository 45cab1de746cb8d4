//! Issue 30 through the real binary in a pty (`tui_pty.rs`'s harness): what elelem asks of
//! the terminal and how it reads what comes back — the OSC 11 background query, Shift+Enter
//! as the terminal encodes it, the help overlay at 80x24, `/copy` under tmux; and (issue 37)
//! a flood of typed text, which must reach the prompt quickly and never keep a signal waiting.

use crate::tui::pty::{bottom_background, status_background, steps_with_tool, Tui, DARK_STATUS, LIGHT_STATUS};

/// The app's background query and the DA1 query after it.
const OSC11_QUERY: &[u8] = b"\x1b]11;?\x1b\\";
const DA1_QUERY: &[u8] = b"\x1b[c";
const DA1_ANSWER: &[u8] = b"\x1b[?62;22c";

fn start_answering(env: &[(&str, &str)], answers: &[(&'static [u8], &'static [u8])]) -> Tui {
    let dir = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_elelem").as_ref();
    Tui::launch_answering(binary, dir, steps_with_tool(), (24, 80), env, &[], answers)
}

#[test]
fn a_terminal_answering_osc_11_with_white_gets_the_light_palette() {
    let answers = [(OSC11_QUERY, &b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"[..]), (DA1_QUERY, DA1_ANSWER)];
    let mut tui = start_answering(&[("ELELEM_THEME", ""), ("COLORFGBG", "")], &answers);
    assert_eq!(status_background(&tui), LIGHT_STATUS);
    let screen = tui.contents();
    assert!(!screen.contains("rgb:") && !screen.contains("11;"), "the answer was read as keys:\n{screen}");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn the_terminals_answer_wins_over_colorfgbg_and_a_setting_wins_over_both() {
    let black = [(OSC11_QUERY, &b"\x1b]11;rgb:0000/0000/0000\x07"[..]), (DA1_QUERY, DA1_ANSWER)];
    let mut tui = start_answering(&[("ELELEM_THEME", ""), ("COLORFGBG", "0;15")], &black);
    assert_eq!(status_background(&tui), DARK_STATUS);
    tui.send("\x03\x03");
    tui.wait_exit();
    let white = [(OSC11_QUERY, &b"\x1b]11;rgb:ffff/ffff/ffff\x07"[..]), (DA1_QUERY, DA1_ANSWER)];
    let mut tui = start_answering(&[("ELELEM_THEME", "dark"), ("COLORFGBG", "")], &white);
    assert_eq!(status_background(&tui), DARK_STATUS);
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn a_terminal_that_never_answers_or_answers_only_da1_still_starts() {
    for answers in [&[][..], &[(DA1_QUERY, DA1_ANSWER)][..]] {
        let mut tui = start_answering(&[("ELELEM_THEME", ""), ("COLORFGBG", "")], answers);
        tui.wait_for("Ask elelem");
        assert_eq!(status_background(&tui), DARK_STATUS);
        tui.send("hello\r");
        tui.wait_for("Pty demo");
        tui.send("\x03\x03");
        tui.wait_exit();
    }
}

/// The screen's text with the pane borders taken out and runs of white space made one space,
/// so a message wrapped over rows reads as one line (the side pane is empty in these tests).
fn flat(tui: &Tui) -> String {
    tui.contents().replace(['│', '┐', '┌', '└', '┘', '─'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Waits until `flat` holds `what`, and returns it.
fn wait_flat(tui: &Tui, what: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        let text = flat(tui);
        if text.contains(what) {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    panic!("timed out waiting for {what:?}; screen:\n{}", tui.contents());
}

/// A reply with two code blocks.
fn reply_with_code() -> serde_json::Value {
    let text = "First:\n\n```sh\necho one\n```\n\nThen:\n\n```rust\nfn two() {}\n```\n\nDone.";
    serde_json::json!([{"events": [{"type": "saying", "text": text}]}])
}

#[test]
fn copy_code_n_copies_that_block_and_under_tmux_also_loads_tmuxs_buffer() {
    let bin = tempfile::tempdir().unwrap();
    let record = bin.path().join("record");
    let fake = bin.path().join("tmux");
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$*\" > '{0}.args'\ncat > '{0}.stdin'\n", record.display());
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let env = [("TMUX", "/tmp/tmux-1000/default,1,0"), ("PATH", path.as_str())];
    let dir = tempfile::tempdir().unwrap();
    let mut tui =
        Tui::launch_answering(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, reply_with_code(), (24, 100), &env, &[], &[]);
    tui.wait_for("Ask elelem");
    tui.send("show me\r");
    tui.wait_for("Done.");
    tui.send("/copy code 1\r");
    let screen = wait_flat(&tui, "also in tmux's paste buffer (tmux load-buffer).");
    assert!(
        screen.contains(
            "Copied code block 1 of 2 (1 line): sent to the terminal via OSC 52 (the terminal may ignore it)"
        ),
        "{screen}"
    );
    let copied = tui.screen.lock().unwrap().callbacks().1.clone();
    assert_eq!(copied, vec![b"ZWNobyBvbmUK".to_vec()], "base64 of `echo one\\n`");
    assert_eq!(std::fs::read_to_string(record.with_extension("stdin")).unwrap(), "echo one\n");
    assert_eq!(std::fs::read_to_string(record.with_extension("args")).unwrap(), "load-buffer -\n");
    tui.send("/copy code\r");
    wait_flat(&tui, "Copied code block 2 of 2");
    assert_eq!(std::fs::read_to_string(record.with_extension("stdin")).unwrap(), "fn two() {}\n");
    tui.send("/copy code 3\r");
    wait_flat(&tui, "no code block 3: the conversation has 2");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn copy_under_tmux_says_when_tmux_could_not_take_it() {
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("tmux");
    std::fs::write(&fake, "#!/bin/sh\ncat >/dev/null\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let env = [("TMUX", "/tmp/tmux-1000/default,1,0"), ("PATH", path.as_str())];
    let dir = tempfile::tempdir().unwrap();
    let mut tui =
        Tui::launch_answering(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, reply_with_code(), (24, 100), &env, &[], &[]);
    tui.wait_for("Ask elelem");
    tui.send("show me\r");
    tui.wait_for("Done.");
    tui.send("/copy\r");
    wait_flat(&tui, "not in tmux's paste buffer: tmux load-buffer failed");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn three_reads_of_one_step_are_one_line_through_the_real_binary() {
    let script = serde_json::json!([
        {"events": [
            {"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "README.md"}},
            {"type": "doing", "id": "r2", "name": "read", "arguments": {"path": "README.md"}},
            {"type": "doing", "id": "r3", "name": "read", "arguments": {"path": "README.md"}},
            {"type": "doing", "id": "r4", "name": "read", "arguments": {"path": "missing.md"}}
        ]},
        {"events": [{"type": "saying", "text": "Read it thrice."}]}
    ]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Pty demo\n").unwrap();
    let mut tui = Tui::launch_answering(env!("CARGO_BIN_EXE_elelem").as_ref(), dir, script, (24, 100), &[], &[], &[]);
    tui.wait_for("Ask elelem");
    tui.send("read it\r");
    tui.wait_for("Read it thrice.");
    let screen = tui.contents();
    assert!(screen.contains("+ read ×3 · #1 README.md · #2 README.md · #3 README.md"), "{screen}");
    assert!(screen.contains("x #4 read missing.md"), "the failure keeps its own line:\n{screen}");
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// The screen's rows with trailing blanks trimmed (a row of written spaces and a row never
/// written look the same).
fn rows(tui: &Tui) -> String {
    tui.contents().lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

/// Waits until the screen stops changing for a moment, and returns it.
fn settled(tui: &Tui) -> String {
    let mut last = rows(tui);
    loop {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let now = rows(tui);
        if now == last {
            return now;
        }
        last = now;
    }
}

#[test]
fn the_help_overlay_at_80x24_scrolls_and_closing_it_leaves_no_fragment() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("hello\r");
    tui.wait_for("All good.");
    let before = settled(&tui);
    tui.send("?");
    tui.wait_for("help · ");
    let help = settled(&tui);
    assert!(help.contains("send the prompt"), "{help}");
    // Nothing of the panes under it peeks out beside the box (`│e┌ help`, `│t│`).
    assert!(help.lines().all(|row| row.chars().take(2).all(|c| c == ' ')), "fragments beside the help:\n{help}");
    tui.send("\x1b[F"); // End
    wait_flat(&tui, "K-th.");
    tui.send("\x1b");
    let after = settled(&tui);
    assert_eq!(after, before, "closing the help left something behind");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn help_from_the_first_screen_by_command_closes_without_a_fragment() {
    let mut tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    let before = settled(&tui);
    tui.send("/help\r");
    tui.wait_for("help · ");
    settled(&tui);
    tui.send("\x1b");
    let after = settled(&tui);
    assert_eq!(after, before, "closing the help left something behind");
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// Types "line one", then `shift_enter` with "line two" right behind it (one read), and
/// checks that the prompt holds the two lines, unsent.
fn shift_enter_makes_a_second_line(shift_enter: &str) {
    let tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("line one");
    tui.wait_for("line one");
    tui.send(&format!("{shift_enter}line two"));
    two_unsent_lines_then_quit(tui, "line one", "line two");
}

/// Once `second` is on screen: the prompt holds `first` and `second` on the next line, and
/// nothing was sent; then quits.
fn two_unsent_lines_then_quit(mut tui: Tui, first: &str, second: &str) {
    tui.wait_for(second);
    let screen = settled(&tui);
    let one = screen.lines().position(|l| l.contains(first)).unwrap();
    assert!(screen.lines().nth(one + 1).is_some_and(|l| l.contains(second)), "{screen}");
    assert!(!screen.contains(&format!("› {first}")), "sent instead of a new line:\n{screen}");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn shift_enter_as_kitty_csi_u_is_a_new_line_in_the_prompt() {
    shift_enter_makes_a_second_line("\x1b[13;2u");
}

/// tmux's default `extended-keys-format xterm` (modifyOtherKeys): crossterm's reader
/// dropped it, and the text read with it.
#[test]
fn shift_enter_as_xterm_modify_other_keys_is_a_new_line_in_the_prompt() {
    shift_enter_makes_a_second_line("\x1b[27;2;13~");
}

/// A bracketed paste that reaches the app in two reads, 150 ms apart, is one paste: its
/// line break does not send the prompt.
#[test]
fn a_paste_split_across_reads_is_one_paste() {
    let tui = Tui::start(steps_with_tool(), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("\x1b[200~pasted one\r\npasted");
    std::thread::sleep(std::time::Duration::from_millis(150));
    tui.send(" two\x1b[201~ typed");
    two_unsent_lines_then_quit(tui, "pasted one", "pasted two typed");
}

/// An SGR mouse click (press and release, with a wheel turn in the same read) on the tool
/// log during a turn focuses it (the status line then offers Esc back to the prompt); none
/// of it is typed.
#[test]
fn a_click_focuses_the_pane_under_it() {
    let slow: Vec<serde_json::Value> =
        (0..20).map(|i| serde_json::json!({"type": "saying", "text": format!("chunk{i} "), "delay_ms": 150})).collect();
    let mut tui = Tui::start(serde_json::json!([{"events": slow}]), 24, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("talk slowly\r");
    tui.wait_for("chunk1 ");
    assert!(!tui.contents().contains("Esc back to prompt"));
    tui.send("\x1b[<64;100;6M\x1b[<0;100;6M\x1b[<0;100;6m");
    tui.wait_for("Esc back to prompt");
    let screen = tui.contents();
    assert!(!screen.contains("<0;") && !screen.contains("100;6"), "read as keys:\n{screen}");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn keys_typed_while_the_terminal_answers_go_to_the_prompt() {
    let answers = [(OSC11_QUERY, &b"fix it\x1b]11;rgb:ffff/ffff/ffff\x1b\\ now\x1b[?62;22c"[..])];
    let mut tui = start_answering(&[("ELELEM_THEME", ""), ("COLORFGBG", "")], &answers);
    assert_eq!(status_background(&tui), LIGHT_STATUS);
    tui.wait_for("│fix it now");
    tui.send("\x03\x03\x03");
    tui.wait_exit();
}

#[test]
fn closing_the_help_over_wide_characters_redraws_them_whole() {
    let script = serde_json::json!([{"events": [{"type": "saying", "text": "漢字のテスト、全角の文字列です。\n\n🙂🙂🙂 wide"}]}]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("hello\r");
    tui.wait_for("wide");
    let before = settled(&tui);
    tui.send("?");
    tui.wait_for("help · ");
    settled(&tui);
    tui.send("\x1b");
    let after = settled(&tui);
    assert_eq!(after, before, "closing the help left something behind");
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// Keys typed before the first frame are keys, not pasted text: Enter typed ahead sends the
/// prompt, Backspace takes a character back, an arrow key's sequence is not typed as text.
#[test]
fn enter_typed_before_the_first_frame_sends_the_prompt() {
    let answers = [(OSC11_QUERY, &b"helo\x7flo\x1b[A\r\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"[..])];
    let mut tui = start_answering(&[("ELELEM_THEME", ""), ("COLORFGBG", "")], &answers);
    tui.wait_for("Pty demo");
    let screen = tui.contents();
    assert!(screen.contains("hello") && !screen.contains("[A"), "{screen}");
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// The first frame does not wait for a terminal that is slow to answer: it comes in the
/// guessed (dark) palette, and the answer that arrives after it repaints in the light one,
/// and is not typed into the prompt (`ELELEM_TERMINAL_WAIT_MS=0`: the first frame does not
/// wait at all, so the answer sent after it is late even on a loaded machine).
#[test]
fn the_first_frame_comes_before_a_slow_answer_and_the_answer_repaints() {
    let env = [("ELELEM_THEME", ""), ("COLORFGBG", ""), ("ELELEM_TERMINAL_WAIT_MS", "0")];
    let mut tui = start_answering(&env, &[]);
    tui.wait_for("Ask elelem");
    assert_eq!(bottom_background(&tui), DARK_STATUS, "the first frame waited for the answer:\n{}", tui.contents());
    tui.send("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c");
    wait_status_background(&tui, LIGHT_STATUS);
    let screen = tui.contents();
    assert!(!screen.contains("rgb:") && !screen.contains("11;"), "the answer was read as keys:\n{screen}");
    tui.send("hello\r");
    tui.wait_for("Pty demo");
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// Waits until the status line is drawn on `background`.
fn wait_status_background(tui: &Tui, background: vt100::Color) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while status_background(tui) != background {
        assert!(std::time::Instant::now() < deadline, "no repaint on {background:?}:\n{}", tui.contents());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `/theme light` switches at once and is remembered: the next start is light without
/// asking a terminal that would say black; `/theme auto` asks it again and follows it.
#[test]
fn the_theme_command_switches_now_is_remembered_and_auto_asks_the_terminal_again() {
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap();
    let env = [("ELELEM_THEME", ""), ("COLORFGBG", ""), ("XDG_DATA_HOME", data_dir)];
    let black = [(OSC11_QUERY, &b"\x1b]11;rgb:0000/0000/0000\x07"[..]), (DA1_QUERY, DA1_ANSWER)];
    let mut tui = start_answering(&env, &black);
    assert_eq!(status_background(&tui), DARK_STATUS);
    tui.send("/theme light\r");
    wait_status_background(&tui, LIGHT_STATUS);
    tui.send("\x03\x03");
    tui.wait_exit();
    let saved = std::fs::read_to_string(data.path().join("elelem/tui.json")).unwrap();
    assert!(saved.contains(r#""theme":"light""#), "{saved}");

    let mut tui = start_answering(&env, &black);
    assert_eq!(status_background(&tui), LIGHT_STATUS, "the saved theme did not apply at start");
    tui.send("/theme auto\r");
    wait_status_background(&tui, DARK_STATUS);
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// Issue 37: text written to the terminal without bracketed paste (a paste into a terminal
/// that lacks it, or keys typed ahead) comes as keys; each used to lay the whole prompt
/// out again and draw a frame, so 20,000 took 9.5 s. They must reach the prompt in under
/// 2 s, whole, and the prompt be sent as typed.
#[test]
fn twenty_thousand_typed_characters_reach_the_prompt_in_under_two_seconds() {
    let (mut tui, dir) = launch_in_dir();
    tui.wait_for("stub-demo");
    let mut flood = String::new();
    while flood.len() < 20_000 - 8 {
        flood.push_str(&format!("w{} ", flood.len()));
    }
    flood.push_str("THE-END");
    let started = std::time::Instant::now();
    for chunk in flood.as_bytes().chunks(1000) {
        tui.send(std::str::from_utf8(chunk).unwrap());
    }
    wait_until(&tui, std::time::Duration::from_secs(60), |screen| screen.contains("THE-END"));
    let took = started.elapsed();
    eprintln!("{} typed characters on screen after {took:?}", flood.len());
    assert!(took < std::time::Duration::from_secs(2), "20,000 typed characters took {took:?} to reach the prompt");
    tui.send("\r");
    tui.wait_for("All good.");
    tui.send("\x03\x03");
    tui.wait_exit();
    let sessions = dir.join("data/elelem/sessions");
    let file = std::fs::read_dir(sessions).unwrap().flatten().next().unwrap().path();
    let recorded = std::fs::read_to_string(file).unwrap();
    assert!(recorded.contains(&flood), "the prompt was not sent whole");
}

/// Issue 37: SIGTERM while the app is busy with a flood of typed text is answered at once
/// (it waited 30-40 s behind the keys), and so is Ctrl+C typed after one.
#[test]
fn sigterm_and_ctrl_c_during_a_flood_of_typed_text_are_answered_at_once() {
    let (mut tui, dir) = launch_in_dir();
    tui.wait_for("stub-demo");
    let pid = pid_in(&dir);
    let chunk = "typed without bracketed paste ".repeat(100);
    let started = std::time::Instant::now();
    let mut sent = 0;
    while started.elapsed() < std::time::Duration::from_millis(500) && sent < 2_000_000 {
        tui.send(&chunk);
        sent += chunk.len();
    }
    std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status().unwrap();
    let signalled = std::time::Instant::now();
    while !exited(pid) {
        assert!(signalled.elapsed() < std::time::Duration::from_secs(60), "no exit on SIGTERM");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let took = signalled.elapsed();
    eprintln!("SIGTERM after {sent} bytes typed: exited after {took:?}");
    assert!(took < std::time::Duration::from_secs(1), "SIGTERM took {took:?} during a flood of {sent} bytes");
    assert_eq!(tui.wait_exit().exit_code(), 143);
    tui.assert_restored();

    // Ctrl+C typed behind 200 KB of text: it clears the prompt, twice more quits.
    let (mut tui, dir) = launch_in_dir();
    tui.wait_for("stub-demo");
    let pid = pid_in(&dir);
    for _ in 0..(200_000 / chunk.len()) {
        tui.send(&chunk);
    }
    tui.send("\x03\x03\x03");
    let typed = std::time::Instant::now();
    while !exited(pid) {
        assert!(typed.elapsed() < std::time::Duration::from_secs(60), "no exit on Ctrl+C:\n{}", tui.contents());
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let took = typed.elapsed();
    eprintln!("Ctrl+C three times behind 200 KB typed: exited after {took:?}");
    assert!(took < std::time::Duration::from_secs(1), "Ctrl+C took {took:?} behind a flood");
    assert!(tui.wait_exit().success());
    tui.assert_restored();
}

/// The real binary in a project of its own, and that project's path.
fn launch_in_dir() -> (Tui, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Pty demo\n").unwrap();
    let path = dir.path().canonicalize().unwrap();
    let binary = env!("CARGO_BIN_EXE_elelem").as_ref();
    (Tui::launch(binary, dir, steps_with_tool(), 24, 80, &[], &[]), path)
}

/// The process running in `dir` (the app: its only process there).
fn pid_in(dir: &std::path::Path) -> u32 {
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_elelem")).unwrap();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
        let cwd = std::fs::read_link(entry.path().join("cwd"));
        let exe = std::fs::read_link(entry.path().join("exe"));
        if cwd.is_ok_and(|cwd| cwd == dir) && exe.is_ok_and(|exe| exe == binary) {
            return pid;
        }
    }
    panic!("no elelem running in {}", dir.display());
}

/// `pid` has exited (a zombie until the test reaps it, or gone).
fn exited(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => true,
    }
}

/// Waits (at most `limit`) until the screen passes `test`.
fn wait_until(tui: &Tui, limit: std::time::Duration, test: impl Fn(&str) -> bool) {
    let started = std::time::Instant::now();
    while !test(&tui.contents()) {
        assert!(started.elapsed() < limit, "not on screen after {limit:?}:\n{}", tui.contents());
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
