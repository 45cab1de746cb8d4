//! Snapshots of the TUI's panes and whole frames (ratatui `TestBackend`) at 80x24 and
//! 120x40, driven by the same agent events the real agent task sends.

use crate::tui::drive::set_prompt;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::input::ApprovalRequest;
use elelem::agent::output::{AgentEvent, ContextSnapshot, TurnEnd};
use elelem::agent::{Preview, PreviewKind};
use elelem::protocol::ToolSpec;
use elelem::protocol::{Message, ToolCall};
use elelem::tui::app::{Action, App, Confirm, Focus};
use elelem::tui::runtime::clock::ManualClock;
use elelem::tui::text::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::Terminal;
use serde_json::json;
use std::time::{Duration, Instant};

pub(crate) fn app() -> App {
    let commands = vec![
        ("/clear".to_string(), "forget the conversation".to_string()),
        ("/context".to_string(), "what the model sees".to_string()),
        ("/exit".to_string(), "quit elelem".to_string()),
        ("/help".to_string(), "list commands".to_string()),
    ];
    let mut app = App::new(Theme::new(true), "stub", "stub-demo", commands, vec![]);
    app.seed_notice("elelem v0.1.0 · stub · stub-demo · ? for help");
    app
}

/// What the tools summarise these calls by (their main argument).
fn summary(args: &serde_json::Value) -> String {
    ["path", "command"].iter().find_map(|k| args[*k].as_str()).map_or_else(|| args.to_string(), str::to_string)
}

pub(crate) fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: args }
}

/// One turn: thinking, a read, a failing execute, then a Markdown reply.
fn with_turn(app: &mut App) {
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let events = vec![
        AgentEvent::TurnStarted { prompt: "what does this project do?".into() },
        AgentEvent::thinking("The user wants an overview. "),
        AgentEvent::thinking("I should read the README first, then check the tests.\nThen look at the layout of src/.\nThen summarize.\nKeep it short."),
        AgentEvent::ToolStarted { call: call("t1", "read", json!({"path": "README.md"})), summary: summary(&json!({"path": "README.md"})) },
        AgentEvent::ToolFinished {
            call: call("t1", "read", json!({"path": "README.md"})),
            result: json!({"content": "     1\t# elelem\n", "path": "README.md", "lines": 1, "ok": true}).into(),
        },
        AgentEvent::ToolStarted { call: call("t2", "execute", json!({"command": "cargo test"})), summary: summary(&json!({"command": "cargo test"})) },
        AgentEvent::ToolFinished {
            call: call("t2", "execute", json!({"command": "cargo test"})),
            result: json!({"error": "timed out after 120s", "content": "running 3 tests", "ok": false}).into(),
        },
        AgentEvent::ToolStarted { call: call("t3", "frobnicate?", json!({"x": 1})), summary: summary(&json!({"x": 1})) },
        AgentEvent::ToolFinished {
            call: call("t3", "frobnicate?", json!({"x": 1})),
            result: json!({"error": "unknown tool: \"frobnicate\". Available: read, write, execute", "ok": false}).into(),
        },
        AgentEvent::saying("## Overview\n\nelelem is a **terminal coding agent**.\n\n"),
        AgentEvent::saying("```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n"),
        AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done },
    ];
    for event in events {
        if matches!(event, AgentEvent::ToolFinished { .. }) {
            clock.advance(Duration::from_millis(1200));
        }
        app.handle_agent(event);
    }
}

fn context() -> ContextSnapshot {
    ContextSnapshot {
        system_prompt: "You are elelem, a coding agent.\n\nWorking directory: /work/demo".into(),
        messages: vec![
            Message::user("what does this project do?"),
            Message::assistant("## Overview\n\nA coding agent."),
        ],
        tools: vec![ToolSpec {
            name: "read".into(),
            description: "Read a text file. Returns numbered lines.".into(),
            parameters: json!({"type": "object"}),
        }],
        window: None,
        turn: Vec::new(),
    }
}

pub(crate) fn frame(app: &mut App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let now = Instant::now();
    terminal.draw(|f| app.render(f.area(), f.buffer_mut(), now)).unwrap();
    terminal.backend().buffer().clone()
}

