//! Issue 38 point 8, through `App`: a drag in the conversation selects inside that pane only
//! and the release copies its plain text (OSC 52, seen in what the app writes to the
//! terminal; and tmux's buffer, `Action::TmuxBuffer`), rows the wrapper broke joined back,
//! no border, no tool-log text, no code label; the selection is drawn; the wheel still
//! scrolls; a click on a code block's label copies the block. Snapshots of a code block
//! under its label, dark and light, at 120x40 and 80x24.

use crate::tui::screens::{app, call, frame, light_app, styled_with, text};
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::clipboard::osc52;
use elelem::tui::app::{Action, App};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use serde_json::json;

const PARAGRAPH: &str = "The change keeps every test green and makes the parser about twice as fast on \
    long inputs, because it no longer copies each token before it looks at it.";

/// A turn with a command (its output in the tool log beside the conversation), then a reply:
/// a paragraph long enough to wrap and a code block.
fn turn(app: &mut App) {
    let execute = call("c1", "execute", json!({"command": "cargo test"}));
    app.handle_agent(AgentEvent::TurnStarted { prompt: "speed it up".into() });
    app.handle_agent(AgentEvent::ToolStarted { call: execute.clone(), summary: "cargo test".into() });
    let result = json!({"exit_status": 0, "content": "TOOL-LOG-ONLY output of the tests"}).into();
    app.handle_agent(AgentEvent::ToolFinished { call: execute, result });
    app.handle_agent(AgentEvent::saying(format!(
        "{PARAGRAPH}\n\n```rust\nfn fast() -> u32 {{\n    2\n}}\n```\n\nDone."
    )));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
}

fn mouse(app: &mut App, kind: MouseEventKind, column: u16, row: u16) -> Vec<Action> {
    app.handle_mouse(MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE })
}

/// The screen row whose text contains `needle`.
fn row_of(screen: &str, needle: &str) -> u16 {
    screen.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not on\n{screen}")) as u16
}

/// What the app put on the clipboard (OSC 52) since last asked.
fn osc52_written(app: &mut App) -> Vec<String> {
    app.take_terminal_writes().into_iter().filter(|w| w.starts_with("\x1b]52;")).collect()
}

#[test]
fn a_drag_over_wrapped_lines_copies_them_joined_without_borders_or_the_tool_log() {
    let mut app = app();
    turn(&mut app);
    let screen = text(&frame(&mut app, 100, 30));
    let (conversation, tools) = (app.view().rects.conversation, app.view().rects.tools);
    assert!(tools.x > conversation.x, "the tool log is beside the conversation:\n{screen}");
    let first = row_of(&screen, "The change keeps");
    let last = row_of(&screen, "looks at it.");
    assert!(last > first, "the paragraph wraps:\n{screen}");
    // From the pane's left border, down and across into the tool log.
    assert!(mouse(&mut app, MouseEventKind::Down(MouseButton::Left), conversation.x, first).is_empty());
    mouse(&mut app, MouseEventKind::Drag(MouseButton::Left), conversation.x + 5, first + 1);
    mouse(&mut app, MouseEventKind::Drag(MouseButton::Left), tools.x + 4, last);
    let actions = mouse(&mut app, MouseEventKind::Up(MouseButton::Left), tools.x + 4, last);
    assert_eq!(actions, vec![Action::TmuxBuffer(PARAGRAPH.to_string())], "one line, no border, no tool log");
    assert_eq!(osc52_written(&mut app), vec![osc52(PARAGRAPH)]);
    // The selection stays drawn, reversed, inside the pane only.
    let buf = frame(&mut app, 100, 30);
    let inner = Rect { x: conversation.x + 1, y: first, width: conversation.width - 2, height: 1 };
    assert!(
        styled_with(&buf, inner, false).starts_with("[reversed]The change keeps"),
        "{}",
        styled_with(&buf, inner, false)
    );
    assert!(!buf[(conversation.x, first)].modifier.contains(Modifier::REVERSED), "not the border");
    assert!(!buf[(tools.x + 4, last)].modifier.contains(Modifier::REVERSED), "not the tool log");
    assert!(text(&buf).contains("copied 1 line to the clipboard"), "{}", text(&buf));
}

