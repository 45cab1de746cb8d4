//! Issue 39: the popups are a stack (`popups/stack.rs`), and which one takes a key is what
//! the old hand-ordered chain decided: an approval that arrives while the help is open
//! takes the keys over it (typing, before it is armed, still goes to the help), and a model
//! list that arrives then waits under the help until it closes.

use crate::tui::drive::press;
use crate::tui::screens::{app, frame, text};
use crossterm::event::KeyCode;
use elelem::agent::input::{Approval, ApprovalRequest};
use elelem::agent::output::AgentEvent;
use elelem::agent::{Preview, PreviewKind};
use elelem::protocol::ModelInfo;
use elelem::tui::app::{App, APPROVAL_PAUSE};
use elelem::tui::runtime::clock::ManualClock;
use serde_json::json;
use tokio::sync::oneshot;

fn ask(app: &mut App) -> oneshot::Receiver<Approval> {
    let (tx, rx) = oneshot::channel();
    let request = ApprovalRequest {
        call_id: "e1".into(),
        tool: "edit".into(),
        args: json!({"path": "src/calc.py"}),
        summary: "src/calc.py".into(),
        preview: Preview { kind: PreviewKind::Diff, text: "-a\n+b\n".into() },
    };
    app.ask(request, tx);
    rx
}

#[test]
fn an_approval_arriving_while_the_help_is_open_takes_the_keys_over_it() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.view().popups, ["help"]);
    let mut answer = ask(&mut app);
    assert_eq!(app.view().popups, ["help", "approval"], "the approval on top");
    let screen = text(&frame(&mut app, 100, 30));
    assert!(screen.contains("Allow edit?") && screen.contains("typing goes to the prompt"), "{screen}");
    // Not armed yet: a letter is typing, and goes on to the help's search under it.
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(app.view().help_query.as_deref(), Some("x"));
    assert!(app.view().prompt_empty, "the help took it, not the prompt");
    clock.advance(APPROVAL_PAUSE);
    assert!(text(&frame(&mut app, 100, 30)).contains("[1] yes"), "armed");
    press(&mut app, KeyCode::Char('1'));
    assert_eq!(answer.try_recv().ok(), Some(Approval::Yes));
    assert_eq!(app.view().popups, ["help"], "the help is still open, its search kept");
    assert_eq!(app.view().help_query.as_deref(), Some("x"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(app.view().popups.is_empty());
}

#[test]
fn a_model_list_arriving_while_the_help_is_open_waits_under_it() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    let listed = Ok(vec![ModelInfo::named("m-one"), ModelInfo::named("m-two")]);
    app.handle_agent(AgentEvent::Models { provider: "anthropic".into(), current: "m-one".into(), listed });
    assert_eq!(app.view().popups, ["model picker", "help"], "the help keeps the keys");
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.view().help_query.as_deref(), Some("m"));
    press(&mut app, KeyCode::Esc); // clears the help's search
    press(&mut app, KeyCode::Esc); // closes the help
    assert_eq!(app.view().top(), Some("model picker"));
    press(&mut app, KeyCode::Esc);
    assert!(app.view().popups.is_empty() && app.view().prompt_empty, "closed, nothing put in the prompt");
}