pub(crate) fn text(buf: &Buffer) -> String {
    let area = buf.area;
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rows of a region with style runs marked, e.g. `[dim,italic]thinking…[/]`.
fn styled(buf: &Buffer, area: Rect) -> String {
    styled_with(buf, area, false)
}

/// `styled`, and with `backgrounds` the cells' background colours too (`bg:…`).
pub(crate) fn styled_with(buf: &Buffer, area: Rect, backgrounds: bool) -> String {
    let mut out = String::new();
    for y in area.y..area.y + area.height {
        let mut current = String::new();
        for x in area.x..area.x + area.width {
            let cell = &buf[(x, y)];
            let mut tags = vec![];
            if cell.modifier.contains(Modifier::BOLD) {
                tags.push("bold".to_string());
            }
            if cell.modifier.contains(Modifier::DIM) {
                tags.push("dim".to_string());
            }
            if cell.modifier.contains(Modifier::ITALIC) {
                tags.push("italic".to_string());
            }
            if cell.modifier.contains(Modifier::REVERSED) {
                tags.push("reversed".to_string());
            }
            if cell.fg != ratatui::style::Color::Reset {
                tags.push(format!("{:?}", cell.fg));
            }
            if backgrounds && cell.bg != ratatui::style::Color::Reset {
                tags.push(format!("bg:{:?}", cell.bg));
            }
            let tag = tags.join(",");
            if tag != current {
                if !current.is_empty() {
                    out.push_str("[/]");
                }
                if !tag.is_empty() {
                    out.push_str(&format!("[{tag}]"));
                }
                current = tag;
            }
            out.push_str(cell.symbol());
        }
        if !current.is_empty() {
            out.push_str("[/]");
        }
        out.push('\n');
    }
    out
}

#[test]
fn empty_app_80x24() {
    let mut app = app();
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
}

#[test]
fn conversation_after_a_turn_120x40() {
    let mut app = app();
    with_turn(&mut app);
    insta::assert_snapshot!(text(&frame(&mut app, 120, 40)));
}

#[test]
fn conversation_after_a_turn_80x24() {
    let mut app = app();
    with_turn(&mut app);
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
}

#[test]
fn thinking_is_dim_and_italic_and_the_prompt_bold() {
    let mut app = app();
    with_turn(&mut app);
    let buf = frame(&mut app, 120, 40);
    let pane = app.view().rects.conversation;
    let rows = Rect { x: pane.x + 1, y: pane.y + 1, width: pane.width - 2, height: 8 };
    insta::assert_snapshot!(styled(&buf, rows));
}

#[test]
fn tool_log_with_an_expanded_call_120x40() {
    let mut app = app();
    with_turn(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Up); // the newest call
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Up); // the execute call
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Enter);
    let buf = frame(&mut app, 120, 40);
    insta::assert_snapshot!(text(&buf));
    let tools = app.view().rects.tools;
    insta::assert_snapshot!("tool_log_styles", styled(&buf, Rect { height: 4, ..tools }));
}

#[test]
fn context_panel_120x40_and_80x24() {
    let mut app = app();
    with_turn(&mut app);
    app.handle_agent(AgentEvent::Context(context()));
    crate::tui::drive::show_context(&mut app, true);
    insta::assert_snapshot!("context_panel_120x40", text(&frame(&mut app, 120, 40)));
    insta::assert_snapshot!("context_panel_80x24", text(&frame(&mut app, 80, 24)));
}

#[test]
fn the_context_panel_lists_an_attached_image_with_its_token_estimate() {
    let mut app = app();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x03\x20\0\0\x02\x58\x08\x06\0\0\0";
    let image = elelem::protocol::Image::from_bytes("shots/shot.png", None, png).unwrap();
    let mut prompt = Message::user(format!("what is in @shots/shot.png ?\n\n{}", image.chip()));
    prompt.images = vec![image];
    let snapshot = ContextSnapshot { messages: vec![prompt, Message::assistant("A cat.")], ..context() };
    app.handle_agent(AgentEvent::TurnStarted { prompt: snapshot.messages[0].content.clone() });
    app.handle_agent(AgentEvent::Context(snapshot));
    crate::tui::drive::show_context(&mut app, true);
    insta::assert_snapshot!("context_panel_image_120x40", text(&frame(&mut app, 120, 40)));
}

