//! Issue 30's rough edges through the real binary in a pty (a child of `tui_pty` for its
//! `Tui`), where `tui_rough_edges.rs` drives `App` alone: the banner after `/sandbox`
//! switches the mode, a 500-line paste recalled with Up after `--continue`, `NO_COLOR`,
//! Home then Down in the conversation, the live turn counter in the status line, what the
//! welcome counts, a step's calls of several tools on one line, and the context panel's
//! title.

use super::{row_with, wait_for_screen, Tui};
use serde_json::json;

/// The banner (`elelem v… · sandbox: …`) said the mode the app started with after
/// `/sandbox` had switched it; the status line and `/permissions` were right.
#[test]
fn the_banner_says_the_sandbox_mode_a_switch_set() {
    let mut tui = Tui::start(json!([]), 30, 120, &[("ELELEM_SANDBOX", "read-only")]);
    tui.wait_for("No API key found");
    let before = row_with(&tui, "elelem v").unwrap_or_default();
    assert!(before.contains("sandbox: ") && !before.contains("sandbox: off"), "{}", tui.contents());
    tui.send("/sandbox off\r");
    tui.wait_for("off for this session");
    let banner_follows = |screen: &str| screen.lines().any(|l| l.contains("elelem v") && l.contains("sandbox: off"));
    wait_for_screen(&tui, "the banner to say `sandbox: off` (it kept the old mode)", banner_follows);
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

fn long_paste() -> String {
    (1..=500).map(|i| format!("pasted line {i}")).collect::<Vec<_>>().join("\r")
}

/// A 500-line paste sent in one session is a chip in the conversation after `--continue`,
/// and again when recalled with Up (the input history file holds it whole), and is sent
/// whole.
#[test]
fn a_long_paste_after_continue_is_a_chip_shown_and_recalled_and_sent_whole() {
    let script = json!([{"events": [{"type": "saying", "text": "got the paste"}]}]);
    let mut tui = Tui::start(script, 30, 110, &[]);
    tui.wait_for("Ask elelem");
    tui.send(&format!("\x1b[200~{}\x1b[201~", long_paste()));
    tui.wait_for("[pasted 500 lines");
    tui.send("\r");
    tui.wait_for("got the paste");
    tui.send("\x04");
    assert!(tui.wait_exit().success());

    let dir = std::mem::replace(&mut tui._dir, tempfile::tempdir().unwrap());
    let script = json!([{"events": [{"type": "saying", "text": "got it again"}]}]);
    let mut again = Tui::start_in(dir, script, 30, 110, &["--continue"]);
    again.wait_for("Resumed session");
    again.wait_for("Ask elelem");
    // The resumed conversation shows the prompt as a chip too, not 500 lines.
    let screen = again.contents();
    assert!(screen.contains("› [pasted 500 lines]") && !screen.contains("pasted line 2"), "{screen}");
    again.send("\x1b[A"); // Up
    again.wait_for("│[pasted 500 lines");
    assert!(!again.contents().contains("pasted line 2"), "recalled as 500 lines:\n{}", again.contents());
    again.send("\r");
    again.wait_for("got it again");
    again.send("\x04");
    assert!(again.wait_exit().success());
    let sessions = again._dir.path().join("data/elelem/sessions");
    let file = std::fs::read_dir(sessions).unwrap().next().unwrap().unwrap().path();
    let recorded = std::fs::read_to_string(file).unwrap();
    assert!(recorded.matches("pasted line 500").count() >= 2, "the recalled prompt was not sent whole");
}

/// With `NO_COLOR` set, the app draws no colour at all (bold, dim and reverse stay).
#[test]
fn no_color_draws_without_colour() {
    let script = json!([{"events": [{"type": "saying", "text": "# A heading\n\n`code` and **bold**"}]}]);
    let mut tui = Tui::start(script, 24, 100, &[("NO_COLOR", "1")]);
    tui.wait_for("Ask elelem");
    tui.send("hello\r");
    tui.wait_for("and bold");
    {
        let parser = tui.screen.lock().unwrap();
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let coloured: Vec<(u16, u16)> = (0..rows.get())
            .flat_map(|r| (0..cols.get()).map(move |c| (r, c)))
            .filter(|&(r, c)| {
                screen.cell(r, c).is_some_and(|cell| {
                    cell.fgcolor() != vt100::Color::Default || cell.bgcolor() != vt100::Color::Default
                })
            })
            .collect();
        assert!(
            coloured.is_empty(),
            "coloured cells at {:?}:\n{}",
            &coloured[..coloured.len().min(5)],
            screen.contents()
        );
        let bold = (0..cols.get()).any(|c| {
            let row = screen.contents().lines().position(|l| l.contains("and bold")).unwrap_or(0) as u16;
            screen.cell(row, c).is_some_and(|cell| cell.bold())
        });
        assert!(bold, "modifiers stay: **bold** is bold");
    }
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// Home then Down in the conversation moves one row (it used to jump to the bottom).
#[test]
fn home_then_down_in_the_conversation_moves_one_row() {
    let replies: Vec<serde_json::Value> = (0..3)
        .map(|t| {
            let text: String = (0..30).map(|i| format!("line {i} of reply {t}\n\n")).collect();
            json!({"events": [{"type": "saying", "text": text}]})
        })
        .collect();
    let mut tui = Tui::start(json!(replies), 24, 80, &[]);
    tui.wait_for("Ask elelem");
    for t in 0..3 {
        tui.send(&format!("question {t}\r"));
        tui.wait_for(&format!("line 29 of reply {t}"));
    }
    tui.send("\t"); // the conversation
    tui.send("\x1b[H"); // Home
    tui.wait_for("elelem v");
    let top = tui.contents();
    let first = top.lines().nth(1).unwrap_or_default().to_string();
    tui.send("\x1b[B"); // Down
    let moved = wait_for_screen(&tui, "the conversation to move", |screen| screen != top);
    // One row: the old second row is the first now, and the start is still in view.
    assert_ne!(moved.lines().nth(1).unwrap_or_default(), first, "did not move:\n{moved}");
    assert_eq!(moved.lines().nth(1), top.lines().nth(2), "moved more than one row:\n{top}\n---\n{moved}");
    assert!(moved.contains("question 0") && !moved.contains("line 29 of reply 2"), "jumped:\n{moved}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// While a turn runs, the status line counts its time and its output tokens up.
#[test]
fn the_status_line_counts_a_running_turns_time_and_output() {
    let slow: Vec<serde_json::Value> = (0..10)
        .map(|i| json!({"type": "saying", "text": format!("chunk {i} of a slow reply. "), "delay_ms": 300}))
        .collect();
    let mut tui = Tui::start(json!([{"events": slow}]), 24, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("talk slowly\r");
    tui.wait_for("chunk 1 ");
    let counting = |screen: &str| {
        let status = screen.lines().last().unwrap_or_default();
        status.contains("turn ↓~") && (status.contains(" 1s ") || status.contains(" 2s "))
    };
    wait_for_screen(&tui, "a live count in the status line", counting);
    tui.wait_for("chunk 9 ");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// The first screen says what was found: the project's AGENTS.md, the user's plugin files
/// and MCP servers (counted from the real files, not only in `Welcome`'s unit test).
#[test]
fn the_welcome_counts_the_instructions_plugins_and_mcp_servers_found() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".agents/plugins")).unwrap();
    std::fs::write(home.join(".agents/plugins/quiet.lua"), "-- does nothing\n").unwrap();
    let mcp = json!({"mcpServers": {"one": {"command": "/bin/false"}, "two": {"command": "/bin/false"}}});
    std::fs::write(home.join(".agents/mcp.json"), mcp.to_string()).unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "# Rules\n\nBe brief.\n").unwrap();
    let home = home.to_string_lossy().into_owned();
    let binary = env!("CARGO_BIN_EXE_elelem").as_ref();
    let mut tui = Tui::launch(binary, dir, json!([]), 30, 120, &[("HOME", &home)], &[]);
    tui.wait_for("No API key found");
    tui.wait_for("AGENTS.md loaded · 1 plugin file · 2 MCP servers");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// A step's calls of several tools (read and glob taking turns, as they run side by side)
/// are one line in the conversation.
#[test]
fn a_steps_reads_and_globs_are_one_line_through_the_real_binary() {
    let calls: Vec<serde_json::Value> = (0..6)
        .map(|i| match i % 2 {
            0 => json!({"type": "doing", "id": format!("r{i}"), "name": "read", "arguments": {"path": "README.md"}}),
            _ => json!({"type": "doing", "id": format!("g{i}"), "name": "glob", "arguments": {"pattern": "*.md"}}),
        })
        .collect();
    let script = json!([{"events": calls}, {"events": [{"type": "saying", "text": "looked"}]}]);
    let mut tui = Tui::start(script, 30, 120, &[]);
    tui.wait_for("Ask elelem");
    tui.send("look\r");
    tui.wait_for("looked");
    let screen = tui.contents();
    assert!(screen.contains("│+ read ×3, glob ×3 · #1 read README.md · #2 glob *.md"), "{screen}");
    assert!(!screen.lines().any(|l| l.starts_with("│+ #")), "a call on a line of its own:\n{screen}");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}

/// The context panel's title is whole at each size (it was cut to `1% of┐`).
#[test]
fn the_context_panels_title_is_whole_at_80_100_and_120_columns() {
    for (rows, cols) in [(24, 80), (30, 100), (40, 120)] {
        let mut tui = Tui::start(json!([]), rows, cols, &[]);
        tui.wait_for("No API key found");
        tui.send("\x0f"); // Ctrl+O
        let screen = wait_for_screen(&tui, "the context panel", |s| s.contains("system prompt"));
        let title = screen.lines().find(|l| l.contains("context ·")).unwrap_or_default();
        assert!(title.contains("% of 200k") && !title.contains("of┐"), "{cols}x{rows}:\n{screen}");
        tui.send("\x04");
        assert!(tui.wait_exit().success());
    }
}
