//! The status line while a turn runs (ratatui `TestBackend`, a `ManualClock`): the turn's
//! time and its output so far count up live — the text streamed since the last reported
//! usage estimated (`~`), replaced by the provider's count when it comes — and the turn's
//! time stays once it ends; what Esc does is said while a turn runs, whatever the width.

use crate::tui::screens::{app, text};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::Usage;
use elelem::tui::app::{App, Focus};
use elelem::tui::runtime::clock::ManualClock;
use std::time::Duration;

/// The status line at 120x40 (or `status_at` 80x24), drawn at the app's own clock.
fn status(app: &mut App) -> String {
    status_at(app, 120, 40)
}

/// An app on a clock the test moves, a turn started with `prompt`.
fn turn_started(prompt: &str) -> (App, ManualClock) {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    app.handle_agent(AgentEvent::TurnStarted { prompt: prompt.into() });
    (app, clock)
}

fn status_at(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| app.draw(f)).unwrap();
    text(terminal.backend().buffer()).lines().last().unwrap_or_default().to_string()
}

#[test]
fn the_turns_time_and_output_count_up_while_it_runs() {
    let (mut app, clock) = turn_started("first");
    app.handle_agent(AgentEvent::thinking("x".repeat(200)));
    app.handle_agent(AgentEvent::saying("y".repeat(1000)));
    clock.advance(Duration::from_millis(3400));
    let mut screens = vec![status(&mut app)];
    assert!(screens[0].contains("ctx ~0 tok · turn ↓~300 3s"), "{}", screens[0]);
    // The call's usage replaces the estimate; what streams after it is estimated again.
    app.handle_agent(AgentEvent::Usage(Usage { input_tokens: 1200, output_tokens: 280, ..Default::default() }));
    screens.push(status(&mut app));
    assert!(screens[1].contains("turn ↑1.2k ↓280 3s · session ↑1.2k ↓280"), "{}", screens[1]);
    app.handle_agent(AgentEvent::saying("z".repeat(400)));
    clock.advance(Duration::from_secs(60));
    screens.push(status(&mut app));
    assert!(screens[2].contains("turn ↑1.2k ↓~380 1m03s"), "{}", screens[2]);
    app.handle_agent(AgentEvent::Usage(Usage { input_tokens: 1500, output_tokens: 90, ..Default::default() }));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    screens.push(status(&mut app));
    assert!(screens[3].contains("turn ↑2.7k ↓370 1m03s · session ↑2.7k ↓370"), "{}", screens[3]);
    insta::assert_snapshot!("status_live_turn_120x40", screens.join("\n"));
}

#[test]
fn a_turn_under_a_second_shows_no_time_while_it_runs() {
    let (mut app, clock) = turn_started("quick");
    clock.advance(Duration::from_millis(900));
    let line = status(&mut app);
    assert!(line.contains("│ ctx ~0 tok ") && !line.contains("turn"), "{line}");
}

/// While a turn runs the status line says what Esc does even when the rest does not fit
/// (at 80 columns the full hints never did): the left side is cut first.
#[test]
fn a_running_turn_says_what_esc_does_at_80_columns() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    app.handle_agent(AgentEvent::Usage(Usage { input_tokens: 12_345, output_tokens: 678, ..Default::default() }));
    app.handle_agent(AgentEvent::saying("streaming"));
    let line = status_at(&mut app, 80, 24);
    assert!(line.ends_with("Esc interrupt") && line.contains("│ ◐ responding │ turn ↑12k"), "{line}");
    crate::tui::drive::focus(&mut app, Focus::Tools);
    let line = status_at(&mut app, 80, 24);
    assert!(line.ends_with("Esc back to prompt"), "{line}");
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    let line = status_at(&mut app, 80, 24);
    assert!(!line.contains("Esc"), "{line}");
}
