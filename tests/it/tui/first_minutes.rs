//! Issue 38, the first ten minutes (ratatui `TestBackend`, driven by the agent's events):
//! confirmations asked whole above the prompt instead of cut off the status line's end;
//! notices that go with what they say (a provider's failure once a later turn succeeds,
//! "asking for its models" once the picker lists them) and never cut (a mode's sentence
//! goes above the prompt when the status line has no room); a digit pressed as an approval
//! opens neither answers nor lands in the prompt; scrolled up, the conversation's title says
//! how far the bottom is, and Home/End on an empty prompt scroll it.

use crate::tui::drive::set_prompt;
use crate::tui::screens::{app, frame, light_app, styled_with, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::input::{Approval, ApprovalRequest};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::agent::{Preview, PreviewKind};
use elelem::protocol::mode::Mode;
use elelem::protocol::Usage;
use elelem::tui::app::{Action, App, Confirm, APPROVAL_GUARD};
use elelem::tui::runtime::clock::ManualClock;
use ratatui::layout::Rect;
use std::time::Duration;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
}

/// The screen's rows, and the row index of the first holding `what`.
fn row_of(screen: &str, what: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(what))
}

/// The words of the rows from `first` on that belong to one wrapped question (its first row
/// starts with `? `, the rest are indented).
fn asked_words(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let Some(first) = rows.iter().position(|r| r.starts_with("? ")) else { return vec![] };
    let mut words: Vec<String> = rows[first][2..].split_whitespace().map(str::to_string).collect();
    for row in &rows[first + 1..] {
        if !row.starts_with("  ") || row.trim().is_empty() {
            break;
        }
        words.extend(row.split_whitespace().map(str::to_string));
    }
    words
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// A short exchange, so the screen has a conversation above the prompt.
fn with_exchange(app: &mut App) {
    app.handle_agent(AgentEvent::TurnStarted { prompt: "what is this?".into() });
    app.handle_agent(AgentEvent::saying("A small demo project."));
    app.handle_agent(AgentEvent::Usage(Usage { input_tokens: 12_345, output_tokens: 678, ..Default::default() }));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
}

/// Issue 38: at 80 columns `/clear` seemed to do nothing — its question was cut off the
/// status line's end. It is asked above the prompt, whole, at any width.
#[test]
fn clears_confirmation_is_whole_above_the_prompt() {
    for (width, height) in [(80, 24), (120, 40), (60, 20)] {
        let mut app = app();
        with_exchange(&mut app);
        set_prompt(&mut app, "/clear");
        assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![], "the first Enter asks");
        let screen = text(&frame(&mut app, width, height));
        assert_eq!(asked_words(&screen), words(Confirm::Clear.text()), "{width}x{height}:\n{screen}");
        let asked = row_of(&screen, "? Clear the conversation").unwrap();
        let prompt = row_of(&screen, "│/clear").unwrap();
        assert!(asked < prompt, "above the prompt:\n{screen}");
        let status = screen.lines().last().unwrap();
        assert!(!status.contains("Clear") && !status.contains('…'), "{status}");
        if width == 80 {
            insta::assert_snapshot!("clear_asked_above_the_prompt_80x24", screen);
        } else if width == 120 {
            insta::assert_snapshot!("clear_asked_above_the_prompt_120x40", screen);
        }
    }
}

/// The question's rows in the dark and the light palette.
#[test]
fn clears_confirmation_in_both_palettes() {
    let mut shots = Vec::new();
    for mut app in [app(), light_app()] {
        set_prompt(&mut app, "/clear");
        app.handle_key(key(KeyCode::Enter));
        let buf = frame(&mut app, 80, 24);
        let screen = text(&buf);
        let row = row_of(&screen, "? Clear the conversation").unwrap() as u16;
        shots.push(styled_with(&buf, Rect::new(0, row, 80, 2), true));
    }
    insta::assert_snapshot!("clear_asked_dark_and_light", shots.join("---\n"));
}

