//! Issue 30, the rough edges of round three, through `App` and `TestBackend`: the context
//! panel's title on a narrow pane, Home then Down in the conversation, Enter in the tool log
//! with nothing selected.

use crate::tui::screens::{app, call, frame, text};
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
    app.handle_agent(AgentEvent::ToolFinished {
        call: read,
        result: json!({"content": "x", "path": "README.md"}).into(),
    });
    frame(&mut app, 80, 24);
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Home));
    let top = text(&frame(&mut app, 80, 24));
    assert!(top.contains("question 0"), "{top}");
    app.handle_key(key(KeyCode::Down));
    frame(&mut app, 80, 24);
    assert_eq!(app.view().conversation_top, 1, "one row down");
    app.handle_key(key(KeyCode::Down));
    frame(&mut app, 80, 24);
    assert_eq!(app.view().conversation_top, 2);
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
        crate::tui::drive::show_context(&mut app, true);
        let buf = frame(&mut app, width, height);
        let screen = text(&buf);
        let title_row = screen.lines().find(|l| l.contains("% of") || l.contains("context")).unwrap_or_default();
        assert!(!title_row.contains("of┐") && !title_row.contains("f┐"), "{width}x{height}:\n{screen}");
        assert!(screen.contains("% of 200k"), "the share is shown at {width}x{height}:\n{screen}");
    }
}

fn long_paste() -> String {
    (1..=500).map(|i| format!("pasted line {i}\n")).collect()
}

/// A 500-line paste is a chip in the prompt; recalled with Up it is a chip again (and sent
/// whole), not 500 lines in the editor.
#[test]
fn a_long_paste_recalled_with_up_is_a_chip_again() {
    let mut app = app();
    app.handle_paste(&long_paste());
    assert_eq!(app.view().prompt, "[pasted 500 lines]");
    let whole = long_paste().trim_end().to_string();
    let sent = app.handle_key(key(KeyCode::Enter));
    assert_eq!(sent, vec![elelem::tui::app::Action::Submit(whole.clone())]);
    app.handle_key(key(KeyCode::Up));
    assert_eq!(app.view().prompt, "[pasted 500 lines]", "recalled as a chip");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![elelem::tui::app::Action::Submit(whole)]);
}

/// A resumed session's long prompt (it comes back as text, without the paste) shows as a
/// chip in the conversation, Space on it shows it whole.
#[test]
fn a_long_prompt_of_a_resumed_session_shows_as_a_chip() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: long_paste() });
    app.handle_agent(AgentEvent::saying("noted"));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("› [pasted 500 lines]") && !screen.contains("pasted line 2"), "{screen}");
}

/// `/tools` output (an Info) wraps each line under its own indent, never back to column 0.
#[test]
fn command_output_wraps_under_its_indent() {
    let mut app = app();
    let about = "a description long enough to wrap at eighty columns, and then some more words";
    app.handle_agent(AgentEvent::Info(format!("read — Read a text file. {about}\n    path (string) {about}")));
    let screen = text(&frame(&mut app, 80, 24));
    insta::assert_snapshot!("tools_output_wraps_80x24", screen);
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("more words") || l.contains("and then")).collect();
    assert!(rows.iter().all(|l| l.starts_with("│  ")), "{screen}");
}

/// A reply interrupted in the middle of a table row leaves no bare `|` on a line of its own.
#[test]
fn an_interrupted_table_leaves_no_bare_pipe() {
    for tail in ["|", "| 3", "| 3 |", "| 3 | 4"] {
        let mut app = app();
        app.handle_agent(AgentEvent::TurnStarted { prompt: "a table".into() });
        app.handle_agent(AgentEvent::saying(format!("| a | b |\n|---|---|\n| 1 | 2 |\n{tail}")));
        frame(&mut app, 80, 24);
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
        let screen = text(&frame(&mut app, 80, 24));
        let bare = screen.lines().any(|l| l.trim_start_matches('│').trim_end_matches([' ', '│']).trim() == "|");
        assert!(!bare, "after {tail:?}:\n{screen}");
        assert!(screen.contains("1 │ 2"), "the finished rows stay:\n{screen}");
    }
}

/// Tab to the tool log after a turn, Enter: the newest call opens (nothing was selected,
/// and Enter did nothing).
#[test]
fn enter_in_the_tool_log_with_nothing_selected_opens_the_newest_call() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    for (id, path) in [("r1", "README.md"), ("r2", "Cargo.toml")] {
        let read = call(id, "read", json!({"path": path}));
        app.handle_agent(AgentEvent::ToolStarted { call: read.clone(), summary: path.into() });
        app.handle_agent(AgentEvent::ToolFinished {
            call: read,
            result: json!({"content": format!("the text of {path}"), "path": path}).into(),
        });
    }
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    frame(&mut app, 120, 40);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    app.handle_key(key(KeyCode::Enter));
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("the text of Cargo.toml") && !screen.contains("the text of README.md"), "{screen}");
    assert_eq!(app.view().tool_log_call.as_deref(), Some("r2"));
}
