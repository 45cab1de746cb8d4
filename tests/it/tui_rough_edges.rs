//! Issue 30, the rough edges of round three, through `App` and `TestBackend`: the context
//! panel's title on a narrow pane, Home then Down in the conversation.

use super::tui_snapshots::{app, call, frame, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::output::{AgentEvent, ContextSnapshot, TurnEnd};
use elelem::tui::app::Focus;
use serde_json::json;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Home then Down in the conversation moves one row, not to the tool line at the bottom.
#[test]
fn home_then_down_in_the_conversation_moves_one_row() {
    let mut app = app();
    for turn in 0..3 {
        app.handle_agent(AgentEvent::TurnStarted { prompt: format!("question {turn}") });
        let reply: String = (0..30).map(|i| format!("line {i} of reply {turn}\n\n")).collect();
        app.handle_agent(AgentEvent::saying(&reply));
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    }
    let read = call("r1", "read", json!({"path": "README.md"}));
    app.handle_agent(AgentEvent::ToolStarted { call: read.clone(), summary: "README.md".into() });
    app.handle_agent(AgentEvent::ToolFinished { call: read, result: json!({"content": "x", "path": "README.md"}).into() });
    frame(&mut app, 80, 24);
    app.set_focus(Focus::Conversation);
    app.handle_key(key(KeyCode::Home));
    let top = text(&frame(&mut app, 80, 24));
    assert!(top.contains("question 0"), "{top}");
    app.handle_key(key(KeyCode::Down));
    frame(&mut app, 80, 24);
    assert_eq!(app.history_mut().scroll.top, 1, "one row down");
    app.handle_key(key(KeyCode::Down));
    frame(&mut app, 80, 24);
    assert_eq!(app.history_mut().scroll.top, 2);
}

/// The context panel's title is never cut at its border (`1% of┐`): a narrow panel gets a
/// shorter title.
#[test]
fn the_context_panels_title_fits_its_border() {
    for (width, height) in [(80, 24), (100, 30), (120, 40)] {
        let mut app = app();
        app.handle_agent(AgentEvent::Context(ContextSnapshot {
            system_prompt: "You are elelem.".repeat(300),
            window: Some(200_000),
            ..ContextSnapshot::default()
        }));
        app.set_show_context(true);
        let buf = frame(&mut app, width, height);
        let screen = text(&buf);
        let title_row = screen.lines().find(|l| l.contains("% of") || l.contains("context")).unwrap_or_default();
        assert!(!title_row.contains("of┐") && !title_row.contains("f┐"), "{width}x{height}:\n{screen}");
        assert!(screen.contains("% of 200k"), "the share is shown at {width}x{height}:\n{screen}");
    }
}
