//! The TUI's key, paste and mouse handling, through `App` (no terminal needed).

use crate::tui::drive::clear_prompt;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::tui::app::{Action, App, Focus, APPROVAL_GUARD, APPROVAL_PAUSE};
use elelem::tui::runtime::clock::ManualClock;
use elelem::tui::runtime::notify::NotifyMode;
use elelem::tui::text::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};

fn app() -> App {
    let commands = vec![("/clear".into(), "forget".into()), ("/context".into(), "context".into())];
    App::new(Theme::new(false), "stub", "stub-demo", commands, vec!["first prompt".into(), "second prompt".into()])
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
}

fn draw(app: &mut App) -> String {
    let area = Rect::new(0, 0, 100, 30);
    let mut buf = Buffer::empty(area);
    app.render(area, &mut buf, Instant::now());
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn enter_sends_and_shift_enter_ctrl_j_insert_newlines() {
    let mut app = app();
    type_text(&mut app, "one");
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
    type_text(&mut app, "two");
    app.handle_key(ctrl('j'));
    type_text(&mut app, "three");
    assert_eq!(app.view().prompt, "one\ntwo\nthree");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit("one\ntwo\nthree".into())]);
    assert!(app.view().prompt_empty);
}

#[test]
fn paste_keeps_newlines() {
    let mut app = app();
    app.handle_paste("line 1\r\nline 2\n");
    assert_eq!(app.view().prompt, "line 1\nline 2\n");
}

#[test]
fn up_and_down_recall_earlier_prompts() {
    let mut app = app();
    type_text(&mut app, "draft");
    app.handle_key(key(KeyCode::Up));
    assert_eq!(app.view().prompt, "second prompt");
    app.handle_key(key(KeyCode::Up));
    assert_eq!(app.view().prompt, "first prompt");
    app.handle_key(key(KeyCode::Down));
    app.handle_key(key(KeyCode::Down));
    assert_eq!(app.view().prompt, "draft");
}

#[test]
fn ctrl_c_clears_then_twice_quits_and_ctrl_d_quits_when_empty() {
    let mut app = app();
    type_text(&mut app, "oops");
    assert!(app.handle_key(ctrl('c')).is_empty());
    assert!(app.view().prompt_empty);
    assert_eq!(app.handle_key(ctrl('c')), vec![Action::Quit]);
    let mut app = self::app();
    assert_eq!(app.handle_key(ctrl('d')), vec![Action::Quit]);
}

#[test]
fn esc_interrupts_only_a_running_turn() {
    let mut app = app();
    assert!(app.handle_key(key(KeyCode::Esc)).is_empty());
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt]);
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    assert!(draw(&mut app).contains("interrupted"));
}

/// Issue 30: Esc means one thing per place. From a pane it goes back to the prompt and
/// never interrupts; from the prompt it interrupts; the status line offers what Esc does.
#[test]
fn esc_from_a_pane_returns_to_the_prompt_and_never_interrupts() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    assert!(draw(&mut app).contains("Esc interrupt"), "{}", draw(&mut app));
    for pane in [Focus::Conversation, Focus::Tools, Focus::Context] {
        // The context panel takes the keys once shown (Ctrl+O).
        crate::tui::drive::show_context(&mut app, pane == Focus::Context);
        crate::tui::drive::focus(&mut app, pane);
        let screen = draw(&mut app);
        assert!(!screen.contains("Esc interrupt") && screen.contains("Esc back to prompt"), "{screen}");
        assert!(app.handle_key(key(KeyCode::Esc)).is_empty(), "Esc from {pane:?} interrupted");
        assert_eq!(app.view().focus, Focus::Composer);
    }
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![Action::Interrupt]);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    assert_eq!(app.handle_key(ctrl('c')), vec![Action::Interrupt], "Ctrl+C on an empty prompt interrupts");
}

#[test]
fn slash_popup_completes_and_context_toggles_the_panel() {
    let mut app = app();
    type_text(&mut app, "/con");
    assert!(draw(&mut app).contains("/context"));
    app.handle_key(key(KeyCode::Tab));
    assert_eq!(app.view().prompt, "/context ");
    assert!(app.handle_key(key(KeyCode::Enter)).is_empty(), "/context is handled by the UI");
    assert!(app.view().show_context);
    assert!(draw(&mut app).contains("tokens next call"));
    app.handle_key(ctrl('o'));
    assert!(!app.view().show_context);
}

