//! Modes on Shift+Tab (issue 30): ask → accept edits → plan. Through `App` (TestBackend):
//! Shift+Tab cycles the modes (sending `/mode WORD`), the mode shows in the status line and the prompt's border
//! (snapshots at 120x40 and 80x24), a plan-mode turn that made a plan opens the accept-plan
//! dialog, which takes digits only once armed. Through the real binary in a pty (this
//! module lives under `tui_pty` for its `Tui`): accept edits writes without a dialog, plan
//! mode refuses `write` and accepting the plan switches mode and goes ahead.

use super::Tui;
use crate::tui::screens::{app, frame, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::mode::Mode;
use elelem::protocol::plan::Plan;
use elelem::tui::app::Action;
use elelem::tui::runtime::clock::ManualClock;
use serde_json::json;
use std::time::Duration;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn plan() -> Plan {
    serde_json::from_value(json!({"steps": [
        {"step": "Read the parser", "status": "completed"},
        {"step": "Fix the last token", "status": "pending"}
    ]}))
    .unwrap()
}

#[test]
fn shift_tab_cycles_the_modes_and_tells_the_session() {
    let mut app = app();
    assert_eq!(app.handle_key(key(KeyCode::BackTab)), vec![Action::Submit("/mode edits".into())]);
    assert!(text(&frame(&mut app, 80, 24)).contains("prompt · accept edits"), "shown at once");
    // Shift+Tab while the composer holds text switches too and keeps the text.
    for c in "half typed".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(app.handle_key(KeyCode::BackTab.into()), vec![Action::Submit("/mode plan".into())]);
    assert_eq!(app.handle_key(KeyCode::BackTab.into()), vec![Action::Submit("/mode ask".into())]);
    assert!(text(&frame(&mut app, 80, 24)).contains("half typed"));
}

#[test]
fn accept_edits_shows_in_the_status_line_and_the_prompt_border_120x40() {
    let mut app = app();
    let before = text(&frame(&mut app, 120, 40));
    assert!(!before.contains("accept edits"), "ask mode says nothing:\n{before}");
    app.handle_agent(AgentEvent::Mode(Mode::Edits));
    let screen = text(&frame(&mut app, 120, 40));
    let border = screen.lines().find(|l| l.contains("prompt")).unwrap_or_default().to_string();
    assert!(border.contains("prompt · accept edits"), "border: {border}\n{screen}");
    let status = screen.lines().last().unwrap_or_default();
    assert!(status.contains("accept edits (Shift+Tab)"), "status: {status}");
    insta::assert_snapshot!(screen);
}

#[test]
fn plan_mode_shows_in_the_status_line_and_the_prompt_border_80x24() {
    let mut app = app();
    app.handle_agent(AgentEvent::Mode(Mode::Plan));
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("prompt · plan mode"), "{screen}");
    insta::assert_snapshot!(screen);
    app.handle_agent(AgentEvent::Mode(Mode::Ask));
    let screen = text(&frame(&mut app, 80, 24));
    assert!(!screen.contains("plan mode (Shift+Tab)") && !screen.contains("prompt · plan"), "{screen}");
}

#[test]
fn a_plan_made_in_plan_mode_opens_the_accept_dialog_which_waits_to_be_armed() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    app.handle_agent(AgentEvent::Mode(Mode::Plan));
    app.handle_agent(AgentEvent::TurnStarted { prompt: "fix the parser".into() });
    app.handle_agent(AgentEvent::Plan(plan()));
    let during = text(&frame(&mut app, 120, 40));
    assert!(!during.contains("Accept the plan"), "not while the turn runs:\n{during}");
    app.handle_agent(AgentEvent::TurnFinished { reply: "Here is my plan.".into(), end: TurnEnd::Done });
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("Accept the plan (2 steps)?"), "{screen}");
    assert!(screen.contains("typing goes to the prompt"), "not armed at once:\n{screen}");
    // A digit pressed at once is not an answer, nor text for the prompt (issue 38): the
    // dialog says it came too early.
    assert_eq!(app.handle_key(key(KeyCode::Char('2'))), vec![]);
    assert!(app.view().prompt_empty);
    assert!(text(&frame(&mut app, 120, 40)).contains("Accept the plan"));
    clock.advance(Duration::from_millis(1100));
    let armed = text(&frame(&mut app, 120, 40));
    assert!(armed.contains("[1] yes, ask before changes  [2] yes, accept edits  [3] keep planning"), "{armed}");
    insta::assert_snapshot!(armed);
    let actions = app.handle_key(key(KeyCode::Char('2')));
    assert_eq!(actions.first(), Some(&Action::Submit("/mode edits".into())), "{actions:?}");
    match actions.get(1) {
        Some(Action::Submit(prompt)) => {
            assert!(prompt.contains("go ahead with the plan") && prompt.contains("Fix the last token"), "{prompt}")
        }
        other => panic!("the go-ahead prompt: {other:?}"),
    }
    assert!(!text(&frame(&mut app, 120, 40)).contains("Accept the plan"), "closed");
}