#[test]
fn approval_dialog_cannot_be_missed() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let (tx, _rx) = tokio::sync::oneshot::channel();
    app.ask(
        ApprovalRequest {
            call_id: "t9".into(),
            tool: "execute".into(),
            args: json!({"command": "rm -rf target"}),
            summary: "rm -rf target".into(),
            preview: Preview { kind: PreviewKind::Command, text: "$ rm -rf target".into() },
        },
        tx,
    );
    // Just opened, or while the user types: the keys go to the prompt, and it says so.
    insta::assert_snapshot!("approval_while_typing_80x24", text(&frame(&mut app, 80, 24)));
    clock.advance(elelem::tui::app::APPROVAL_GUARD);
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
}

#[test]
fn slash_command_popup() {
    let mut app = app();
    set_prompt(&mut app, "/c");
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
}

#[test]
fn interrupted_turn_and_error_are_marked() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "go".into() });
    app.handle_agent(AgentEvent::saying("partial answ"));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Interrupted });
    app.handle_agent(AgentEvent::TurnStarted { prompt: "again".into() });
    app.handle_agent(AgentEvent::Error("anthropic: 401 authentication_error: invalid x-api-key".into()));
    app.handle_agent(AgentEvent::TurnFinished { reply: "Error: ...".into(), end: TurnEnd::Failed });
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
}

/// A command that exits 1 with some output, and a read that fails.
fn with_failures(app: &mut App) {
    app.set_clock(std::sync::Arc::new(ManualClock::default()));
    let test = call("f1", "execute", json!({"command": "./test.sh"}));
    let missing = call("f2", "read", json!({"path": "src/missing.py"}));
    let output = "running 5 tests\ntest a ... ok\ntest b ... ok\ntest c ... FAILED\n\nfailures: c\ntest result: FAILED";
    for event in [
        AgentEvent::TurnStarted { prompt: "run the tests".into() },
        AgentEvent::ToolStarted { call: test.clone(), summary: "./test.sh".into() },
        AgentEvent::ToolFinished { call: test, result: json!({"exit_status": 1, "content": output}).into() },
        AgentEvent::ToolStarted { call: missing.clone(), summary: "src/missing.py".into() },
        AgentEvent::ToolFinished {
            call: missing,
            result: json!({"error": "no such file: src/missing.py\n(looked in /work/demo)"}).into(),
        },
        AgentEvent::saying("One test fails."),
        AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done },
    ] {
        app.handle_agent(event);
    }
}

#[test]
fn failures_are_marked_in_the_conversation() {
    let mut app = app();
    with_failures(&mut app);
    insta::assert_snapshot!("failures_are_marked_120x40", text(&frame(&mut app, 120, 40)));
    insta::assert_snapshot!("failures_are_marked_80x24", text(&frame(&mut app, 80, 24)));
    let buf = frame(&mut app, 120, 40);
    let pane = app.view().rects.conversation;
    let rows = Rect { x: pane.x + 1, y: pane.y + 3, width: pane.width - 2, height: 8 };
    insta::assert_snapshot!("failures_are_marked_styles", styled(&buf, rows));
}

#[test]
fn a_call_waiting_for_approval_says_so_and_the_wait_is_not_run_time() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let edit = call("e1", "edit", json!({"path": "src/calc.py"}));
    app.handle_agent(AgentEvent::TurnStarted { prompt: "fix calc".into() });
    app.handle_agent(AgentEvent::ToolStarted { call: edit.clone(), summary: "src/calc.py".into() });
    let (tx, _rx) = tokio::sync::oneshot::channel();
    let preview = Preview { kind: PreviewKind::Diff, text: "@@ -1 +1 @@\n-x = 1\n+x = 2\n".into() };
    let request = ApprovalRequest {
        call_id: "e1".into(),
        tool: "edit".into(),
        args: json!({"path": "src/calc.py"}),
        summary: "src/calc.py".into(),
        preview,
    };
    app.ask(request, tx);
    clock.advance(Duration::from_secs(6));
    let buf = frame(&mut app, 120, 40);
    insta::assert_snapshot!("waiting_for_approval_120x40", text(&buf));
    clock.advance(elelem::tui::app::APPROVAL_GUARD);
    app.handle_key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('1')));
    clock.advance(Duration::from_millis(200));
    app.handle_agent(AgentEvent::ToolFinished { call: edit, result: json!({"diff": "…"}).into() });
    let screen = text(&frame(&mut app, 120, 40));
    let row = screen.lines().find(|l| l.contains("#1 edit")).unwrap_or_default().to_string();
    assert!(row.contains(" 0.2s"), "only the run is timed: {row}");
}

