//! The prompt's helpers, drawn with ratatui's `TestBackend` at 120x40 and 80x24: the `@`
//! file picker (a popup of ranked project files) and Ctrl+R reverse history search.

use crate::tui::drive::clear_prompt;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::tui::app::App;
use elelem::tui::popups::file_index::FileIndex;
use elelem::tui::popups::file_picker::FilePicker;
use elelem::tui::text::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::Instant;

fn app(history: Vec<String>) -> App {
    let mut app = App::new(Theme::new(true), "stub", "stub-demo", vec![], history);
    let files = ["src/main.rs", "src/tui/mod.rs", "src/agent/mentions.rs", "docs/manual.md", "Cargo.toml", "README.md"];
    app.set_file_picker(FilePicker::with_index(FileIndex::from_paths(files.iter().map(|f| f.to_string()).collect())));
    app
}

fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn ctrl(app: &mut App, c: char) {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The frame as text, one quoted row per line.
fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| app.render(f.area(), f.buffer_mut(), Instant::now())).unwrap();
    terminal.backend().to_string()
}

#[test]
fn at_opens_a_popup_of_ranked_files_120x40_and_80x24() {
    let mut app = app(vec![]);
    type_text(&mut app, "explain @src/m");
    insta::assert_snapshot!("file_picker_120x40", screen(&mut app, 120, 40));
    key(&mut app, KeyCode::Down);
    insta::assert_snapshot!("file_picker_80x24", screen(&mut app, 80, 24));
}

#[test]
fn tab_or_enter_inserts_the_chosen_path_and_esc_keeps_the_text() {
    let mut app = app(vec![]);
    type_text(&mut app, "explain @src/ma");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view().prompt, "explain @src/main.rs ", "Enter picks, it does not send");
    assert!(!screen(&mut app, 80, 24).contains("files ·"), "the popup closed");
    type_text(&mut app, "and @mod");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view().prompt, "explain @src/main.rs and @mod");
    assert!(!screen(&mut app, 80, 24).contains("files ·"));
    type_text(&mut app, ".");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.view().prompt, "explain @src/main.rs and @src/tui/mod.rs ", "typing opened it again");
    // Enter on a path typed in full sends the prompt.
    clear_prompt(&mut app);
    type_text(&mut app, "see @README.md");
    assert!(screen(&mut app, 80, 24).contains("files · 1 of 6"));
    let actions = app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(actions, vec![elelem::tui::app::Action::Submit("see @README.md".into())]);
    // No popup for an address.
    clear_prompt(&mut app);
    type_text(&mut app, "mail a@b");
    assert!(!screen(&mut app, 80, 24).contains("files ·"));
}

#[test]
fn ctrl_r_searches_the_history_and_esc_restores_the_prompt_120x40_and_80x24() {
    let history = ["cargo test --lib", "explain the parser", "cargo build --release", "git status"];
    let mut app = app(history.map(String::from).into());
    type_text(&mut app, "half-typed");
    ctrl(&mut app, 'r');
    type_text(&mut app, "cargo");
    assert_eq!(app.view().prompt, "cargo build --release", "the newest match is shown");
    insta::assert_snapshot!("reverse_search_120x40", screen(&mut app, 120, 40));
    ctrl(&mut app, 'r');
    assert_eq!(app.view().prompt, "cargo test --lib", "Ctrl+R again: the next older match");
    insta::assert_snapshot!("reverse_search_80x24", screen(&mut app, 80, 24));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view().prompt, "half-typed", "Esc puts back what was typed");
    assert!(!screen(&mut app, 80, 24).contains("history search"));
    ctrl(&mut app, 'r');
    type_text(&mut app, "PARSER");
    assert!(screen(&mut app, 80, 24).contains("no match"), "a capital makes the search exact");
    key(&mut app, KeyCode::Backspace);
    for _ in 0..5 {
        key(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "pars");
    key(&mut app, KeyCode::Right);
    assert_eq!(app.view().prompt, "explain the parser", "Right accepts the match into the prompt");
    assert!(!app.view().has("history search"));
    key(&mut app, KeyCode::Char('!'));
    assert_eq!(app.view().prompt, "explain the parser!", "and it can be edited");
}