/// Ctrl+C on an empty prompt asks above the prompt whether to quit (it interrupts a running
/// turn first); the question goes once its time is up.
#[test]
fn ctrl_c_asks_above_the_prompt_whether_to_quit() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(app.handle_key(ctrl_c), vec![Action::Interrupt]);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("? Turn interrupted. Ctrl+C again to quit elelem"), "{screen}");
    assert!(!screen.lines().last().unwrap().contains("Ctrl+C"), "not on the status line:\n{screen}");
    assert!(app.animating(), "drawn again when the question goes");
    std::thread::sleep(elelem::tui::app::DOUBLE_CTRL_C);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(!screen.contains("again to quit") && app.view().confirm.is_none(), "{screen}");
}

/// Ctrl+D on an empty prompt and `/quit` quit at once while idle, but while a turn runs they
/// ask above the prompt, whole at 80 columns, as Ctrl+C does: Esc lets the turn go on,
/// Enter (or the same key or command again) quits, and so does the turn's end.
#[test]
fn quitting_with_a_turn_running_asks_first() {
    let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
    let mut idle = app();
    assert_eq!(idle.handle_key(ctrl_d), vec![Action::Quit], "idle: at once");
    let mut idle = app();
    set_prompt(&mut idle, "/quit");
    assert_eq!(idle.handle_key(key(KeyCode::Enter)), vec![Action::Quit], "idle: at once");

    for ask in ["ctrl+d", "/quit"] {
        let mut app = app();
        app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
        let asking = |app: &mut App| match ask {
            "ctrl+d" => app.handle_key(ctrl_d),
            _ => {
                set_prompt(app, "/quit");
                app.handle_key(key(KeyCode::Enter))
            }
        };
        assert_eq!(asking(&mut app), vec![], "{ask} asks first");
        assert_eq!(app.view().confirm, Some(Confirm::QuitRunning));
        let screen = text(&frame(&mut app, 80, 24));
        assert_eq!(asked_words(&screen), words(Confirm::QuitRunning.text()), "{ask}:\n{screen}");
        assert!(!screen.lines().last().unwrap().contains("quit anyway"), "not on the status line:\n{screen}");

        // Esc: no; the turn is not interrupted either.
        assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![], "{ask}");
        assert!(app.view().confirm.is_none());
        let screen = text(&frame(&mut app, 80, 24));
        assert!(!screen.contains("quit anyway"), "{screen}");

        // Asked again, Enter on the empty prompt quits; so does the same key or command.
        assert_eq!(asking(&mut app), vec![]);
        assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Quit], "{ask}");
        let mut app = self::app();
        app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
        let asking = |app: &mut App| match ask {
            "ctrl+d" => app.handle_key(ctrl_d),
            _ => {
                set_prompt(app, "/quit");
                app.handle_key(key(KeyCode::Enter))
            }
        };
        assert_eq!(asking(&mut app), vec![]);
        assert_eq!(asking(&mut app), vec![Action::Quit], "{ask} twice");

        // Still asked when the turn ends: the quit goes through, nothing runs any more.
        let mut app = self::app();
        app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
        assert_eq!(asking(&mut app), vec![]);
        assert!(!app.quitting());
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
        assert!(app.quitting(), "{ask}: the turn ended");
    }
}

