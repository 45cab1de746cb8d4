//! Issue 30, calmer tool traffic: consecutive successful calls of a step that printed
//! nothing are one conversation line (`+ read ×12`, or `+ read ×6, glob ×6` for several
//! tools), which Space expands to a line per call; a failure, or a command's output, is
//! always a line of its own.

use crate::tui::screens::{app, call, frame, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::output::AgentEvent;
use elelem::tui::app::{App, Focus};
use serde_json::json;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Starts and finishes call `id` of `tool` with `result`.
fn run(app: &mut App, id: &str, tool: &str, args: serde_json::Value, result: serde_json::Value) {
    let summary = args.as_object().and_then(|o| o.values().next()).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let call = call(id, tool, args);
    app.handle_agent(AgentEvent::ToolStarted { call: call.clone(), summary });
    app.handle_agent(AgentEvent::ToolFinished { call, result: result.into() });
}

/// Twelve reads, a failed read among them, a command with output, then two globs.
fn busy_turn() -> App {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "look around".into() });
    for i in 0..12 {
        let path = format!("src/file_{i}.rs");
        run(&mut app, &format!("r{i}"), "read", json!({"path": path}), json!({"content": "x", "path": path}));
    }
    run(&mut app, "bad", "read", json!({"path": "nope.rs"}), json!({"error": "no such file: nope.rs"}));
    run(&mut app, "r12", "read", json!({"path": "README.md"}), json!({"content": "x", "path": "README.md"}));
    run(&mut app, "x1", "execute", json!({"command": "ls"}), json!({"content": "Cargo.toml\nsrc\n", "exit_status": 0}));
    run(&mut app, "g1", "glob", json!({"pattern": "*.md"}), json!({"content": "README.md"}));
    run(&mut app, "g2", "glob", json!({"pattern": "*.toml"}), json!({"content": "Cargo.toml"}));
    app
}

#[test]
fn consecutive_calls_of_one_tool_are_one_line_and_a_failure_its_own_at_120x40() {
    let mut app = busy_turn();
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("+ read ×12 · #1 src/file_0.rs · #2 src/file_1.rs"), "{screen}");
    assert!(screen.contains("x #13 read nope.rs"), "the failure is its own line:\n{screen}");
    assert!(screen.contains("+ glob ×2"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_group_fits_an_80x24_screen_on_one_line() {
    let mut app = busy_turn();
    let screen = text(&frame(&mut app, 80, 24));
    let row = screen.lines().find(|l| l.contains("read ×12")).unwrap_or_default();
    assert!(row.ends_with('…') || row.ends_with('│'), "cut at the pane's edge: {row:?}");
    insta::assert_snapshot!(screen);
}

#[test]
fn space_on_a_group_shows_a_line_per_call_and_again_hides_them() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "read three".into() });
    for (i, path) in ["a.rs", "b.rs", "c.rs"].into_iter().enumerate() {
        run(&mut app, &format!("r{i}"), "read", json!({"path": path}), json!({"content": "x", "path": path}));
    }
    frame(&mut app, 100, 30);
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Char(' ')));
    let screen = text(&frame(&mut app, 100, 30));
    for line in ["+ read ×3 · #1 a.rs · #2 b.rs · #3 c.rs", "  + #1 read a.rs", "  + #2 read b.rs", "  + #3 read c.rs"]
    {
        assert!(screen.contains(line), "{line:?} missing:\n{screen}");
    }
    insta::assert_snapshot!(screen);
    app.handle_key(key(KeyCode::Char(' ')));
    let screen = text(&frame(&mut app, 100, 30));
    assert!(!screen.contains("│  + #2 read b.rs"), "collapsed again:\n{screen}");
}