#[test]
fn tab_moves_focus_shift_tab_switches_mode_and_typing_returns_to_the_prompt() {
    let mut app = app();
    app.handle_key(key(KeyCode::Tab));
    assert_eq!(app.view().focus, Focus::Conversation);
    app.handle_key(key(KeyCode::Tab));
    assert_eq!(app.view().focus, Focus::Tools);
    // Shift+Tab switches the mode (`tui_modes.rs`), not the focus.
    let actions = app.handle_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(actions, vec![Action::Submit("/mode edits".into())]);
    assert_eq!(app.view().focus, Focus::Tools);
    type_text(&mut app, "x");
    assert_eq!(app.view().focus, Focus::Composer);
    assert_eq!(app.view().prompt, "x");
}

#[test]
fn scrolling_up_stops_following_and_shows_the_new_output_hint() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "long".into() });
    app.handle_agent(AgentEvent::saying((0..200).map(|i| format!("line {i}\n\n")).collect::<String>()));
    draw(&mut app);
    let area = app.view().rects.conversation;
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: area.x + 2,
        row: area.y + 2,
        modifiers: KeyModifiers::NONE,
    };
    app.handle_mouse(wheel);
    assert!(!app.view().conversation_follows);
    app.handle_agent(AgentEvent::saying("more output\n"));
    let screen = draw(&mut app);
    assert!(screen.contains("new output"), "{screen}");
    assert!(!screen.contains("more output"));
    app.handle_key(KeyEvent::new(KeyCode::End, KeyModifiers::CONTROL));
    let screen = draw(&mut app);
    assert!(screen.contains("more output") && !screen.contains("new output"), "{screen}");
}

fn ask_execute(app: &mut App) -> tokio::sync::oneshot::Receiver<elelem::agent::input::Approval> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let request = elelem::agent::input::ApprovalRequest {
        call_id: "c1".into(),
        tool: "execute".into(),
        args: serde_json::json!({"command": "ls"}),
        summary: "ls".into(),
        preview: elelem::agent::Preview { kind: elelem::agent::PreviewKind::Command, text: "$ ls".into() },
    };
    app.ask(request, tx);
    rx
}

#[test]
fn an_approval_is_answered_with_digits_once_the_user_has_stopped_typing() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let mut rx = ask_execute(&mut app);
    clock.advance(APPROVAL_GUARD);
    // Letters are never answers: they go to the prompt.
    type_text(&mut app, "yan");
    assert!(rx.try_recv().is_err());
    assert_eq!(app.view().prompt, "yan");
    assert!(draw(&mut app).contains("typing goes to the prompt"));
    // A digit typed while typing is typing too.
    type_text(&mut app, "2");
    assert!(rx.try_recv().is_err());
    assert_eq!(app.view().prompt, "yan2");
    clock.advance(APPROVAL_PAUSE);
    assert!(draw(&mut app).contains("[2] always this session"));
    app.handle_key(key(KeyCode::Char('2')));
    assert_eq!(rx.try_recv().unwrap(), elelem::agent::input::Approval::Always);
    assert!(!app.view().has("approval"));
    assert_eq!(app.view().prompt, "yan2");
}

#[test]
fn keys_typed_ahead_of_the_dialog_are_kept_as_text_not_taken_as_answers() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    type_text(&mut app, "make it f");
    let mut rx = ask_execute(&mut app);
    clock.advance(APPROVAL_GUARD / 3);
    type_text(&mut app, "aster, yes");
    assert!(rx.try_recv().is_err(), "no answer was given");
    assert!(app.view().has("approval"));
    assert_eq!(app.view().prompt, "make it faster, yes");
    clock.advance(APPROVAL_PAUSE);
    app.handle_key(key(KeyCode::Char('3')));
    assert_eq!(rx.try_recv().unwrap(), elelem::agent::input::Approval::No);
}