#[test]
fn a_selection_through_a_code_block_leaves_its_label_and_indent_out() {
    let mut app = app();
    turn(&mut app);
    let screen = text(&frame(&mut app, 100, 30));
    let conversation = app.view().rects.conversation;
    let from = row_of(&screen, "looks at it.");
    let to = row_of(&screen, "Done.");
    mouse(&mut app, MouseEventKind::Down(MouseButton::Left), conversation.x + 1, from);
    mouse(&mut app, MouseEventKind::Drag(MouseButton::Left), conversation.x + 10, to);
    let actions = mouse(&mut app, MouseEventKind::Up(MouseButton::Left), conversation.x + 10, to);
    let copied = match actions.as_slice() {
        [Action::TmuxBuffer(text)] => text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(copied.ends_with("\n\nfn fast() -> u32 {\n    2\n}\n\nDone."), "{copied:?}");
    assert!(!copied.contains("[copy]") && !copied.contains("rust"), "{copied:?}");
}

#[test]
fn a_click_on_a_code_blocks_label_copies_the_block_and_a_plain_click_copies_nothing() {
    let mut app = app();
    turn(&mut app);
    let screen = text(&frame(&mut app, 100, 30));
    let conversation = app.view().rects.conversation;
    let label = row_of(&screen, "rust  [copy]");
    let column = screen.lines().nth(usize::from(label)).unwrap().find("[copy]").unwrap() as u16;
    mouse(&mut app, MouseEventKind::Down(MouseButton::Left), column, label);
    let actions = mouse(&mut app, MouseEventKind::Up(MouseButton::Left), column, label);
    let code = "fn fast() -> u32 {\n    2\n}\n";
    assert_eq!(actions, vec![Action::TmuxBuffer(code.into())]);
    assert_eq!(osc52_written(&mut app), vec![osc52(code)]);
    assert!(text(&frame(&mut app, 100, 30)).contains("copied the code block (3 lines)"));
    let done = row_of(&screen, "Done.");
    mouse(&mut app, MouseEventKind::Down(MouseButton::Left), conversation.x + 2, done);
    assert!(mouse(&mut app, MouseEventKind::Up(MouseButton::Left), conversation.x + 2, done).is_empty());
    assert!(osc52_written(&mut app).is_empty());
}

#[test]
fn the_wheel_scrolls_while_a_selection_is_dragged_and_the_copy_spans_what_it_passed() {
    let mut app = app();
    app.handle_agent(AgentEvent::TurnStarted { prompt: "count".into() });
    let words: String = (0..60).map(|i| format!("row{i}\n\n")).collect();
    app.handle_agent(AgentEvent::saying(words));
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    let screen = text(&frame(&mut app, 100, 30));
    let conversation = app.view().rects.conversation;
    let bottom = row_of(&screen, "row59");
    // Past the end of the row: the whole of it.
    mouse(&mut app, MouseEventKind::Down(MouseButton::Left), conversation.x + 20, bottom);
    mouse(&mut app, MouseEventKind::ScrollUp, conversation.x + 1, bottom);
    assert!(!app.view().conversation_follows, "the wheel scrolled");
    let screen = text(&frame(&mut app, 100, 30));
    let (top, first) = screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            Some((y as u16, line.split("│row").nth(1)?.split_whitespace().next()?.parse::<usize>().ok()?))
        })
        .unwrap();
    assert!(first < 50, "scrolled up past what the press saw:\n{screen}");
    mouse(&mut app, MouseEventKind::Drag(MouseButton::Left), conversation.x + 1, top);
    let actions = mouse(&mut app, MouseEventKind::Up(MouseButton::Left), conversation.x + 1, top);
    let expected: Vec<String> = (first..60).map(|i| format!("row{i}")).collect();
    assert_eq!(actions, vec![Action::TmuxBuffer(expected.join("\n\n"))]);
}

#[test]
fn a_code_block_under_its_label_at_120x40_and_80x24() {
    for (width, height) in [(120, 40), (80, 24)] {
        let mut app = app();
        turn(&mut app);
        insta::assert_snapshot!(format!("code_label_{width}x{height}"), text(&frame(&mut app, width, height)));
    }
}

#[test]
fn a_code_blocks_label_in_the_dark_and_light_palettes() {
    // Each app made just before it draws: code takes the palette of the last app made.
    for name in ["code_label_dark_styles", "code_label_light_styles"] {
        let mut app = if name.contains("dark") { app() } else { light_app() };
        turn(&mut app);
        let buf = frame(&mut app, 120, 40);
        let screen = text(&buf);
        let label = row_of(&screen, "rust  [copy]");
        let pane = app.view().rects.conversation;
        let rows = Rect { x: pane.x + 1, y: label - 1, width: pane.width - 2, height: 6 };
        insta::assert_snapshot!(name, styled_with(&buf, rows, false));
    }
}
