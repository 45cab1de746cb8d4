//! Issue 38 point 8 through the real binary in a pseudo-terminal: a drag in the conversation
//! (SGR mouse reports, as a terminal sends them) puts the selected text on the clipboard with
//! OSC 52, wrapped rows joined and nothing of the border or the tool log beside it; a click on
//! a code block's label copies the block; `/copy code 1` counts code blocks from the whole
//! conversation, not only the last reply.

use crate::tui::pty::Tui;
use elelem::clipboard::base64;
use serde_json::json;
use std::time::{Duration, Instant};

/// What the app has put on the clipboard so far (OSC 52, base64).
fn clipboard(tui: &Tui) -> Vec<Vec<u8>> {
    tui.screen.lock().unwrap().callbacks().1.clone()
}

/// Waits until the app has put `text` on the clipboard.
fn wait_copied(tui: &Tui, text: &str) {
    let want = base64(text.as_bytes()).into_bytes();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if clipboard(tui).contains(&want) {
            return;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let got: Vec<String> = clipboard(tui).iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    panic!(
        "{text:?} never copied (base64 {:?}); copied: {got:?}; screen:\n{}",
        base64(text.as_bytes()),
        tui.contents()
    );
}

/// The screen's row (from 0) and column of the first `needle`.
fn find(tui: &Tui, needle: &str) -> (u16, u16) {
    let contents = tui.contents();
    for (row, line) in contents.lines().enumerate() {
        if let Some(byte) = line.find(needle) {
            return (row as u16, line[..byte].chars().count() as u16);
        }
    }
    panic!("{needle:?} not on the screen:\n{contents}");
}

/// An SGR mouse report for the left button at screen row `row`, column `col` (from 0):
/// `M` pressed (`drag`: moved while pressed), `m` released.
fn report(row: u16, col: u16, drag: bool, release: bool) -> String {
    let button = if drag { 32 } else { 0 };
    format!("\x1b[<{button};{};{}{}", col + 1, row + 1, if release { 'm' } else { 'M' })
}

const PARAGRAPH: &str = "Parsing is now twice as fast on long inputs because the lexer no longer \
    copies each token before it looks at it, and every test still passes.";

#[test]
fn a_drag_in_the_conversation_copies_its_joined_text_through_osc52() {
    let steps = json!([
        {"events": [{"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "README.md"}}]},
        {"events": [{"type": "saying", "text": format!("{PARAGRAPH}\n\n```sh\necho one\n```\n\nDone.")}]}
    ]);
    let mut tui = Tui::start(steps, 30, 100, &[]);
    tui.wait_for("Ask elelem");
    tui.send("speed it up\r");
    tui.wait_for("Done.");
    let (first, col) = find(&tui, "Parsing is now");
    let (last, _) = find(&tui, "still passes.");
    assert!(last > first, "the paragraph wraps:\n{}", tui.contents());
    // From the pane's border across to the far right of the screen (the tool log).
    tui.send(&report(first, col - 1, false, false));
    tui.send(&report(first + 1, 30, true, false));
    tui.send(&report(last, 99, true, false));
    tui.send(&report(last, 99, false, true));
    wait_copied(&tui, PARAGRAPH);
    tui.wait_for("copied 1 line to the clipboard");
    // A click on the code block's label copies the block.
    let (label, col) = find(&tui, "sh  [copy]");
    tui.send(&report(label, col + 5, false, false));
    tui.send(&report(label, col + 5, false, true));
    wait_copied(&tui, "echo one\n");
    tui.wait_for("copied the code block (1 line)");
    tui.send("\x03\x03");
    tui.wait_exit();
}

#[test]
fn copy_code_one_is_the_first_block_of_the_conversation() {
    let steps = json!([
        {"events": [{"type": "saying", "text": "First:\n\n```sh\necho first\n```"}]},
        {"events": [{"type": "saying", "text": "Second:\n\n```sh\necho second\n```"}]}
    ]);
    let mut tui = Tui::start(steps, 30, 100, &[]);
    tui.wait_for("Ask elelem");
    tui.send("one\r");
    tui.wait_for("echo first");
    tui.send("two\r");
    tui.wait_for("echo second");
    tui.send("/copy code 1\r");
    tui.wait_for("Copied code block 1 of 2");
    wait_copied(&tui, "echo first\n");
    tui.send("\x03\x03");
    tui.wait_exit();
}
