//! The jobs popup (ratatui `TestBackend`): `/jobs` goes to the session as a line, whose
//! `AgentEvent::Jobs` opens the popup over the prompt — each job's number, state, output
//! size and command; Up/Down select, `x` or Delete sends `/jobs stop N`, Esc closes. While
//! open it shows the session's jobs as they are at each frame.

use crate::tui::drive::press;
use crate::tui::screens::{app, frame, text};
use crossterm::event::KeyCode;
use elelem::agent::output::AgentEvent;
use elelem::protocol::events::JobRow;
use elelem::tui::app::{Action, App};

fn row(id: u32, command: &str, state: &str, output: &str) -> JobRow {
    JobRow {
        id,
        command: command.into(),
        running: state == "running",
        state: state.into(),
        output: output.into(),
        terminal: false,
    }
}

/// Types `/jobs`, checks it goes to the session, and answers as the session does.
fn open(app: &mut App) {
    for c in "/jobs".chars() {
        press(app, KeyCode::Char(c));
    }
    let sent = press(app, KeyCode::Enter);
    assert!(sent.contains(&Action::Submit("/jobs".into())), "{sent:?}");
    let rows = vec![
        row(1, "cargo build --release", "exited 0", "12.4 KiB"),
        row(2, "npm run dev", "running", "3.1 MiB"),
        row(3, "tail -f log\u{1b}[2J", "running", "512 B"),
    ];
    app.handle_agent(AgentEvent::Jobs { text: "(the line REPL's listing)".into(), rows });
}

#[test]
fn the_jobs_popup_lists_the_jobs_100x30() {
    let mut app = app();
    open(&mut app);
    let screen = text(&frame(&mut app, 100, 30));
    assert!(app.view().has("jobs"), "{screen}");
    assert!(screen.contains("jobs · 2 running of 3"), "{screen}");
    assert!(screen.contains("› %2   running      3.1 MiB  npm run dev"), "{screen}");
    assert!(!screen.contains('\u{1b}'), "{screen}");
    assert!(!screen.contains("the line REPL's listing"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn the_stop_key_sends_jobs_stop_n_and_esc_closes() {
    let mut app = app();
    open(&mut app);
    assert_eq!(press(&mut app, KeyCode::Down), vec![]);
    let sent = press(&mut app, KeyCode::Char('x'));
    assert!(sent.contains(&Action::Submit("/jobs stop 3".into())), "{sent:?}");
    assert!(!app.view().has("jobs"), "the popup closes once it sent the stop");

    open(&mut app);
    press(&mut app, KeyCode::Up);
    let sent = press(&mut app, KeyCode::Delete);
    assert!(sent.contains(&Action::Submit("/jobs stop 1".into())), "{sent:?}");

    open(&mut app);
    assert_eq!(press(&mut app, KeyCode::Esc), vec![]);
    assert!(!app.view().has("jobs"));
    assert_eq!(app.view().prompt, "", "closing puts nothing in the prompt");
}

/// While open, the popup shows the jobs as the session's table has them at each frame (a job
/// that ends, output that grows), the selected job kept; it asks for a frame every tick.
#[test]
fn the_open_popup_follows_the_jobs_as_they_change() {
    let mut app = app();
    let table = std::sync::Arc::new(std::sync::Mutex::new(vec![row(2, "npm run dev", "running", "3.1 MiB")]));
    let view = elelem::startup::JobsView::default();
    let listed = table.clone();
    view.fill(move || listed.lock().unwrap().clone());
    let ready = elelem::tui::runtime::channel::Ready { jobs: view, ..Default::default() };
    app.ready(ready, "elelem", "sandbox".into());
    assert!(!app.animating(), "nothing moves yet");
    open(&mut app);
    assert!(app.animating(), "an open jobs popup is drawn again every tick");
    let screen = text(&frame(&mut app, 100, 30));
    assert!(
        screen.contains("› %2   running      3.1 MiB  npm run dev"),
        "the table's rows, not the event's:\n{screen}"
    );
    *table.lock().unwrap() =
        vec![row(2, "npm run dev", "exited 1", "3.4 MiB"), row(4, "python3 -m http.server", "running", "20 B")];
    let screen = text(&frame(&mut app, 100, 30));
    assert!(screen.contains("jobs · 1 running of 2"), "{screen}");
    assert!(screen.contains("› %2   exited 1     3.4 MiB  npm run dev"), "{screen}");
    assert!(screen.contains("%4   running         20 B  python3 -m http.server"), "{screen}");
    press(&mut app, KeyCode::Esc);
    assert!(!app.animating(), "closed: no more ticks");
}
