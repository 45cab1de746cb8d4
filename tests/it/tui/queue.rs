//! Prompts typed while a turn runs (ratatui `TestBackend`): held by the app and shown above
//! the prompt with their count, sent one at a time when the session asks for its next
//! line; Up takes the newest back to edit, Ctrl+X drops it; Esc always interrupts and holds
//! the queue until the next Enter, which sends the prompt typed before the queued ones (or,
//! on an empty prompt, the queue); a prompt refused after it left the queue leaves no count
//! behind.

use crate::tui::drive::set_prompt;
use crate::tui::screens::{app, frame, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::tui::app::{Action, App};
use elelem::tui::runtime::clock::ManualClock;
use std::sync::Arc;
use std::time::Duration;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Types `text` and presses Enter: what the app asks the loop to do.
fn send(app: &mut App, text: &str) -> Vec<Action> {
    for c in text.chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    app.handle_key(key(KeyCode::Enter))
}

/// A turn running, with two prompts typed meanwhile.
fn two_queued() -> App {
    let mut app = app();
    assert_eq!(send(&mut app, "first question"), vec![Action::Submit("first question".into())]);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "first question".into() });
    app.handle_agent(AgentEvent::saying("Working on the first one."));
    assert_eq!(send(&mut app, "second question"), vec![Action::Queued("second question".into())]);
    send(&mut app, "third: a much longer prompt that goes on and on about the parser, the lexer and everything else in the tree until it is cut");
    app
}

#[test]
fn prompts_typed_during_a_turn_show_above_the_prompt_120x40() {
    let mut app = two_queued();
    assert_eq!(app.view().queued, 2);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("queued 2 · Up edits the last"), "{screen}");
    assert!(screen.contains("1. second question"), "{screen}");
    assert!(screen.contains("prompt · 2 queued"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn prompts_typed_during_a_turn_show_above_the_prompt_80x24() {
    let mut app = two_queued();
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("2. third: a much longer prompt"), "{screen}");
    assert!(!screen.contains("until it is cut"), "one row each, truncated:\n{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn the_session_asking_for_a_line_takes_the_oldest_queued_prompt() {
    let mut app = two_queued();
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert_eq!(app.session_waiting(), vec![Action::Send("second question".into())]);
    assert_eq!(app.view().queued, 1);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "second question".into() });
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert!(matches!(app.session_waiting().as_slice(), [Action::Send(line)] if line.starts_with("third")));
    assert_eq!(app.session_waiting(), vec![], "nothing left");
    let screen = text(&frame(&mut app, 80, 24));
    assert!(!screen.contains("queued 1") && !screen.contains("1 queued"), "{screen}");
}

fn ctrl_x() -> KeyEvent {
    KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL)
}

#[test]
fn up_on_an_empty_prompt_takes_the_newest_back_and_ctrl_x_drops_it() {
    let mut app = two_queued();
    app.handle_key(key(KeyCode::Up));
    assert!(app.view().prompt.starts_with("third: a much longer"), "{}", app.view().prompt);
    assert_eq!(app.view().queued, 1);
    // Edited and sent again, it joins the queue's end.
    set_prompt(&mut app, "third, shorter");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Queued("third, shorter".into())]);
    // Ctrl+X drops the newest, and does not interrupt.
    assert_eq!(app.handle_key(ctrl_x()), vec![]);
    assert_eq!(app.view().queued, 1);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("dropped from the queue: third, shorter"), "{screen}");
    assert_eq!(app.handle_key(ctrl_x()), vec![]);
    assert_eq!(app.view().queued, 0);
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt]);
}

/// Issue 38: Esc with prompts queued interrupts the turn (it used to drop the newest
/// prompt and let the turn run on); the queue stays, held until the next Enter, so the
/// interrupted turn is not followed by another the user did not ask for now.
#[test]
fn esc_with_prompts_queued_interrupts_and_holds_them_until_enter() {
    let mut app = two_queued();
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt], "Esc interrupts");
    assert_eq!(app.view().queued, 2, "and keeps the queue");
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    assert_eq!(app.session_waiting(), vec![], "nothing runs after the interrupt by itself");
    assert!(app.view().queue_held);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("queued 2 · Up edits the last · Ctrl+X drops it · held: Enter sends them"), "{screen}");
    assert!(screen.lines().last().unwrap().contains("Enter sends the queued"), "{screen}");
    insta::assert_snapshot!(screen);
    // Enter on the empty prompt sends the oldest; the next goes when the session asks.
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Send("second question".into())]);
    assert!(!app.view().queue_held);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "second question".into() });
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert!(matches!(app.session_waiting().as_slice(), [Action::Send(line)] if line.starts_with("third")));
}

#[test]
fn esc_then_enter_interrupts_and_sends_before_the_queue() {
    let clock = ManualClock::default();
    let mut app = two_queued();
    app.set_clock(Arc::new(clock.clone()));
    for c in "urgent".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt]);
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Queued("urgent".into())]);
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    assert_eq!(app.session_waiting(), vec![Action::Send("urgent".into())], "before the queued ones");
    app.handle_agent(AgentEvent::TurnStarted { prompt: "urgent".into() });
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert_eq!(app.session_waiting(), vec![Action::Send("second question".into())], "then the queue goes on");

    // A prompt typed long after the interrupt, the session already waiting: it goes at
    // once, the held queue after it.
    app.handle_agent(AgentEvent::TurnStarted { prompt: "second question".into() });
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt]);
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    assert_eq!(app.session_waiting(), vec![]);
    clock.advance(Duration::from_secs(5));
    for c in "later".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        app.handle_key(key(KeyCode::Enter)),
        vec![Action::Queued("later".into()), Action::Send("later".into())],
        "sent now, before the queue"
    );
    app.handle_agent(AgentEvent::TurnStarted { prompt: "later".into() });
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert!(matches!(app.session_waiting().as_slice(), [Action::Send(line)] if line.starts_with("third")));
}

/// Issue 32: a prompt a `UserPromptSubmit` hook refuses starts no turn; the count must not
/// stay at one.
#[test]
fn a_queued_prompt_refused_before_its_turn_leaves_no_count() {
    let mut app = app();
    send(&mut app, "first");
    app.handle_agent(AgentEvent::TurnStarted { prompt: "first".into() });
    send(&mut app, "my secret is 42");
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    assert_eq!(app.session_waiting(), vec![Action::Send("my secret is 42".into())]);
    app.handle_agent(AgentEvent::Error("prompt not sent: no secrets in prompts".into()));
    assert_eq!(app.view().queued, 0);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(!screen.contains("queued 1") && !screen.contains("1 queued"), "{screen}");
    // The next prompt goes at once: nothing runs.
    assert_eq!(send(&mut app, "hello"), vec![Action::Submit("hello".into())]);
}

/// A long paste queued shows as its chip, not its first lines.
#[test]
fn a_queued_long_paste_shows_as_its_chip() {
    let mut app = app();
    send(&mut app, "first");
    app.handle_agent(AgentEvent::TurnStarted { prompt: "first".into() });
    for c in "look: ".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    let pasted: String = (1..=50).map(|i| format!("log line {i}\n")).collect();
    app.handle_paste(&pasted);
    assert!(matches!(app.handle_key(key(KeyCode::Enter)).as_slice(), [Action::Queued(_)]));
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("1. look: [pasted 50 lines]"), "{screen}");
    assert!(!screen.contains("log line 1"), "{screen}");
}
