//! The plan strip (ratatui `TestBackend`): the model's newest plan stays pinned above the
//! prompt after a long reply, each step marked and the current one highlighted, collapsed
//! to one line on a short screen; a newer plan replaces it.

use crate::tui::screens::{app, frame, text};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::plan::Plan;
use serde_json::json;

fn plan(statuses: [&str; 3]) -> Plan {
    let steps: Vec<_> = ["Read the failing test", "Fix the parser", "Run the whole suite"]
        .iter()
        .zip(statuses)
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    serde_json::from_value(json!({"steps": steps, "explanation": "the parser drops the last token"})).unwrap()
}

/// A turn that sets a plan, then replies with 80 paragraphs.
fn long_turn(app: &mut elelem::tui::app::App) {
    app.handle_agent(AgentEvent::TurnStarted { prompt: "fix the parser".into() });
    app.handle_agent(AgentEvent::Plan(plan(["completed", "in_progress", "pending"])));
    for i in 0..80 {
        app.handle_agent(AgentEvent::saying(format!("Paragraph {i} of a long answer.\n\n")));
    }
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
}

#[test]
fn the_plan_stays_pinned_after_a_long_reply_120x40() {
    let mut app = app();
    long_turn(&mut app);
    let buf = frame(&mut app, 120, 40);
    let screen = text(&buf);
    assert!(screen.contains("Paragraph 79"), "the reply scrolled to its end:\n{screen}");
    for step in ["✓ Read the failing test", "▸ Fix the parser", "○ Run the whole suite"] {
        assert!(screen.contains(step), "{step} missing:\n{screen}");
    }
    // The step in progress stands out from the done one.
    let row = |needle: &str| screen.lines().position(|l| l.contains(needle)).unwrap() as u16;
    let style_at = |y: u16| {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect();
        let x = line.chars().take_while(|c| !c.is_alphabetic()).count() as u16;
        buf[(x + 2, y)].style()
    };
    assert_ne!(style_at(row("Fix the parser")), style_at(row("Read the failing test")));
    insta::assert_snapshot!(screen);
}

#[test]
fn a_short_screen_collapses_the_plan_to_one_line_80x24() {
    let mut app = app();
    long_turn(&mut app);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("plan 1/3 · ▸ Fix the parser"), "{screen}");
    assert!(!screen.contains("○ Run the whole suite"), "collapsed:\n{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_newer_plan_replaces_the_old_one() {
    let mut app = app();
    long_turn(&mut app);
    app.handle_agent(AgentEvent::Plan(plan(["completed", "completed", "in_progress"])));
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("plan 2/3") && screen.contains("▸ Run the whole suite"), "{screen}");
    assert!(!screen.contains("▸ Fix the parser"), "{screen}");
}

/// Issue 38: a plan whose steps are all done stays pinned through the turn that finished
/// it, unpins when the next turn starts, and `/plan` still lists it.
#[test]
fn a_completed_plan_unpins_when_the_next_turn_starts_and_plan_lists_it() {
    for (width, height) in [(120, 40), (80, 24)] {
        let mut app = app();
        long_turn(&mut app);
        app.handle_agent(AgentEvent::Plan(plan(["completed", "completed", "completed"])));
        let screen = text(&frame(&mut app, width, height));
        assert!(screen.contains("plan 3/3"), "pinned until the next turn:\n{screen}");
        app.handle_agent(AgentEvent::TurnStarted { prompt: "and now the docs".into() });
        app.handle_agent(AgentEvent::saying("Docs updated."));
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
        let screen = text(&frame(&mut app, width, height));
        assert!(!screen.contains("plan 3/3") && !screen.contains("✓ Run the whole suite"), "unpinned:\n{screen}");
        insta::assert_snapshot!(format!("a_completed_plan_unpins_{width}x{height}"), screen);
        app.run_line("/plan");
        let screen = text(&frame(&mut app, width, height));
        assert!(screen.contains("plan 3/3") && screen.contains("✓ Run the whole suite"), "/plan:\n{screen}");
    }
}

/// A plan with steps left stays pinned when the next turn starts.
#[test]
fn an_unfinished_plan_stays_pinned_through_the_next_turn() {
    let mut app = app();
    long_turn(&mut app);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go on".into() });
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("plan 1/3") && screen.contains("▸ Fix the parser"), "{screen}");
}