#[test]
fn a_plan_made_in_ask_mode_opens_no_dialog() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "fix the parser".into() });
    app.handle_agent(AgentEvent::Plan(plan()));
    app.handle_agent(AgentEvent::TurnFinished { reply: "done".into(), end: TurnEnd::Done });
    assert!(!text(&frame(&mut app, 120, 40)).contains("Accept the plan"));
}

/// Shift+Tab, as a terminal sends it.
const SHIFT_TAB: &str = "\x1b[Z";

#[test]
fn accept_edits_writes_inside_the_project_without_a_dialog_through_the_real_binary() {
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "hi\n"}}]},
        {"events": [{"type": "saying", "text": "written without asking"}]},
        {"events": [{"type": "doing", "id": "w2", "name": "write", "arguments": {"path": ".agents/x.json", "content": "{}"}}]},
        {"events": [{"type": "saying", "text": "second done"}]}
    ]);
    let mut tui = Tui::start(script, 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send(SHIFT_TAB);
    tui.wait_for("prompt · accept edits");
    tui.wait_for("accept edits (Shift+Tab)");
    tui.send("write a file\r");
    tui.wait_for("written without asking");
    assert!(!tui.contents().contains("Allow write?"), "{}", tui.contents());
    assert_eq!(std::fs::read_to_string(tui._dir.path().join("new.txt")).unwrap(), "hi\n");
    // A protected path is still asked about.
    tui.send("now the settings\r");
    tui.wait_for("Allow write?");
    tui.wait_armed();
    tui.send("3");
    tui.wait_for("second done");
    assert!(!tui._dir.path().join(".agents/x.json").exists());
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn plan_mode_refuses_write_and_accepting_the_plan_switches_mode_through_the_real_binary() {
    let plan = json!({"steps": [{"step": "Write late.txt", "status": "pending"}]});
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "early.txt", "content": "no\n"}}]},
        {"events": [{"type": "doing", "id": "p1", "name": "plan", "arguments": plan}]},
        {"events": [{"type": "saying", "text": "That is my plan."}]},
        {"events": [{"type": "doing", "id": "w2", "name": "write", "arguments": {"path": "late.txt", "content": "yes\n"}}]},
        {"events": [{"type": "saying", "text": "plan carried out"}]}
    ]);
    let mut tui = Tui::start(script, 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send(SHIFT_TAB);
    tui.wait_for("prompt · accept edits");
    tui.send(SHIFT_TAB);
    tui.wait_for("prompt · plan mode");
    tui.send("make a plan\r");
    tui.wait_for("Accept the plan (1 step)?");
    let screen = tui.contents();
    assert!(!tui._dir.path().join("early.txt").exists(), "plan mode ran write:\n{screen}");
    assert!(!screen.contains("Allow write?"), "refused, not asked:\n{screen}");
    tui.wait_armed();
    tui.send("2");
    tui.wait_for("plan carried out");
    assert_eq!(std::fs::read_to_string(tui._dir.path().join("late.txt")).unwrap(), "yes\n");
    let screen = tui.contents();
    assert!(screen.contains("prompt · accept edits"), "{screen}");
    assert!(!screen.contains("Allow write?"), "accept edits asks nothing:\n{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// The resume picker (`popups/resume_picker.rs`), drawn through `App`: rows of date, turns
/// and first prompt, the chosen session's last exchange, the filter; session text from a
/// file anyone could write is drawn without its control sequences.
#[test]
fn the_resume_picker_lists_sessions_filters_and_sanitizes_120x40() {
    use elelem::startup::SessionRow;
    let row = |id: &str, date: &str, turns, first: &str, last: &str, reply: &str| SessionRow {
        id: id.into(),
        date: date.into(),
        turns,
        first_prompt: first.into(),
        last_prompt: last.into(),
        last_reply: reply.into(),
    };
    let mut app = app();
    app.open_resume(vec![
        row("b", "2026-12-03 10:00", 3, "fix the parser \x1b]0;pwned\x07now", "and the tests?", "All 12 pass."),
        row("a", "2026-12-01 09:30", 1, "explain the layers", "explain the layers", "There are six."),
    ]);
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("2 of 2") && screen.contains("2026-12-03 10:00    3 turns  fix the parser"), "{screen}");
    assert!(screen.contains("› and the tests?") && screen.contains("‹ All 12 pass."), "{screen}");
    assert!(!screen.contains('\x1b') && !screen.contains('\x07'), "{screen:?}");
    insta::assert_snapshot!(screen);
    for c in "LAYERS".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("1 of 2") && screen.contains("‹ There are six."), "{screen}");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Quit], "Enter resumes: the session stops");
    assert_eq!(app.take_resume().as_deref(), Some("a"));
}