/// A diff of `n` changed lines.
fn long_diff(n: usize) -> String {
    let mut diff = format!("--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,{n} +1,{n} @@\n");
    for i in 0..n {
        diff.push_str(&format!("-x{i} = {i}\n+x{i} = {}\n", i * 2));
    }
    diff
}

fn ask_edit(app: &mut App, diff: String) -> tokio::sync::oneshot::Receiver<elelem::agent::input::Approval> {
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let request = ApprovalRequest {
        call_id: "e1".into(),
        tool: "edit".into(),
        args: json!({"path": "src/calc.py"}),
        summary: "src/calc.py".into(),
        preview: Preview { kind: PreviewKind::Diff, text: diff },
    };
    app.ask(request, tx);
    clock.advance(elelem::tui::app::APPROVAL_GUARD);
    rx
}

fn press(app: &mut App, code: crossterm::event::KeyCode) {
    app.handle_key(crossterm::event::KeyEvent::from(code));
}

#[test]
fn the_approval_diff_is_coloured_scrolls_and_opens_full_screen_80x24() {
    let mut app = app();
    let _rx = ask_edit(&mut app, long_diff(12));
    let buf = frame(&mut app, 80, 24);
    insta::assert_snapshot!("approval_diff_80x24", text(&buf));
    insta::assert_snapshot!("approval_diff_styles", styled(&buf, Rect { x: 8, y: 2, width: 64, height: 5 }));
    for _ in 0..3 {
        press(&mut app, crossterm::event::KeyCode::Down);
    }
    insta::assert_snapshot!("approval_diff_scrolled_80x24", text(&frame(&mut app, 80, 24)));
    app.handle_key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('f'),
        crossterm::event::KeyModifiers::CONTROL,
    ));
    insta::assert_snapshot!("approval_diff_full_screen_80x24", text(&frame(&mut app, 80, 24)));
}

#[test]
fn r_asks_for_a_reason_and_the_refusal_carries_it() {
    let mut app = app();
    let mut rx = ask_edit(&mut app, long_diff(1));
    press(&mut app, crossterm::event::KeyCode::Char('4'));
    for c in "use the helper".chars() {
        press(&mut app, crossterm::event::KeyCode::Char(c));
    }
    insta::assert_snapshot!("approval_reason_120x40", text(&frame(&mut app, 120, 40)));
    press(&mut app, crossterm::event::KeyCode::Enter);
    assert_eq!(rx.try_recv().unwrap(), elelem::agent::input::Approval::NoBecause("use the helper".into()));
    assert!(!app.view().has("approval"));
}

#[test]
fn the_expanded_tool_view_colours_a_diff() {
    let mut app = app();
    app.set_clock(std::sync::Arc::new(ManualClock::default()));
    let edit = call("e1", "edit", json!({"path": "src/calc.py"}));
    app.handle_agent(AgentEvent::ToolStarted { call: edit.clone(), summary: "src/calc.py".into() });
    app.handle_agent(AgentEvent::ToolFinished {
        call: edit,
        result: json!({"path": "src/calc.py", "diff": long_diff(1)}).into(),
    });
    crate::tui::drive::focus(&mut app, Focus::Tools);
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Up);
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Enter);
    let buf = frame(&mut app, 120, 40);
    let tools = app.view().rects.tools;
    insta::assert_snapshot!("expanded_diff_styles", styled(&buf, Rect { height: 14, ..tools }));
}