#[test]
fn a_typist_never_answers_an_approval_whatever_the_sentence() {
    // A key every 70 ms (and pauses up to just under a second between words), the dialog
    // opening in the middle: nothing answers it, every key lands in the prompt in order.
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let sentence = "yes and also say hi any day, nay 123 yay a n y";
    let mut rx = None;
    for (i, c) in sentence.chars().enumerate() {
        if i == 5 {
            rx = Some(ask_execute(&mut app));
        }
        let gap = if c == ' ' { APPROVAL_PAUSE - Duration::from_millis(10) } else { Duration::from_millis(70) };
        clock.advance(gap);
        app.handle_key(key(KeyCode::Char(c)));
    }
    let mut rx = rx.unwrap();
    assert!(rx.try_recv().is_err(), "typing answered the dialog");
    assert!(app.view().has("approval"));
    assert_eq!(app.view().prompt, sentence);
    // After a pause the dialog takes digits, but a letter is the user typing again.
    clock.advance(APPROVAL_PAUSE);
    app.handle_key(key(KeyCode::Char('a')));
    assert!(rx.try_recv().is_err());
    app.handle_key(key(KeyCode::Char('1')));
    assert!(rx.try_recv().is_err(), "the digit right after a letter is typing");
    assert_eq!(app.view().prompt, format!("{sentence}a1"));
    // Esc while typing neither answers nor interrupts.
    assert!(app.handle_key(key(KeyCode::Esc)).is_empty());
    assert!(rx.try_recv().is_err());
    clock.advance(APPROVAL_PAUSE);
    app.handle_key(key(KeyCode::Esc));
    assert_eq!(rx.try_recv().unwrap(), elelem::agent::input::Approval::No);
}

#[test]
fn the_status_spinner_turns_while_a_turn_runs() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    let area = Rect::new(0, 0, 100, 30);
    let status = |app: &mut App, at: Instant| {
        let mut buf = Buffer::empty(area);
        app.render(area, &mut buf, at);
        (0..area.width).map(|x| buf[(x, area.height - 1)].symbol().to_string()).collect::<String>()
    };
    let start = app.view().started;
    let frames: std::collections::HashSet<String> =
        (0..4).map(|i| status(&mut app, start + std::time::Duration::from_millis(150 * i))).collect();
    assert_eq!(frames.len(), 4, "{frames:?}");
}

/// The text inside a pane drawn at `r`.
fn pane(screen: &str, r: Rect) -> String {
    let rows = screen.lines().skip(usize::from(r.y)).take(usize::from(r.height));
    rows.map(|l| l.chars().skip(usize::from(r.x)).take(usize::from(r.width)).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

fn tool_call(id: &str, command: &str) -> elelem::protocol::ToolCall {
    elelem::protocol::ToolCall {
        id: id.into(),
        name: "execute".into(),
        arguments: serde_json::json!({"command": command}),
    }
}

/// A turn that runs `calls` commands, then replies with `reply_lines` lines.
fn turn_with_calls(app: &mut App, calls: usize, reply_lines: usize) {
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    for n in 1..=calls {
        let call = tool_call(&format!("c{n}"), &format!("step {n}"));
        app.handle_agent(AgentEvent::ToolStarted { call: call.clone(), summary: format!("step {n}") });
        let result = serde_json::json!({"exit_status": 0, "content": format!("out {n}")}).into();
        app.handle_agent(AgentEvent::ToolFinished { call, result });
    }
    app.handle_agent(AgentEvent::saying((0..reply_lines).map(|i| format!("reply line {i}\n\n")).collect::<String>()));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
}

/// Issue 30: the status line says what is true now, derived from state, not what the
/// last event left behind.
#[test]
fn the_status_line_is_idle_after_a_bang_command_and_drops_answers_with_their_turn() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    // `!command` runs no turn: when it ends, nothing runs.
    let call = elelem::protocol::ToolCall { id: "b1".into(), name: "!".into(), arguments: serde_json::json!({}) };
    app.handle_agent(AgentEvent::ToolStarted { call: call.clone(), summary: "ls".into() });
    assert!(draw(&mut app).contains("running !"), "{}", draw(&mut app));
    app.handle_agent(AgentEvent::ToolFinished { call, result: serde_json::json!({"exit_status": 0}).into() });
    let screen = draw(&mut app);
    assert!(screen.contains("│ idle │") && !screen.contains("thinking"), "{screen}");

    // An answer's notice lasts no longer than its question and its turn.
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    let (tx, _edit) = tokio::sync::oneshot::channel();
    let edit = elelem::agent::input::ApprovalRequest {
        call_id: "e1".into(),
        tool: "edit".into(),
        args: serde_json::json!({}),
        summary: "a.txt".into(),
        preview: elelem::agent::Preview { kind: elelem::agent::PreviewKind::Arguments, text: "a.txt".into() },
    };
    app.ask(edit, tx);
    clock.advance(APPROVAL_PAUSE);
    app.handle_key(key(KeyCode::Char('1')));
    assert!(draw(&mut app).contains("edit allowed"));
    let _rx = ask_execute(&mut app);
    let screen = draw(&mut app);
    assert!(!screen.contains("edit allowed") && screen.contains("waiting for your approval"), "{screen}");
    clock.advance(APPROVAL_PAUSE);
    app.handle_key(key(KeyCode::Char('1')));
    assert!(draw(&mut app).contains("execute allowed"));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    let screen = draw(&mut app);
    assert!(!screen.contains("allowed") && screen.contains("│ idle │"), "{screen}");
}

/// Issue 30: `↓ N new` counts new rows below the view only, not new rows on screen.
#[test]
fn the_tool_logs_new_counter_counts_only_rows_below_the_view() {
    let mut app = app();
    turn_with_calls(&mut app, 2, 0);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "again".into() });
    draw(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    app.handle_key(key(KeyCode::Home)); // stops following
    start_call(&mut app, 3);
    let screen = draw(&mut app);
    assert!(pane(&screen, app.view().rects.tools).contains("#3 execute step 3"), "{screen}");
    assert!(!screen.contains("new (End)"), "the new row is on screen: {screen}");
}

