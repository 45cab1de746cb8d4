//! A sub-agent in the tool log (ratatui `TestBackend`): the `task` call is one row with its
//! token count; the child's calls nest under it (the last few while it runs, all when the
//! row is expanded), and none of them reaches the conversation pane.

use crate::tui::screens::{app, call, frame, text};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::Usage;
use elelem::tui::app::{App, Focus};
use elelem::tui::runtime::clock::ManualClock;
use serde_json::json;
use std::time::Duration;

fn nested(event: AgentEvent) -> AgentEvent {
    AgentEvent::SubAgent { call_id: "toolu_task".into(), event: Box::new(event) }
}

/// A turn whose `task` call ran a sub-agent that read, searched and listed (one failed),
/// then replied.
fn task_turn(app: &mut App, finish: bool) {
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let task_args = json!({"description": "find the parser's tests", "prompt": "List every test of the parser."});
    app.handle_agent(AgentEvent::TurnStarted { prompt: "where are the parser tests?".into() });
    app.handle_agent(AgentEvent::saying("I'll hand the search to a sub-agent.\n"));
    app.handle_agent(AgentEvent::ToolStarted {
        call: call("toolu_task", "task", task_args.clone()),
        summary: "find the parser's tests".into(),
    });
    let calls = [
        ("c1", "grep", "fn parse", json!({"content": "src/parser.rs:12", "ok": true})),
        ("c2", "read", "tests/parser.rs", json!({"content": "     1\t#[test]", "ok": true})),
        ("c3", "read", "tests/\u{1b}[31mmissing.rs", json!({"error": "no such file", "ok": false})),
        ("c4", "list", "tests", json!({"content": "parser.rs", "ok": true})),
    ];
    for (id, name, path, result) in calls {
        let args = json!({"path": path});
        app.handle_agent(nested(AgentEvent::ToolStarted { call: call(id, name, args.clone()), summary: path.into() }));
        clock.advance(Duration::from_millis(300));
        app.handle_agent(nested(AgentEvent::ToolFinished { call: call(id, name, args), result: result.into() }));
    }
    app.handle_agent(nested(AgentEvent::ToolStarted {
        call: call("c5", "glob", json!({"pattern": "**/*_test.rs"})),
        summary: "**/*_test.rs".into(),
    }));
    app.handle_agent(nested(AgentEvent::Usage(Usage {
        input_tokens: 12_400,
        output_tokens: 900,
        ..Default::default()
    })));
    if finish {
        app.handle_agent(nested(AgentEvent::ToolFinished {
            call: call("c5", "glob", json!({"pattern": "**/*_test.rs"})),
            result: json!({"content": "", "ok": true}).into(),
        }));
        clock.advance(Duration::from_millis(500));
        app.handle_agent(AgentEvent::ToolFinished {
            call: call("toolu_task", "task", task_args),
            result: json!({"content": "The parser's tests are in tests/parser.rs.", "tokens": 13_300, "ok": true})
                .into(),
        });
        app.handle_agent(AgentEvent::saying("They are in `tests/parser.rs`.\n"));
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    }
}

fn expand_the_task_row(app: &mut App) {
    crate::tui::drive::focus(app, Focus::Tools);
    crate::tui::drive::press(app, crossterm::event::KeyCode::Up);
    crate::tui::drive::press(app, crossterm::event::KeyCode::Enter);
}

#[test]
fn a_sub_agent_row_expanded_shows_its_calls_nested_120x40() {
    let mut app = app();
    task_turn(&mut app, true);
    expand_the_task_row(&mut app);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("13k tok"), "the sub-agent's tokens on its row:\n{screen}");
    for nested in ["↳ + grep fn parse", "↳ + read tests/parser.rs", "↳ x read tests/missing.rs", "↳ + glob"] {
        assert!(screen.contains(nested), "{nested} missing:\n{screen}");
    }
    assert!(!screen.contains('\u{1b}'), "a nested summary is sanitised");
    let conversation: Vec<&str> = screen.lines().map(|l| l.split('│').nth(1).unwrap_or("")).collect();
    assert!(!conversation.join("\n").contains("grep fn parse"), "the child's calls stay out of the conversation");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_sub_agent_row_expanded_shows_its_calls_nested_80x24() {
    let mut app = app();
    task_turn(&mut app, true);
    expand_the_task_row(&mut app);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("↳ + grep fn parse"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_running_sub_agent_shows_its_last_calls_under_its_row() {
    let mut app = app();
    task_turn(&mut app, false);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("↳ · glob **/*_test.rs"), "the running call:\n{screen}");
    assert!(screen.contains("↳ + list tests"), "{screen}");
    assert!(!screen.contains("grep fn parse"), "only the last three while running:\n{screen}");
}

#[test]
fn a_sub_agents_tokens_count_in_the_session_totals() {
    let mut app = app();
    task_turn(&mut app, true);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("session ↑12k ↓900"), "{screen}");
}
