//! Issue 38, points 3 and 9. The help at 80x24: a key and its meaning on one row (a narrow
//! key column, the meaning wrapping under itself), grouped, searched by typing (Esc clears
//! the search, then closes), at 80x24 and 120x40, dark and light, and through the real
//! binary. The trust question: what answering yes turns on, item by item from what the
//! project's `.agents/` holds (hooks' commands, Lua plugin files, MCP servers' commands,
//! rules that loosen), in the full-screen dialog and the line REPL, and the notices after
//! the answer: none saying the project's hooks are not run once it is trusted.

use crate::tui_pty::Tui;
use crate::tui_snapshots::{app, frame, light_app, styled_with, text};
use crossterm::event::{KeyCode, KeyEvent};
use elelem::tui::app::App;
use ratatui::layout::Rect;
use serde_json::json;

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::from(code));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// The row of `screen` holding `what`.
fn row_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen.lines().find(|row| row.contains(what)).unwrap_or_else(|| panic!("no row with {what:?}:\n{screen}"))
}

#[test]
fn the_help_at_80x24_puts_ctrl_r_and_its_meaning_on_one_row_in_groups() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    let screen = text(&frame(&mut app, 80, 24));
    insta::assert_snapshot!("help_80x24", screen);
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    assert!(row_with(&screen, "Enter ").contains("send the prompt"), "{screen}");
    assert!(screen.lines().any(|row| row.trim_matches(|c| c == '│' || c == ' ') == "Prompt"), "{screen}");
    // Six keys a screen was the complaint (each meaning on a row of its own).
    let keys = elelem::tui::popups::help::keys().filter(|(keys, _)| screen.contains(keys)).count();
    assert!(keys >= 8, "{keys} keys on the first screen:\n{screen}");
    let screen = text(&frame(&mut app, 120, 40));
    insta::assert_snapshot!("help_120x40", screen);
    for group in ["Prompt", "Turn", "Panes"] {
        assert!(screen.contains(&format!("│{group} ")), "{group}:\n{screen}");
    }
}

#[test]
fn the_helps_colours_in_the_dark_and_the_light_palette() {
    for (name, mut app) in [("help_dark_styles", app()), ("help_light_styles", light_app())] {
        press(&mut app, KeyCode::Char('?'));
        let buf = frame(&mut app, 80, 24);
        insta::assert_snapshot!(name, styled_with(&buf, Rect { x: 2, y: 1, width: 76, height: 6 }, true));
    }
}

#[test]
fn typing_searches_the_help_esc_clears_the_search_then_closes() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    type_text(&mut app, "ctrl r");
    let screen = text(&frame(&mut app, 80, 24));
    insta::assert_snapshot!("help_search_80x24", screen);
    assert!(screen.contains("search: ctrl r"), "the search shows:\n{screen}");
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    assert!(!screen.contains("send the prompt") && !screen.contains("Shift+Tab"), "only matches:\n{screen}");
    // `q` and `?` are letters of the search now, not ways out.
    type_text(&mut app, "q?");
    assert_eq!(app.help().map(|help| help.query()), Some("ctrl rq?"));
    assert!(text(&frame(&mut app, 80, 24)).contains("nothing matches"));
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.help().map(|help| help.query()), Some("ctrl r"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.help().map(|help| help.query()), Some(""), "Esc clears the search first");
    assert!(text(&frame(&mut app, 80, 24)).contains("send the prompt"));
    press(&mut app, KeyCode::Esc);
    assert!(app.help().is_none(), "then closes");
    assert!(app.composer().is_empty(), "nothing typed into the search reached the prompt");
    type_text(&mut app, "?");
    press(&mut app, KeyCode::Char('?'));
    assert!(app.help().is_none(), "? on an empty search closes as it opened");
}

/// Through the real binary at 80x24: `?`, a key and its meaning on one row, a search.
#[test]
fn the_help_through_the_real_binary_at_80x24() {
    let script = json!([{"events": [{"type": "saying", "text": "hi"}]}]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("?");
    tui.wait_for("help · type to search");
    let screen = tui.contents();
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    tui.send("mouse");
    tui.wait_for("search: mouse");
    tui.wait_for("/mouse, --no-mouse");
    let screen = tui.contents();
    assert!(!screen.contains("Ctrl+R"), "{screen}");
    tui.send("\x1b");
    tui.wait_for("help · type to search");
    tui.wait_for("Ctrl+R");
    tui.send("\x1b");
    tui.wait_for("Ask elelem");
    assert!(!tui.contents().contains("help · "), "{}", tui.contents());
    tui.send("\x03\x03");
    tui.wait_exit();
}