#[test]
fn calls_finishing_out_of_order_still_group() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "two at once".into() });
    let (a, b) = (call("a", "read", json!({"path": "a.rs"})), call("b", "read", json!({"path": "b.rs"})));
    app.handle_agent(AgentEvent::ToolStarted { call: a.clone(), summary: "a.rs".into() });
    app.handle_agent(AgentEvent::ToolStarted { call: b.clone(), summary: "b.rs".into() });
    app.handle_agent(AgentEvent::ToolFinished { call: b, result: json!({"content": "x"}).into() });
    app.handle_agent(AgentEvent::ToolFinished { call: a, result: json!({"content": "x"}).into() });
    let screen = text(&frame(&mut app, 100, 30));
    assert!(screen.contains("+ read ×2 · #1 a.rs · #2 b.rs"), "{screen}");
}

#[test]
fn reads_of_two_steps_are_not_one_line() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "two steps".into() });
    for (i, path) in ["a.rs", "b.rs"].into_iter().enumerate() {
        run(&mut app, &format!("r{i}"), "read", json!({"path": path}), json!({"content": "x", "path": path}));
    }
    // The next response ends (its usage comes) before its calls run.
    app.handle_agent(AgentEvent::Usage(elelem::protocol::Usage {
        input_tokens: 10,
        output_tokens: 2,
        ..Default::default()
    }));
    run(&mut app, "r2", "read", json!({"path": "c.rs"}), json!({"content": "x", "path": "c.rs"}));
    let screen = text(&frame(&mut app, 100, 30));
    assert!(screen.contains("+ read ×2 · #1 a.rs · #2 b.rs"), "{screen}");
    assert!(screen.contains("│+ #3 read c.rs"), "the next step's call is a line of its own:\n{screen}");
}

/// A step's calls of several tools, read and glob taking turns: one line, not twelve (and
/// a row between each), counted per tool; Space shows a line per call.
#[test]
fn a_steps_calls_of_several_tools_are_one_line() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "look around".into() });
    for i in 0..12 {
        if i % 2 == 0 {
            let path = format!("src/file_{i}.rs");
            run(&mut app, &format!("r{i}"), "read", json!({"path": path}), json!({"content": "x", "path": path}));
        } else {
            let pattern = format!("*{i}.md");
            run(&mut app, &format!("g{i}"), "glob", json!({"pattern": pattern}), json!({"content": ""}));
        }
    }
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("│+ read ×6, glob ×6 · #1 read src/file_0.rs · #2 glob *1.md · #3 read"), "{screen}");
    assert_eq!(screen.matches("#2 glob").count(), 2, "the group's line and the tool log's row:\n{screen}");
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Char(' ')));
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("│  + #1 read src/file_0.rs") && screen.contains("│  + #12 glob *11.md"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// A call that changed a file keeps its own line between the reads around it: what changed
/// is never folded into a count.
#[test]
fn a_call_that_changed_a_file_keeps_its_own_line() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "fix it".into() });
    for i in 0..2 {
        let path = format!("src/file_{i}.rs");
        run(&mut app, &format!("r{i}"), "read", json!({"path": path}), json!({"content": "x", "path": path}));
    }
    let edit = call("e1", "edit", json!({"path": "src/file_1.rs"}));
    app.handle_agent(AgentEvent::ToolStarted { call: edit.clone(), summary: "src/file_1.rs".into() });
    app.handle_agent(AgentEvent::FileChange {
        call_id: "e1".into(),
        path: "src/file_1.rs".into(),
        old: Some("x".into()),
        new: "y".into(),
    });
    app.handle_agent(AgentEvent::ToolFinished { call: edit, result: json!({"ok": true}).into() });
    run(&mut app, "r2", "read", json!({"path": "src/file_2.rs"}), json!({"content": "x", "path": "src/file_2.rs"}));
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("│+ read ×2 · #1 src/file_0.rs · #2 src/file_1.rs"), "{screen}");
    assert!(screen.contains("│+ #3 edit src/file_1.rs"), "the edit joined a group:\n{screen}");
    assert!(screen.contains("│+ #4 read src/file_2.rs"), "{screen}");
}