/// Issue 38: `mode: plan — only read-only tools run until you acce…` was cut. The status line
/// drops its token counts and the provider's name first; a notice still too long goes whole
/// above the prompt, and the mode stays on the status line.
#[test]
fn a_mode_notice_is_never_cut_at_80_columns() {
    let mut app = app();
    with_exchange(&mut app);
    app.handle_agent(AgentEvent::Mode(Mode::Plan));
    let screen = text(&frame(&mut app, 80, 24));
    let status = screen.lines().last().unwrap().to_string();
    assert!(status.contains("plan mode (Shift+Tab)") && !status.contains('…'), "{status}");
    let said = Mode::Plan.describe();
    let joined: Vec<String> = screen.lines().filter(|l| l.starts_with("│ ")).flat_map(|l| words(&l[4..])).collect();
    assert!(joined.join(" ").contains(said), "the whole sentence:\n{screen}");
    insta::assert_snapshot!("mode_notice_80x24", screen);

    // A short notice stays on the status line, the tokens dropped to make room.
    let mut app = self::app();
    with_exchange(&mut app);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "more".into() });
    app.handle_agent(AgentEvent::Usage(Usage { input_tokens: 12_345, output_tokens: 678, ..Default::default() }));
    type_text(&mut app, "and then the tests");
    app.handle_key(key(KeyCode::Enter));
    let status = text(&frame(&mut app, 80, 24)).lines().last().unwrap().to_string();
    assert!(status.contains("│ queued: it runs when this turn ends") && status.ends_with("Esc interrupt"), "{status}");
    assert!(!status.contains('…') && !status.contains("session"), "{status}");
}

/// Issue 38: `provider stub failed: 529 overloaded_erro…` stayed after a later good turn.
#[test]
fn a_provider_failure_notice_goes_when_a_later_turn_succeeds() {
    let mut app = app();
    let failure = "provider stub failed: 529 overloaded_error";
    app.handle_agent(AgentEvent::TurnStarted { prompt: "one".into() });
    app.handle_agent(AgentEvent::Warning(failure.into()));
    app.handle_agent(AgentEvent::Error("529 overloaded_error".into()));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Failed });
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.lines().last().unwrap().contains(failure), "said while it holds:\n{screen}");
    assert!(app.notice_ends().is_some(), "drawn again when its time is up");
    assert!(!app.animating(), "a notice alone does not need a frame every tick");
    app.handle_agent(AgentEvent::TurnStarted { prompt: "two".into() });
    assert!(text(&frame(&mut app, 120, 40)).lines().last().unwrap().contains(failure), "still said while retrying");
    app.handle_agent(AgentEvent::saying("fine now"));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    let screen = text(&frame(&mut app, 120, 40));
    assert!(!screen.lines().last().unwrap().contains("overloaded"), "gone after a good turn:\n{screen}");
    assert!(!app.animating() && app.notice_ends().is_none());
}

/// Issue 38: `asking stub for its models…` stayed while the picker already listed them.
#[test]
fn asking_for_the_models_goes_once_the_picker_lists_them() {
    let mut app = app();
    type_text(&mut app, "/models");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit("/models".into())]);
    assert!(text(&frame(&mut app, 120, 40)).contains("asking stub for its models…"));
    let listed = vec![elelem::protocol::ModelInfo { id: "stub-demo".into(), context_window: None, price: None }];
    app.handle_agent(AgentEvent::Models { provider: "stub".into(), current: "stub-demo".into(), listed: Ok(listed) });
    let screen = text(&frame(&mut app, 120, 40));
    assert!(app.view().has("model picker"), "{screen}");
    assert!(!screen.contains("asking stub"), "{screen}");
}

fn ask_execute(app: &mut App) -> tokio::sync::oneshot::Receiver<Approval> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let request = ApprovalRequest {
        call_id: "c1".into(),
        tool: "execute".into(),
        args: serde_json::json!({"command": "ls"}),
        summary: "ls".into(),
        preview: Preview { kind: PreviewKind::Command, text: "$ ls".into() },
    };
    app.ask(request, tx);
    rx
}