#[test]
fn calls_are_numbered_in_both_panes() {
    let mut app = app();
    turn_with_calls(&mut app, 3, 0);
    let screen = draw(&mut app);
    assert!(pane(&screen, app.view().rects.conversation).contains("+ #3 execute step 3"), "{screen}");
    assert!(pane(&screen, app.view().rects.tools).contains("+ #3 execute step 3"), "{screen}");
}

#[test]
fn selecting_a_tool_row_brings_its_line_in_the_conversation_into_view() {
    let mut app = app();
    turn_with_calls(&mut app, 2, 100);
    let screen = draw(&mut app);
    let conversation = app.view().rects.conversation;
    assert!(!pane(&screen, conversation).contains("#1 execute"), "the first call starts off-screen:\n{screen}");
    crate::tui::drive::focus(&mut app, Focus::Tools);
    app.handle_key(key(KeyCode::Up)); // #2, the newest
    app.handle_key(key(KeyCode::Up)); // #1
    let screen = draw(&mut app);
    assert!(pane(&screen, conversation).contains("#1 execute step 1"), "{screen}");
}

#[test]
fn enter_on_a_tool_line_in_the_conversation_opens_its_details() {
    let mut app = app();
    turn_with_calls(&mut app, 3, 2);
    draw(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Up)); // the last tool line on screen: #3
    app.handle_key(key(KeyCode::Up)); // #2
    assert_eq!(app.view().conversation_call.as_deref(), Some("c2"));
    app.handle_key(key(KeyCode::Enter));
    assert_eq!(app.view().focus, Focus::Tools);
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c2"));
    let screen = draw(&mut app);
    assert!(screen.contains("command: step 2") && screen.contains("out 2"), "{screen}");
}

#[test]
fn space_shows_a_commands_whole_output_in_the_conversation() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    let call = tool_call("c1", "make");
    app.handle_agent(AgentEvent::ToolStarted { call: call.clone(), summary: "make".into() });
    let output: String = (1..=8).map(|i| format!("build line {i}\n")).collect();
    let result = serde_json::json!({"exit_status": 2, "content": output}).into();
    app.handle_agent(AgentEvent::ToolFinished { call, result });
    let screen = draw(&mut app);
    assert!(screen.contains("x #1 execute make · exit 2"), "{screen}");
    assert!(screen.contains("build line 8") && !screen.contains("build line 5"), "only the tail:\n{screen}");
    assert!(screen.contains("5 earlier lines"), "{screen}");
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Char(' ')));
    let screen = draw(&mut app);
    assert!(screen.contains("build line 1") && screen.contains("build line 8"), "{screen}");
}

fn start_call(app: &mut App, n: usize) {
    let call = tool_call(&format!("c{n}"), &format!("step {n}"));
    app.handle_agent(AgentEvent::ToolStarted { call, summary: format!("step {n}") });
}