/// The rewind picker, drawn through `App`: the prompts newest first.
#[test]
fn the_rewind_picker_lists_the_prompts_newest_first_80x24() {
    let mut app = app();
    for prompt in ["first prompt", "second prompt"] {
        app.handle_agent(AgentEvent::TurnStarted { prompt: prompt.into() });
        app.handle_agent(AgentEvent::TurnFinished { reply: "ok".into(), end: TurnEnd::Done });
    }
    assert_eq!(app.run_line("/rewind"), vec![]);
    let screen = text(&frame(&mut app, 80, 24));
    let newest = screen.find(" 1. second prompt").expect("newest first");
    assert!(screen[newest..].contains(" 2. first prompt"), "{screen}");
    insta::assert_snapshot!(screen);
    app.handle_key(key(KeyCode::Down));
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit("/rewind 2".into())]);
    app.handle_agent(AgentEvent::Rewound { turns: 2 });
    assert!(text(&frame(&mut app, 80, 24)).contains("│first prompt"), "the prompt is back in the composer");
}

/// `--mode plan` for `ask`, and `/mode edits` in the line REPL: the same gate. Piped, the
/// REPL cannot ask, so only accept edits lets the write run.
#[test]
fn ask_with_mode_plan_refuses_write_and_the_line_repl_takes_mode_edits() {
    use std::io::Write as _;
    let home = crate::support::home::Home::new();
    let write = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "hi\n"}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    let script = home.script(write.clone());
    let out = home.command(&["ask", "--json", "--mode", "plan", "write it"], &script).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(r#""mode":"plan""#), "{stdout}");
    assert!(stdout.contains("plan mode, where only read-only tools run"), "{stdout}");
    assert!(!home.dir.path().join("new.txt").exists());

    let script = home.script(write);
    let mut child = home.command(&["chat", "--plain"], &script).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"/mode\n/mode edits\nwrite it\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Mode: ask (/mode ask|edits|plan; Shift+Tab cycles)"), "{stdout}");
    assert!(stdout.contains("mode: accept edits — file changes inside the project run without asking"), "{stdout}");
    assert_eq!(std::fs::read_to_string(home.dir.path().join("new.txt")).unwrap(), "hi\n", "{stdout}");
}