/// Issue 38: a "1" pressed within ~0.3 s of an approval opening typed "1" into the prompt
/// and stayed there for the next prompt. Not typing, it is dropped and the dialog says to
/// press it again; typing, a digit still goes to the prompt.
#[test]
fn an_early_digit_neither_answers_nor_lands_in_the_prompt() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let mut rx = ask_execute(&mut app);
    clock.advance(APPROVAL_GUARD / 3);
    assert_eq!(app.handle_key(key(KeyCode::Char('1'))), vec![]);
    assert!(rx.try_recv().is_err(), "not an answer");
    assert!(app.view().prompt_empty, "not text: {:?}", app.view().prompt);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("“1” came too early: not taken · press it again in a moment"), "{screen}");
    assert!(screen.contains("typing goes to the prompt"), "not armed yet:\n{screen}");
    clock.advance(APPROVAL_GUARD);
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("[1] yes") && screen.contains("press it again"), "armed, and says so:\n{screen}");
    insta::assert_snapshot!("early_digit_armed_80x24", screen);
    app.handle_key(key(KeyCode::Char('1')));
    assert_eq!(rx.try_recv().unwrap(), Approval::Yes);
    assert!(app.view().prompt_empty);

    // A digit that is part of typing still goes to the prompt.
    type_text(&mut app, "fix bug ");
    let mut rx = ask_execute(&mut app);
    clock.advance(APPROVAL_GUARD / 3);
    type_text(&mut app, "12");
    assert!(rx.try_recv().is_err());
    assert_eq!(app.view().prompt, "fix bug 12");
    assert!(!text(&frame(&mut app, 80, 24)).contains("came too early"));
}

/// The accept-plan dialog drops an early digit the same way.
#[test]
fn an_early_digit_does_not_answer_the_accept_plan_dialog() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    app.handle_agent(AgentEvent::Mode(Mode::Plan));
    app.handle_agent(AgentEvent::TurnStarted { prompt: "plan it".into() });
    use elelem::protocol::plan::{Plan, PlanStep, StepStatus};
    let plan = Plan { steps: vec![PlanStep { step: "read".into(), status: StepStatus::Pending }], explanation: None };
    app.handle_agent(AgentEvent::Plan(plan));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    clock.advance(Duration::from_millis(50));
    assert_eq!(app.handle_key(key(KeyCode::Char('2'))), vec![]);
    assert!(app.view().prompt_empty);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("Accept the plan") && screen.contains("“2” came too early"), "{screen}");
}

/// A reply long enough to scroll.
fn long_reply(app: &mut App) {
    app.handle_agent(AgentEvent::TurnStarted { prompt: "tell me everything".into() });
    let reply: String = (1..=150).map(|i| format!("line {i} of the reply\n\n")).collect();
    app.handle_agent(AgentEvent::saying(reply));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
}

/// Issue 38: no sign of being scrolled up in a long reply. The title says how far the
/// bottom is; Home and End on an empty prompt scroll the conversation.
#[test]
fn scrolled_up_the_title_says_how_far_the_bottom_is() {
    for (width, height) in [(80u16, 24u16), (120, 40)] {
        let mut app = app();
        long_reply(&mut app);
        let screen = text(&frame(&mut app, width, height));
        assert!(!screen.contains("lines · End"), "at the bottom:\n{screen}");
        app.handle_key(key(KeyCode::PageUp));
        let screen = text(&frame(&mut app, width, height));
        let page = app.view().conversation_rows - 2;
        assert!(screen.contains(&format!("┌ conversation · ↓ {page} lines · End ")), "{screen}");
        insta::assert_snapshot!(format!("scrolled_up_title_{width}x{height}"), screen);

        // Home on the empty prompt: the top (the banner), the title counting all below.
        app.handle_key(key(KeyCode::Home));
        let screen = text(&frame(&mut app, width, height));
        assert!(screen.contains("elelem v0.1.0"), "{screen}");
        let below = app.view().rows_below.unwrap();
        assert!(below > 150 && screen.contains(&format!("· ↓ {below} lines · End")), "{screen}");
        app.handle_key(key(KeyCode::End));
        let screen = text(&frame(&mut app, width, height));
        assert!(screen.contains("line 150 of the reply") && !screen.contains("lines · End"), "{screen}");
    }
    // With text in the prompt, Home stays the editor's.
    let mut app = app();
    long_reply(&mut app);
    type_text(&mut app, "draft");
    app.handle_key(key(KeyCode::Home));
    assert!(!text(&frame(&mut app, 80, 24)).contains("lines · End"));
}
