//! Issue 30, round three: what the conversation shows first (the welcome, until the first
//! prompt) and a running command's latest lines under its line, as snapshots of the
//! conversation pane at 120x40 and 80x24, dark and light.

use crate::tui::screens::{app, call, frame, light_app, styled_with, text};
use elelem::agent::output::{AgentEvent, Delta};
use elelem::tui::app::App;
use elelem::tui::runtime::welcome::Welcome;
use ratatui::layout::Rect;
use serde_json::json;

fn demo_welcome() -> Welcome {
    Welcome {
        provider: "stub".into(),
        model: "stub-demo".into(),
        asked: false,
        instructions: Some("AGENTS.md".into()),
        plugin_files: 2,
        mcp_servers: 1,
        readme: Some("README.md".into()),
        git: true,
    }
}

fn conversation_rows(app: &App, height: u16) -> Rect {
    let pane = app.view().rects.conversation;
    Rect { x: pane.x + 1, y: pane.y + 1, width: pane.width - 2, height: height.min(pane.height - 2) }
}

#[test]
fn the_welcome_at_120x40_and_80x24() {
    for (width, height) in [(120, 40), (80, 24)] {
        let mut app = app();
        app.seed_welcome(&demo_welcome());
        let screen = text(&frame(&mut app, width, height));
        assert!(screen.contains("No API key found") && screen.contains("AGENTS.md loaded"), "{screen}");
        assert!(screen.contains("not their tool output") && screen.contains("/context list"), "{screen}");
        insta::assert_snapshot!(format!("welcome_{width}x{height}"), screen);
    }
}

#[test]
fn the_welcome_in_the_dark_and_light_palettes() {
    for (name, mut app) in [("welcome_dark_styles", app()), ("welcome_light_styles", light_app())] {
        app.seed_welcome(&demo_welcome());
        let buf = frame(&mut app, 120, 40);
        insta::assert_snapshot!(name, styled_with(&buf, conversation_rows(&app, 14), true));
    }
}

#[test]
fn the_first_prompt_takes_the_welcome_away() {
    let mut app = app();
    app.seed_welcome(&demo_welcome());
    app.handle_agent(AgentEvent::TurnStarted { prompt: "hello there".into() });
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("› hello there"), "{screen}");
    assert!(!screen.contains("No API key found") && !screen.contains("Try: explain"), "{screen}");
}

fn output(id: &str, chunk: &str) -> AgentEvent {
    AgentEvent::Delta(Delta::ToolOutput { id: id.into(), chunk: chunk.into() })
}

/// A running command: its last five lines under its line (a long one wrapped under its
/// gutter), then the final tail in their place when it ends.
#[test]
fn a_running_command_shows_its_last_lines_then_its_final_tail() {
    let mut app = app();
    let command = json!({"command": "./build.sh"});
    app.handle_agent(AgentEvent::TurnStarted { prompt: "build it".into() });
    app.handle_agent(AgentEvent::ToolStarted {
        call: call("b1", "execute", command.clone()),
        summary: "./build.sh".into(),
    });
    for i in 1..=7 {
        app.handle_agent(output("b1", &format!("step {i} of 9\n")));
    }
    app.handle_agent(output("b1", &format!("warning: {}\ncompiling", "a long line that wraps ".repeat(5))));
    let buf = frame(&mut app, 80, 24);
    insta::assert_snapshot!("live_output_80x24", styled_with(&buf, conversation_rows(&app, 12), false));
    let running = text(&buf);
    assert!(running.contains("│  │ step 7 of 9") && !running.contains("step 2 of 9"), "{running}");

    app.handle_agent(AgentEvent::ToolFinished {
        call: call("b1", "execute", command),
        result: json!({"exit_status": 0, "content": "step 8 of 9\nstep 9 of 9\nbuilt\n"}).into(),
    });
    let done = text(&frame(&mut app, 120, 40));
    insta::assert_snapshot!("live_output_finished_120x40", done);
    assert!(done.contains("│+ #1 execute ./build.sh") && !done.contains("compiling"), "{done}");
}
