//! Driving `App` as a user does, for the TUI tests: keys, pastes, Tab to a pane. What a
//! test reads back comes from the screen or `App::view`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::tui::app::{Action, App, Focus};

pub(crate) fn press(app: &mut App, code: KeyCode) -> Vec<Action> {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub(crate) fn ctrl(app: &mut App, c: char) -> Vec<Action> {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Tab until `pane` has the keys (Esc first when a pane has them: back to the prompt).
#[track_caller]
pub(crate) fn focus(app: &mut App, pane: Focus) {
    if app.view().focus != Focus::Composer {
        press(app, KeyCode::Esc);
    }
    for _ in 0..5 {
        if app.view().focus == pane {
            return;
        }
        press(app, KeyCode::Tab);
    }
    panic!("Tab never reached {pane:?}");
}

/// Ctrl+O until the context panel is `shown`.
pub(crate) fn show_context(app: &mut App, shown: bool) {
    if app.view().show_context != shown {
        ctrl(app, 'o');
    }
}

/// Empties the prompt with Backspace and Delete.
#[track_caller]
pub(crate) fn clear_prompt(app: &mut App) {
    for _ in 0..10_000 {
        if app.view().prompt_empty {
            return;
        }
        let before = app.view().prompt;
        press(app, KeyCode::Backspace);
        if app.view().prompt == before {
            press(app, KeyCode::Delete);
        }
    }
    panic!("the prompt did not empty: {:?}", app.view().prompt);
}

/// The prompt holds `text`: emptied, then `text` pasted into it.
#[track_caller]
pub(crate) fn set_prompt(app: &mut App, text: &str) {
    clear_prompt(app);
    app.handle_paste(text);
    assert_eq!(app.view().prompt, text);
}