#[test]
fn the_tool_log_follows_new_rows_unless_scrolled_and_end_follows_again() {
    let mut app = app();
    turn_with_calls(&mut app, 30, 0);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "again".into() });
    draw(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Up));
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c29"));
    start_call(&mut app, 31);
    let screen = draw(&mut app);
    assert!(
        pane(&screen, app.view().rects.tools).contains("#31 execute step 31"),
        "selecting a row does not stop following:\n{screen}"
    );

    app.handle_key(key(KeyCode::PageUp));
    start_call(&mut app, 32);
    start_call(&mut app, 33);
    let screen = draw(&mut app);
    let tools = pane(&screen, app.view().rects.tools);
    assert!(!tools.contains("#33 execute"), "{screen}");
    assert!(screen.contains("↓ 2 new (End)"), "{screen}");

    app.handle_key(key(KeyCode::End));
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c33"), "End selects the newest row");
    app.handle_key(key(KeyCode::Down));
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c33"), "and Down does not jump back");
    start_call(&mut app, 34);
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c34"), "the selection follows new rows again");
    let screen = draw(&mut app);
    assert!(
        pane(&screen, app.view().rects.tools).contains("#34 execute step 34") && !screen.contains("new (End)"),
        "{screen}"
    );
}

#[test]
fn question_mark_and_slash_help_open_the_help_overlay_and_esc_closes_it() {
    let mut app = app();
    app.handle_key(key(KeyCode::Char('?')));
    assert!(app.view().has("help") && app.view().prompt_empty);
    let screen = draw(&mut app);
    let row = screen.lines().find(|l| l.contains("Ctrl+J")).unwrap_or_default();
    assert!(row.contains("new line"), "a key and its meaning share a row:\n{screen}");
    app.handle_key(key(KeyCode::Esc));
    assert!(!app.view().has("help"));
    assert!(!draw(&mut app).contains("Ctrl+J"), "help does not print into the conversation");

    type_text(&mut app, "/help");
    assert!(app.handle_key(key(KeyCode::Enter)).is_empty(), "/help is not sent to the agent");
    assert!(app.view().has("help"));
    app.handle_key(key(KeyCode::Esc));
    type_text(&mut app, "why?");
    assert_eq!(app.view().prompt, "why?", "? in a prompt is just a character");
}

#[test]
fn end_on_an_empty_prompt_goes_to_the_bottom_and_the_badge_hides_no_text() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "long".into() });
    app.handle_agent(AgentEvent::saying((0..200).map(|i| format!("line {i}\n\n")).collect::<String>()));
    draw(&mut app);
    app.handle_key(key(KeyCode::PageUp));
    app.handle_agent(AgentEvent::saying("more output\n"));
    let screen = draw(&mut app);
    let area = app.view().rects.conversation;
    let rows: Vec<&str> = screen.lines().collect();
    let bottom_border = rows[usize::from(area.y + area.height - 1)];
    let last_row = rows[usize::from(area.y + area.height - 2)];
    assert!(bottom_border.contains("new output (End)"), "the badge sits on the border:\n{screen}");
    assert!(!last_row.contains("new output"), "{screen}");
    app.handle_key(key(KeyCode::End));
    let screen = draw(&mut app);
    assert!(screen.contains("more output") && !screen.contains("new output"), "{screen}");

    type_text(&mut app, "draft");
    app.handle_key(key(KeyCode::Home));
    app.handle_key(key(KeyCode::End));
    app.handle_key(key(KeyCode::Char('!')));
    assert_eq!(app.view().prompt, "draft!", "End in a prompt moves the cursor first");
}

#[test]
fn a_recalled_command_does_not_open_the_popup_or_trap_recall() {
    let mut app = app();
    type_text(&mut app, "/permissions");
    app.handle_key(key(KeyCode::Esc)); // close the popup, keep the text
    assert_eq!(app.view().prompt, "/permissions", "Esc on the popup keeps the prompt");
    assert!(!app.view().completing);
    app.handle_key(key(KeyCode::Enter));
    for _ in 0..3 {
        app.handle_key(key(KeyCode::Up));
        assert!(!app.view().completing, "recall does not open the popup");
    }
    assert_eq!(app.view().prompt, "first prompt");
    app.handle_key(key(KeyCode::Down));
    app.handle_key(key(KeyCode::Down));
    assert_eq!(app.view().prompt, "/permissions");
    clear_prompt(&mut app);
    type_text(&mut app, "/co");
    assert!(app.view().completing, "typing a command still opens it");
}

fn click(app: &mut App, column: u16, row: u16) {
    let down = MouseEventKind::Down(crossterm::event::MouseButton::Left);
    app.handle_mouse(MouseEvent { kind: down, column, row, modifiers: KeyModifiers::NONE });
}

