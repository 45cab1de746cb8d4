//! The terminal's input handed to `App` a slice at a time (issue 37). Everything read
//! already goes in before the next frame, for at most `INPUT_SLICE`, so a flood of typed
//! text (a paste without bracketed paste, keys typed ahead) is one frame a slice instead of
//! one a key, and the event loop looks at signals and Ctrl+C between slices. Characters
//! typed in a row (`Input::Typed`) go into the prompt at once when that is all typing them
//! key by key would do (`App::type_text`): the prompt's editor lays its text out again on
//! every edit, so key by key a long run was quadratic.

use super::actions::{carry_out, handle_terminal_event};
use super::app::App;
use super::runtime::terminal::Term;
use super::runtime::terminal_input::{typed_key, Input, TerminalInput};
use crossterm::event::Event;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long input is handled before the loop draws and looks at signals again.
pub const INPUT_SLICE: Duration = Duration::from_millis(20);

/// Bytes of typed text read already joined into one insertion at most.
const MAX_RUN: usize = 1 << 20;

/// Handles `first` and what was read with it, until `INPUT_SLICE` has gone by (the rest
/// waits for the loop's next turn) or the app quits.
pub(super) fn handle_input(
    term: &mut Term,
    app: &mut App,
    events: &mut TerminalInput,
    first: Input,
    line_tx: &mpsc::UnboundedSender<String>,
) -> anyhow::Result<()> {
    let until = Instant::now() + INPUT_SLICE;
    let mut next = Some(first);
    while let Some(input) = next.take() {
        match input {
            Input::Typed(mut text) => {
                // The runs of the reads behind it too: one insertion, one layout.
                while text.len() < MAX_RUN {
                    match events.ready().transpose()? {
                        Some(Input::Typed(more)) => text.push_str(&more),
                        Some(other) => {
                            events.put_back(other);
                            break;
                        }
                        None => break,
                    }
                }
                let mut rest = text.as_str();
                while let Some(c) = rest.chars().next() {
                    if app.type_text(rest) {
                        break;
                    }
                    // Key by key: a dialog or popup has the keys (or `?` opens the help).
                    rest = &rest[c.len_utf8()..];
                    for action in app.handle_key(typed_key(c)) {
                        carry_out(app, action, line_tx);
                    }
                    if app.quitting() {
                        return Ok(());
                    }
                    if !rest.is_empty() && Instant::now() >= until {
                        events.put_back(Input::Typed(rest.to_string()));
                        return Ok(());
                    }
                }
            }
            Input::Event(event) => {
                if let Event::Resize(width, height) = event {
                    term.resize(Rect::new(0, 0, width, height))?;
                }
                for action in handle_terminal_event(app, event) {
                    carry_out(app, action, line_tx);
                }
            }
        }
        if app.quitting() || Instant::now() >= until {
            break;
        }
        next = events.ready().transpose()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::popups::file_index::FileIndex;
    use crate::tui::popups::file_picker::FilePicker;
    use crate::tui::runtime::clock::ManualClock;
    use crate::tui::text::theme::Theme;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    /// Typing `text` key by key (what `type_text` stands for).
    fn key_by_key(app: &mut App, text: &str) {
        for c in text.chars() {
            app.handle_key(typed_key(c));
        }
    }

    /// An app on `clock` (both apps of a comparison on one, so their frames match).
    fn app(clock: &ManualClock) -> App {
        let commands = vec![("/help".into(), "help".into())];
        let mut app = App::new(Theme::new(true), "stub", "stub-demo", commands, vec!["old".into()]);
        app.set_clock(std::sync::Arc::new(clock.clone()));
        // A fixed file list: two apps listing the working directory on threads of their own
        // could draw the `@` picker at different points of the listing.
        let files = ["src/main.rs", "src/lib.rs", "README.md"].map(String::from).to_vec();
        app.set_file_picker(FilePicker::with_index(FileIndex::from_paths(files)));
        app
    }

    /// What a test can see of the app after typing: the prompt, the popups, the focus.
    fn seen(app: &mut App) -> String {
        let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(60, 16)).unwrap();
        terminal.draw(|frame| app.draw(frame)).unwrap();
        format!("{:?}\n{}", app.view().prompt, terminal.backend())
    }

    /// `text` typed at once and key by key, after `before`, end the same.
    #[track_caller]
    fn same_either_way(before: &[KeyEvent], text: &str) -> bool {
        let clock = ManualClock::default();
        let (mut at_once, mut by_key) = (app(&clock), app(&clock));
        for key in before {
            at_once.handle_key(*key);
            by_key.handle_key(*key);
        }
        let took = at_once.type_text(text);
        if !took {
            key_by_key(&mut at_once, text);
        }
        key_by_key(&mut by_key, text);
        assert_eq!(seen(&mut at_once), seen(&mut by_key), "after {before:?} then {text:?}");
        took
    }

    #[test]
    fn typed_at_once_or_key_by_key_the_app_ends_the_same() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        let typed = |text: &str| text.chars().map(typed_key).collect::<Vec<_>>();
        assert!(same_either_way(&[], "hello World é漢"));
        assert!(same_either_way(&typed("ab"), "cd @src/ma"), "a mention is typed like the rest");
        assert!(same_either_way(&typed("/he"), "lp"), "the command popup filters as it would");
        assert!(same_either_way(&typed("x"), "?!"), "a `?` after text is text");
        assert!(!same_either_way(&[], "?x"), "a `?` on an empty prompt opens the help");
        assert!(!same_either_way(&[key(KeyCode::Char('?'))], "qj"), "the help has the keys");
        let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
        assert!(!same_either_way(&[ctrl_r], "ol"), "the history search has the keys");
        let mut recalled = typed("new");
        recalled.extend([key(KeyCode::Home), key(KeyCode::Up)]);
        assert!(same_either_way(&recalled, "er"), "editing a recalled prompt");
        let mut moved = typed("abc");
        moved.extend([key(KeyCode::Left), key(KeyCode::Left)]);
        assert!(same_either_way(&moved, "XY"), "typed where the cursor is");
        assert!(!same_either_way(&[key(KeyCode::Tab)], "jk"), "another pane has the keys");
    }
}
