//! Issue 30 through the real binary in a pty (`tui_pty.rs`'s harness): what elelem asks of
//! the terminal and how it reads what comes back — the OSC 11 background query, Shift+Enter
//! as the terminal encodes it, the help overlay at 80x24, `/copy` under tmux.

use super::tui_pty::{status_background, steps_with_tool, Tui, DARK_STATUS, LIGHT_STATUS};

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