#[test]
fn a_click_focuses_a_pane_and_selects_the_row_under_it() {
    let mut app = app();
    turn_with_calls(&mut app, 3, 0);
    draw(&mut app);
    let tools = app.view().rects.tools;
    click(&mut app, tools.x + 3, tools.y + 2); // the second row
    assert_eq!(app.view().focus, Focus::Tools);
    assert_eq!(app.view().tool_log_call.as_deref(), Some("c2"));
    assert_eq!(app.view().conversation_call.as_deref(), Some("c2"), "and its line in the conversation");
    let screen = draw(&mut app);
    let conversation = app.view().rects.conversation;
    let row = screen.lines().position(|l| l.starts_with("│+ #1 execute step 1")).unwrap();
    click(&mut app, conversation.x + 3, row as u16);
    assert_eq!(app.view().focus, Focus::Conversation);
    assert_eq!(app.view().conversation_call.as_deref(), Some("c1"));
    let composer = app.view().rects.composer;
    click(&mut app, composer.x + 3, composer.y + 1);
    assert_eq!(app.view().focus, Focus::Composer);
}

#[test]
fn the_layout_choice_is_saved_privately_and_loaded_again() {
    use elelem::tui::runtime::prefs::LayoutPrefs;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("elelem/tui.json");
    let mut app = app();
    app.use_layout_prefs(path.clone(), LayoutPrefs::load(&path));
    crate::tui::drive::focus(&mut app, Focus::Tools);
    app.handle_key(key(KeyCode::Char('<')));
    app.handle_key(ctrl('z'));
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved, serde_json::json!({"split": 40, "zoom": "tools"}));
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let mut again = self::app();
    again.use_layout_prefs(path.clone(), LayoutPrefs::load(&path));
    assert_eq!(again.view().zoomed, Some(elelem::tui::runtime::prefs::Zoom::Tools));
    draw(&mut again);
    assert_eq!(again.view().rects.tools.width, 100, "the tool log fills the screen");
}

#[test]
fn a_long_paste_shows_as_one_line_and_is_sent_whole() {
    let mut app = app();
    type_text(&mut app, "explain this: ");
    let pasted: String = (1..=500).map(|i| format!("log line {i}\n")).collect();
    app.handle_paste(&pasted);
    assert_eq!(app.view().prompt, "explain this: [pasted 500 lines]");
    let sent = format!("explain this: {}", pasted.trim_end());
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit(sent.clone())]);

    app.handle_agent(AgentEvent::TurnStarted { prompt: sent });
    let screen = draw(&mut app);
    assert!(screen.contains("› explain this: [pasted 500 lines]"), "{screen}");
    assert!(!screen.contains("log line 1"), "{screen}");
    crate::tui::drive::focus(&mut app, Focus::Conversation);
    app.handle_key(key(KeyCode::Up));
    app.handle_key(key(KeyCode::Enter)); // expands it
    let screen = draw(&mut app);
    assert!(screen.contains("log line 1") && !screen.contains("[pasted"), "{screen}");
}

#[test]
fn a_short_paste_is_inserted_as_it_is() {
    let mut app = app();
    app.handle_paste("one\ntwo\n");
    assert_eq!(app.view().prompt, "one\ntwo\n");
}

#[test]
fn a_long_turn_that_ends_while_the_terminal_is_unfocused_rings_the_bell() {
    let run = |mode: NotifyMode, focused: bool, took: u64| {
        let mut app = app();
        let clock = ManualClock::default();
        app.set_clock(std::sync::Arc::new(clock.clone()));
        app.set_notify_mode(mode);
        app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
        app.set_terminal_focused(focused);
        clock.advance(std::time::Duration::from_secs(took));
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
        app.take_terminal_writes().pop()
    };
    assert_eq!(run(NotifyMode::Bell, false, 6).as_deref(), Some("\x07"));
    assert_eq!(run(NotifyMode::Bell, false, 2), None, "a short turn does not notify");
    assert_eq!(run(NotifyMode::Bell, true, 60), None, "nor one the user watched");
    assert_eq!(run(NotifyMode::Osc9, false, 6).as_deref(), Some("\x1b]9;elelem: done after 6s\x07"));
    assert_eq!(run(NotifyMode::Off, false, 60), None);
}
