//! Issue 38, what the conversation shows of a call: a hook that lets a call through adds no
//! row (the tool log still lists it), a hook's refusal is shown whole on the refused call's
//! row; an edit's or write's diff is shown under its row (the first 12 lines, then "Space
//! shows all"), in the theme's colours. Through the real binary (a pty, and the line REPL)
//! and as snapshots at 120x40 and 80x24, dark and light.

use crate::support::home::Tree;
use crate::tui::pty::Tui;
use crate::tui::screens::{app, call, frame, light_app, styled_with, text};
use crossterm::event::KeyCode;
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::tui::app::{App, Focus};
use ratatui::layout::Rect;
use serde_json::{json, Value};
use std::path::Path;

/// A hook's reason long enough to wrap past two rows of the conversation pane.
const LONG_REASON: &str = "shell commands are off in this project today because the nightly build \
                           is running and a stray command could break it; ask the user first \
                           END-OF-REASON";

/// `~/.agents/hooks.json` in `home`: a `PreToolUse` hook on reads that lets them through,
/// and one on shell commands that refuses them with `LONG_REASON`.
fn hooks_json() -> String {
    let hook = |matcher: &str, command: &str| json!({"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": 30}]});
    let refuse = format!("echo '{LONG_REASON}' >&2; exit 2");
    json!({"hooks": {"PreToolUse": [hook("Read", "cat > /dev/null; exit 0"), hook("Bash", &refuse)]}}).to_string()
}

/// A read (its hook passes), a command (its hook refuses), then a reply.
fn read_then_command() -> Value {
    json!([
        {"events": [{"type": "doing", "id": "r1", "name": "read", "arguments": {"path": "README.md"}}]},
        {"events": [{"type": "doing", "id": "e1", "name": "execute", "arguments": {"command": "touch ran.txt"}}]},
        {"events": [{"type": "saying", "text": "ALL-DONE-REPLY"}]}
    ])
}

/// The conversation pane's part of each screen row: left of the tool log's column, whose
/// border is found on the row of its title.
fn conversation_text(screen: &str) -> String {
    let title = screen.lines().find(|l| l.contains("┌ conversation")).unwrap_or_default();
    let right = title.chars().skip(1).position(|c| c == '┌').map_or(usize::MAX, |i| i + 1);
    screen.lines().map(|l| l.chars().take(right).collect::<String>()).collect::<Vec<_>>().join("\n")
}

/// The text of the conversation's rows joined as one line: each row's inside, trimmed, so a
/// wrapped reason reads as it was written.
fn joined(conversation: &str) -> String {
    conversation.lines().map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace())).collect::<Vec<_>>().join(" ")
}

#[test]
fn a_passing_hook_adds_no_row_and_a_refusing_hooks_reason_is_shown_whole() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("README.md"), "# Demo\n").unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".agents")).unwrap();
    std::fs::write(home.path().join(".agents/hooks.json"), hooks_json()).unwrap();
    let ran = project.path().join("ran.txt");
    let exe = Path::new(env!("CARGO_BIN_EXE_elelem"));
    let home_dir = home.path().to_string_lossy().into_owned();
    let mut tui = Tui::launch(exe, project, read_then_command(), 40, 120, &[("HOME", &home_dir)], &[]);
    tui.wait_for("Ask elelem");
    tui.send("look around\r");
    tui.wait_for("ALL-DONE-REPLY");
    let screen = tui.contents();
    let conversation = conversation_text(&screen);
    assert!(!conversation.contains("hook PreToolUse"), "no hook row in the conversation:\n{screen}");
    // The tool log still lists both runs.
    assert_eq!(screen.matches("hook PreToolUse").count(), 2, "{screen}");
    // The read's row follows the prompt directly.
    let rows: Vec<&str> =
        conversation.lines().map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace())).collect();
    let prompt = rows.iter().position(|r| r.contains("look around")).expect("the prompt");
    let next = rows[prompt + 1..].iter().find(|r| !r.is_empty()).unwrap_or(&"");
    assert!(next.starts_with("+ #2 read README.md"), "{next:?}\n{screen}");
    // The refused call's row holds the reason, every word of it, wrapped.
    let all = joined(&conversation);
    let refused = &all[all.find("x #4 execute").unwrap_or_else(|| panic!("the refused row:\n{screen}"))..];
    let words: Vec<&str> = LONG_REASON.split_whitespace().collect();
    let shown: Vec<&str> = refused.split_whitespace().collect();
    let start = shown.iter().position(|w| *w == words[0]).unwrap_or_else(|| panic!("{refused}"));
    assert_eq!(&shown[start..start + words.len()], &words[..], "the reason whole:\n{screen}");
    assert!(!ran.exists(), "the command did not run");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