/// The gate in each mode, as an attacker would try it (`permissions_support`'s session with
/// the real plugin and tools): accept edits lets only `write`/`edit` of files inside the
/// project through unasked — not a path outside, not one reached through a symlink, not a
/// protected path, not a command, not another tool that names a path, not a denied tool;
/// plan mode refuses every tool that changes things, even under --yolo.
#[tokio::test]
async fn accept_edits_and_plan_hold_against_every_way_around_them() {
    use crate::support::permissions::{call, interactive, Answers, Dirs};
    use elelem::agent::{Approval, Tool};
    let dirs = Dirs::new(None, None);
    let outside = dirs.root.path().join("outside.txt");
    std::os::unix::fs::symlink(&outside, dirs.project.join("link.txt")).unwrap();
    let answers = Answers::new(&[]);
    let mut session = dirs.session(interactive(), answers.clone()).unwrap();
    // A tool that names a path but does not say it only edits files.
    let stamp = || {
        Tool::new(
            "stamp",
            "stamps a file",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            |_, _| async { Ok(json!({"content": "stamped"})) },
        )
        .unwrap()
        .touches_paths(&["path"])
    };
    session.toolbox_mut().add(stamp());
    session.set_mode(Mode::Edits);

    let inside = call(&mut session, "write", json!({"path": dirs.file("a.txt"), "content": "hi\n"})).await;
    assert_eq!(inside["ok"], true, "{inside}");
    let edit = call(&mut session, "edit", json!({"path": dirs.file("a.txt"), "old": "hi", "new": "ho"})).await;
    assert!(answers.asked().is_empty(), "write and edit inside the project are not asked: {edit}");
    for (name, args) in [
        ("write", json!({"path": outside.to_str().unwrap(), "content": "x"})),
        ("write", json!({"path": dirs.file("link.txt"), "content": "x"})),
        ("write", json!({"path": dirs.file(".agents/permissions.json"), "content": "{\"*\": \"allow\"}"})),
        ("write", json!({"path": dirs.file(".git/hooks/pre-commit"), "content": "#!/bin/sh\n"})),
        ("execute", json!({"command": "echo hi"})),
        ("stamp", json!({"path": dirs.file("a.txt")})),
    ] {
        let before = answers.asked().len();
        let result = call(&mut session, name, args.clone()).await;
        assert_eq!(answers.asked().len(), before + 1, "{name} {args} was not asked about: {result}");
        assert_eq!(result["ok"], false, "{result}");
    }
    assert!(!outside.exists(), "nothing reached outside the project");
    assert!(!dirs.project.join(".agents/permissions.json").exists());

    let denied = Dirs::new(Some(r#"{"write": "deny"}"#), None);
    let mut session = denied.session(interactive(), Answers::new(&[Approval::Yes])).unwrap();
    session.set_mode(Mode::Edits);
    let result = call(&mut session, "write", json!({"path": denied.file("a.txt"), "content": "x"})).await;
    assert_eq!(result["error"], "Permission denied: write", "a deny rule still denies");

    let options = elelem::startup::Options { yolo: true, ..interactive() };
    let answers = Answers::new(&[]);
    let mut session = dirs.session(options, answers.clone()).unwrap();
    session.toolbox_mut().add(stamp());
    session.set_mode(Mode::Plan);
    for (name, args) in [
        ("write", json!({"path": dirs.file("b.txt"), "content": "x"})),
        ("execute", json!({"command": "touch c.txt"})),
        ("stamp", json!({"path": dirs.file("a.txt")})),
    ] {
        let result = call(&mut session, name, args).await;
        assert!(result["error"].as_str().unwrap_or("").contains("plan mode"), "{name}: {result}");
    }
    assert_eq!(call(&mut session, "read", json!({"path": dirs.file("a.txt")})).await["ok"], true);
    assert!(answers.asked().is_empty() && !dirs.project.join("b.txt").exists());
}

#[test]
fn shift_tab_during_a_turn_lets_its_next_edit_run_unasked_through_the_real_binary() {
    let script = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "one.txt", "content": "1\n"}}]},
        {"events": [{"type": "doing", "id": "w2", "name": "write", "arguments": {"path": "two.txt", "content": "2\n"}}]},
        {"events": [{"type": "saying", "text": "both written"}]}
    ]);
    let mut tui = Tui::start(script, 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send("write two files\r");
    tui.wait_for("Allow write?");
    // While the first call waits for its answer, switch to accept edits.
    tui.send(SHIFT_TAB);
    tui.wait_for("prompt · accept edits");
    tui.wait_armed();
    tui.send("1");
    tui.wait_for("both written");
    let dir = tui._dir.path();
    assert_eq!(std::fs::read_to_string(dir.join("two.txt")).unwrap(), "2\n", "{}", tui.contents());
    assert!(!tui.contents().contains("Allow write?"), "the second write was not asked about");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// The mode survives resume: a session left in accept edits comes back in it (the status
/// line says so and a write runs unasked); `--mode` given on resume wins and is kept.
#[test]
fn the_mode_comes_back_with_the_session_unless_mode_is_given() {
    let mut tui = Tui::start(json!([{"events": [{"type": "saying", "text": "first answer"}]}]), 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send(SHIFT_TAB);
    tui.wait_for("accept edits (Shift+Tab)");
    tui.send("hello\r");
    tui.wait_for("first answer");
    tui.send("\x04");
    assert!(tui.wait_exit().success());

    let write = json!([
        {"events": [{"type": "doing", "id": "w1", "name": "write", "arguments": {"path": "new.txt", "content": "hi\n"}}]},
        {"events": [{"type": "saying", "text": "written without asking"}]}
    ]);
    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let mut again = Tui::start_in(dir, write, 30, 110, &["--continue"]);
    again.wait_for("Resumed session");
    let screen = again.contents();
    assert!(screen.contains("accept edits (Shift+Tab)") && screen.contains("prompt · accept edits"), "{screen}");
    again.send("write a file\r");
    again.wait_for("written without asking");
    assert!(!again.contents().contains("Allow write?"), "{}", again.contents());
    assert_eq!(std::fs::read_to_string(again._dir.path().join("new.txt")).unwrap(), "hi\n");
    again.send("\x04");
    assert!(again.wait_exit().success());

    // `--mode ask` on resume wins, and is what the next resume finds.
    for args in [&["--continue", "--mode", "ask"][..], &["--continue"][..]] {
        let dir = std::mem::replace(&mut again._dir, tempfile::tempdir().unwrap());
        again = Tui::start_in(dir, json!([]), 30, 110, args);
        again.wait_for("Resumed session");
        let screen = again.contents();
        assert!(!screen.contains("accept edits"), "{args:?}:\n{screen}");
        again.send("\x04");
        assert!(again.wait_exit().success());
    }
}