#[test]
fn help_is_an_overlay_listing_keys_and_commands_80x24() {
    let mut app = app();
    press(&mut app, crossterm::event::KeyCode::Char('?'));
    insta::assert_snapshot!("help_overlay_80x24", text(&frame(&mut app, 80, 24)));
    press(&mut app, crossterm::event::KeyCode::PageDown);
    insta::assert_snapshot!("help_overlay_scrolled_80x24", text(&frame(&mut app, 80, 24)));
    insta::assert_snapshot!("help_overlay_120x40", text(&frame(&mut app, 120, 40)));
}

fn ctrl_key(app: &mut App, code: crossterm::event::KeyCode) {
    app.handle_key(crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::CONTROL));
}

#[test]
fn the_split_resizes_and_the_focused_pane_zooms_120x40() {
    let mut app = app();
    with_turn(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    for _ in 0..3 {
        ctrl_key(&mut app, crossterm::event::KeyCode::Left);
    }
    insta::assert_snapshot!("side_column_widened_120x40", text(&frame(&mut app, 120, 40)));
    ctrl_key(&mut app, crossterm::event::KeyCode::Char('z'));
    insta::assert_snapshot!("tools_zoomed_120x40", text(&frame(&mut app, 120, 40)));
    ctrl_key(&mut app, crossterm::event::KeyCode::Char('z'));
    assert!(app.view().zoomed.is_none());
}

#[test]
fn a_long_paste_is_collapsed_in_the_prompt_and_the_conversation_80x24() {
    let mut app = app();
    let pasted: String = (1..=500).map(|i| format!("log line {i}\n")).collect();
    app.handle_paste(&pasted);
    insta::assert_snapshot!("paste_in_the_prompt_80x24", text(&frame(&mut app, 80, 24)));
    press(&mut app, crossterm::event::KeyCode::Enter);
    app.handle_agent(AgentEvent::TurnStarted { prompt: pasted.trim_end().to_string() });
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    insta::assert_snapshot!("paste_in_the_conversation_80x24", text(&frame(&mut app, 80, 24)));
}

#[test]
fn the_status_line_shows_the_turns_and_the_sessions_tokens_and_the_turns_time() {
    let mut app = app();
    let clock = ManualClock::default();
    app.set_clock(std::sync::Arc::new(clock.clone()));
    let usage = |input, output| {
        AgentEvent::Usage(elelem::protocol::Usage { input_tokens: input, output_tokens: output, ..Default::default() })
    };
    for (prompt, calls, secs) in [("first", vec![(12_000, 800)], 3), ("second", vec![(1_500, 200), (1_700, 140)], 4)] {
        app.handle_agent(AgentEvent::TurnStarted { prompt: prompt.into() });
        for (input, output) in calls {
            app.handle_agent(usage(input, output));
        }
        clock.advance(Duration::from_millis(secs * 1000 + 200));
        app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    }
    let status = |app: &mut App, w: u16, h: u16| text(&frame(app, w, h)).lines().last().unwrap_or_default().to_string();
    insta::assert_snapshot!("status_tokens_120x40", status(&mut app, 120, 40));
    insta::assert_snapshot!("status_tokens_80x24", status(&mut app, 80, 24));
}

#[test]
fn clear_asks_first_and_esc_keeps_the_conversation() {
    let mut app = app();
    with_turn(&mut app);
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    set_prompt(&mut app, "/clear");
    assert_eq!(app.handle_key(enter), vec![], "the first Enter only asks");
    insta::assert_snapshot!(text(&frame(&mut app, 80, 24)));
    assert_eq!(app.handle_key(enter), vec![Action::Submit("/clear".into())], "Enter again clears");
    assert!(app.view().confirm != Some(Confirm::Clear));

    set_prompt(&mut app, "/clear");
    assert_eq!(app.handle_key(enter), vec![]);
    assert_eq!(app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)), vec![]);
    assert!(app.view().confirm != Some(Confirm::Clear) && app.view().prompt_empty, "Esc keeps the conversation");
    set_prompt(&mut app, "/clear undo");
    assert_eq!(app.handle_key(enter), vec![Action::Submit("/clear undo".into())], "only /clear itself asks");
}

/// The app in the light palette (for a light terminal background), as `app()`.
pub(crate) fn light_app() -> App {
    let mut app = App::new(Theme::light(true), "stub", "stub-demo", Vec::new(), vec![]);
    app.seed_notice("elelem v0.1.0 · stub · stub-demo · ? for help");
    app
}