#[test]
fn the_line_repl_prints_no_passing_hook_and_a_refusal_whole() {
    let tree = Tree::with(&["proj/.git", "home/.agents"]);
    tree.write("home/.agents/hooks.json", &hooks_json());
    tree.write("proj/README.md", "# Demo\n");
    let out = tree.run("proj", &["chat", "--plain"], &read_then_command(), "look around\n", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ALL-DONE-REPLY"), "{stdout}");
    assert!(!stdout.contains("hook PreToolUse"), "no hook line:\n{stdout}");
    assert!(stdout.contains("+ #1 read README.md") && stdout.contains("x #2 execute touch ran.txt"), "{stdout}");
    let refused = stdout.lines().find(|l| l.starts_with("x #2 execute")).unwrap_or_default();
    assert!(refused.contains(LONG_REASON), "the refusal whole on one line: {refused}\n{stdout}");
}

/// A file of `n` numbered lines.
fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// An edit of calc.py then a write that creates notes.txt (30 lines), as the agent shows
/// them: rows, the changes, the results.
fn edit_and_write(app: &mut App) {
    let diff =
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n";
    let edit = call("e1", "edit", json!({"path": "calc.py", "old": "a - b", "new": "a + b"}));
    let write = call("w1", "write", json!({"path": "notes.txt", "content": numbered(30)}));
    let events = vec![
        AgentEvent::TurnStarted { prompt: "fix add".into() },
        AgentEvent::ToolStarted { call: edit.clone(), summary: "calc.py".into() },
        AgentEvent::FileChange {
            call_id: "e1".into(),
            path: "/p/calc.py".into(),
            old: Some("def add(a, b):\n    return a - b\n\n".into()),
            new: "def add(a, b):\n    return a + b\n\n".into(),
        },
        AgentEvent::ToolFinished {
            call: edit,
            result: json!({"path": "calc.py", "replacements": 1, "diff": diff, "ok": true}).into(),
        },
        AgentEvent::ToolStarted { call: write.clone(), summary: "notes.txt".into() },
        AgentEvent::FileChange { call_id: "w1".into(), path: "/p/notes.txt".into(), old: None, new: numbered(30) },
        AgentEvent::ToolFinished { call: write, result: json!({"bytes": 210, "path": "notes.txt", "ok": true}).into() },
        AgentEvent::saying("Fixed `add` and wrote the notes."),
        AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done },
    ];
    for event in events {
        app.handle_agent(event);
    }
}

/// The conversation pane's rows inside its border.
fn conversation_rows(app: &App) -> Rect {
    let pane = app.view().rects.conversation;
    Rect { x: pane.x + 1, y: pane.y + 1, width: pane.width - 2, height: pane.height - 2 }
}

#[test]
fn an_edits_diff_and_a_new_files_first_lines_show_under_their_rows() {
    for (light, palette) in [(false, "dark"), (true, "light")] {
        for (width, height) in [(120, 40), (80, 24)] {
            let mut app = if light { light_app() } else { app() };
            edit_and_write(&mut app);
            // Scrolled to the top, so the small screen shows the rows too.
            frame(&mut app, width, height);
            let ctrl_home = crossterm::event::KeyEvent::new(KeyCode::Home, crossterm::event::KeyModifiers::CONTROL);
            app.handle_key(ctrl_home);
            let buf = frame(&mut app, width, height);
            let screen = text(&buf);
            for line in ["+ #1 edit calc.py", "│ -    return a - b", "│ +    return a + b", "+ #2 write notes.txt"]
            {
                assert!(screen.contains(line), "{line:?} missing:\n{screen}");
            }
            if height == 40 {
                assert!(
                    screen.contains("│ +line 11") && !screen.contains("│ +line 12"),
                    "the first 12 lines:\n{screen}"
                );
                assert!(screen.contains("⋮ 19 more lines (Space shows all)"), "{screen}");
            }
            let name = format!("inline_diff_{palette}_{width}x{height}");
            insta::assert_snapshot!(name, styled_with(&buf, conversation_rows(&app), true));
        }
    }
}

#[test]
fn the_diff_colours_differ_in_the_light_palette_and_space_shows_the_whole_change() {
    let (mut dark, mut light) = (app(), light_app());
    edit_and_write(&mut dark);
    edit_and_write(&mut light);
    let (dark_buf, light_buf) = (frame(&mut dark, 120, 40), frame(&mut light, 120, 40));
    assert_eq!(text(&dark_buf), text(&light_buf), "the same rows, other colours");
    let added = |buf: &ratatui::buffer::Buffer| {
        let screen = text(buf);
        let y = screen.lines().position(|l| l.contains("│ +    return a + b")).unwrap();
        let x = screen.lines().nth(y).unwrap().chars().position(|c| c == '+').unwrap();
        buf[(x as u16 + 1, y as u16)].fg
    };
    assert_ne!(added(&dark_buf), added(&light_buf));
    // Selected (the newest call first) and expanded with Space: every line of the new file.
    crate::tui::drive::focus(&mut dark, Focus::Conversation);
    crate::tui::drive::press(&mut dark, KeyCode::Up);
    crate::tui::drive::press(&mut dark, KeyCode::Char(' '));
    crate::tui::drive::press(&mut dark, KeyCode::End);
    crate::tui::drive::press(&mut dark, KeyCode::Esc);
    let screen = text(&frame(&mut dark, 120, 40));
    assert!(screen.contains("│ +line 30") && !screen.contains("more lines (Space"), "{screen}");
}

#[test]
fn an_edit_through_the_real_binary_shows_its_diff_lines_in_the_conversation() {
    let script = json!([
        {"events": [{"type": "doing", "id": "e1", "name": "edit",
                     "arguments": {"path": "README.md", "old": "Hello.", "new": "Goodbye, world."}}]},
        {"events": [{"type": "saying", "text": "EDITED-REPLY"}]}
    ]);
    let mut tui = Tui::start(script, 40, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("/mode edits\r");
    tui.wait_for("accept edits");
    tui.send("change the greeting\r");
    tui.wait_for("EDITED-REPLY");
    let screen = tui.contents();
    let conversation = conversation_text(&screen);
    for line in ["edit README.md", "│ -Hello.", "│ +Goodbye, world."] {
        assert!(conversation.contains(line), "{line:?} not in the conversation:\n{screen}");
    }
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
