//! What the event loop does with what the app asks (`carry_out`: a typed line to the
//! session and the input history, the mouse, the background query, tmux's buffer) and how a
//! terminal event reaches the app (`handle_terminal_event`). Shared by the loop (`mod.rs`)
//! and the input slices (`typing.rs`), below both.

use crossterm::event::Event;
use tokio::sync::mpsc;

use super::app::{Action, App};
use super::highlight;
use super::panes::prompt::prompt_history;
use super::runtime::{background_query, terminal};

/// Does what the app asked for: a typed line goes into the input history, and to the
/// session now (`Submit`) or later (`Queued`, then `Send`).
pub(super) fn carry_out(app: &mut App, action: Action, line_tx: &mpsc::UnboundedSender<String>) {
    match action {
        Action::Submit(line) => {
            remember(app, &line);
            let _ = line_tx.send(line);
        }
        Action::Queued(line) => remember(app, &line),
        Action::Send(line) => {
            let _ = line_tx.send(line);
        }
        Action::Interrupt => app.interrupt(),
        Action::Quit => app.set_quit(),
        Action::SetMouse(on) => terminal::set_mouse(on),
        Action::AskBackground => {
            // The answer comes through the key reader (`next_answer`).
            background_query::ask();
        }
        Action::TmuxBuffer(text) => {
            if crate::clipboard::in_tmux() {
                // tmux may take its time (up to 2 s): never on the UI thread.
                std::thread::spawn(move || crate::clipboard::tmux_load_buffer(&text));
            }
        }
    }
}

/// A typed prompt joins the input history (and the highlighter warms up for its reply).
fn remember(app: &App, line: &str) {
    if !line.starts_with('/') {
        prompt_history::append(line);
        highlight::warm_up(app.theme().color);
    }
}

/// What a terminal event asks of the app.
pub(super) fn handle_terminal_event(app: &mut App, event: Event) -> Vec<Action> {
    match event {
        Event::Key(key) => app.handle_key(key),
        Event::Paste(text) => {
            app.handle_paste(&text);
            vec![]
        }
        Event::Mouse(mouse) => app.handle_mouse(mouse),
        Event::FocusGained | Event::FocusLost => {
            app.set_terminal_focused(matches!(event, Event::FocusGained));
            vec![]
        }
        _ => vec![],
    }
}