/// Every foreground colour in `area` that is hard to read on a white background: light
/// greys, bright yellow, anything pale.
fn pale_on_white(buf: &Buffer, area: Rect) -> Vec<String> {
    use ratatui::style::Color;
    let mut pale = Vec::new();
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let cell = &buf[(x, y)];
            let bad = match cell.fg {
                Color::Gray | Color::White | Color::LightYellow | Color::Yellow | Color::LightCyan => true,
                Color::Rgb(r, g, b) => 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b) > 165.0,
                _ => false,
            };
            let dimmed_grey = cell.modifier.contains(Modifier::DIM) && matches!(cell.fg, Color::Gray | Color::DarkGray);
            if (bad || dimmed_grey) && !cell.symbol().trim().is_empty() && cell.bg == Color::Reset {
                pale.push(format!("{:?} at {x},{y} {:?}", cell.symbol(), cell.fg));
            }
        }
    }
    pale
}

#[test]
fn the_light_theme_conversation_120x40() {
    let mut app = light_app();
    with_turn(&mut app);
    let buf = frame(&mut app, 120, 40);
    let mut dark = app_without_commands();
    with_turn(&mut dark);
    assert_eq!(text(&buf), text(&frame(&mut dark, 120, 40)), "the same screen, other colours");
    let pane = app.view().rects.conversation;
    let rows = Rect { x: pane.x + 1, y: pane.y + 1, width: pane.width - 2, height: pane.height - 2 };
    insta::assert_snapshot!(styled_with(&buf, rows, true));
    assert_eq!(pale_on_white(&buf, buf.area), Vec::<String>::new());
}

#[test]
fn the_light_theme_tool_log_and_status_line_120x40() {
    let mut app = light_app();
    with_turn(&mut app);
    crate::tui::drive::focus(&mut app, Focus::Tools);
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Up);
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Up); // the execute call
    crate::tui::drive::press(&mut app, crossterm::event::KeyCode::Enter);
    let buf = frame(&mut app, 120, 40);
    let tools = app.view().rects.tools;
    insta::assert_snapshot!("light_tool_log", styled_with(&buf, Rect { height: 6, ..tools }, true));
    let status = Rect { x: 0, y: buf.area.height - 1, width: buf.area.width, height: 1 };
    insta::assert_snapshot!("light_status_line", styled_with(&buf, status, true));
}

#[test]
fn the_dark_theme_is_too_pale_for_white_and_the_check_sees_it() {
    let mut app = app_without_commands();
    with_turn(&mut app);
    let buf = frame(&mut app, 120, 40);
    assert!(!pale_on_white(&buf, buf.area).is_empty());
}

/// `app()` without the slash commands, so its frames match `light_app()`'s.
fn app_without_commands() -> App {
    let mut app = App::new(Theme::new(true), "stub", "stub-demo", Vec::new(), vec![]);
    app.seed_notice("elelem v0.1.0 · stub · stub-demo · ? for help");
    app
}

#[test]
fn the_light_theme_approval_diff_context_panel_and_help_are_readable_on_white() {
    let mut app = light_app();
    let _rx = ask_edit(&mut app, long_diff(12));
    let buf = frame(&mut app, 80, 24);
    insta::assert_snapshot!(
        "light_approval_diff_styles",
        styled_with(&buf, Rect { x: 8, y: 2, width: 64, height: 5 }, true)
    );
    assert_eq!(pale_on_white(&buf, buf.area), Vec::<String>::new(), "approval");

    let mut app = light_app();
    with_turn(&mut app);
    app.handle_agent(AgentEvent::Context(context()));
    crate::tui::drive::show_context(&mut app, true);
    let buf = frame(&mut app, 120, 40);
    assert_eq!(pale_on_white(&buf, buf.area), Vec::<String>::new(), "context panel");

    let mut app = light_app();
    press(&mut app, crossterm::event::KeyCode::Char('?')); // on an empty prompt: the help
    let buf = frame(&mut app, 80, 24);
    assert!(text(&buf).contains("Ctrl"), "help shown:\n{}", text(&buf));
    assert_eq!(pale_on_white(&buf, buf.area), Vec::<String>::new(), "help");
}
