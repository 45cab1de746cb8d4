//! Issue 38, points 3 and 9. The help at 80x24: a key and its meaning on one row (a narrow
//! key column, the meaning wrapping under itself), grouped, searched by typing (Esc clears
//! the search, then closes), at 80x24 and 120x40, dark and light, and through the real
//! binary. The trust question: what answering yes turns on, item by item from what the
//! project's `.agents/` holds (hooks' commands, Lua plugin files, MCP servers' commands,
//! rules that loosen), in the full-screen dialog and the line REPL, and the notices after
//! the answer: none saying the project's hooks are not run once it is trusted.

use crate::tui::pty::Tui;
use crate::tui::screens::{app, frame, light_app, styled_with, text};
use crossterm::event::{KeyCode, KeyEvent};
use elelem::tui::app::App;
use ratatui::layout::Rect;
use serde_json::json;

fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::from(code));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// The row of `screen` holding `what`.
fn row_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen.lines().find(|row| row.contains(what)).unwrap_or_else(|| panic!("no row with {what:?}:\n{screen}"))
}

#[test]
fn the_help_at_80x24_puts_ctrl_r_and_its_meaning_on_one_row_in_groups() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    let screen = text(&frame(&mut app, 80, 24));
    insta::assert_snapshot!("help_80x24", screen);
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    assert!(row_with(&screen, "Enter ").contains("send the prompt"), "{screen}");
    assert!(screen.lines().any(|row| row.trim_matches(|c| c == '│' || c == ' ') == "Prompt"), "{screen}");
    // Six keys a screen was the complaint (each meaning on a row of its own).
    let keys = elelem::tui::popups::help::keys().filter(|(keys, _)| screen.contains(keys)).count();
    assert!(keys >= 8, "{keys} keys on the first screen:\n{screen}");
    let screen = text(&frame(&mut app, 120, 40));
    insta::assert_snapshot!("help_120x40", screen);
    for group in ["Prompt", "Turn", "Panes"] {
        assert!(screen.contains(&format!("│{group} ")), "{group}:\n{screen}");
    }
}

#[test]
fn the_helps_colours_in_the_dark_and_the_light_palette() {
    for (name, mut app) in [("help_dark_styles", app()), ("help_light_styles", light_app())] {
        press(&mut app, KeyCode::Char('?'));
        let buf = frame(&mut app, 80, 24);
        insta::assert_snapshot!(name, styled_with(&buf, Rect { x: 2, y: 1, width: 76, height: 6 }, true));
    }
}

#[test]
fn typing_searches_the_help_esc_clears_the_search_then_closes() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    type_text(&mut app, "ctrl r");
    let screen = text(&frame(&mut app, 80, 24));
    insta::assert_snapshot!("help_search_80x24", screen);
    assert!(screen.contains("search: ctrl r"), "the search shows:\n{screen}");
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    assert!(!screen.contains("send the prompt") && !screen.contains("Shift+Tab"), "only matches:\n{screen}");
    // `q` and `?` are letters of the search now, not ways out.
    type_text(&mut app, "q?");
    assert_eq!(app.view().help_query.as_deref(), Some("ctrl rq?"));
    assert!(text(&frame(&mut app, 80, 24)).contains("nothing matches"));
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.view().help_query.as_deref(), Some("ctrl r"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view().help_query.as_deref(), Some(""), "Esc clears the search first");
    assert!(text(&frame(&mut app, 80, 24)).contains("send the prompt"));
    press(&mut app, KeyCode::Esc);
    assert!(!app.view().has("help"), "then closes");
    assert!(app.view().prompt_empty, "nothing typed into the search reached the prompt");
    type_text(&mut app, "?");
    press(&mut app, KeyCode::Char('?'));
    assert!(!app.view().has("help"), "? on an empty search closes as it opened");
}

/// Through the real binary at 80x24: `?`, a key and its meaning on one row, a search.
#[test]
fn the_help_through_the_real_binary_at_80x24() {
    let script = json!([{"events": [{"type": "saying", "text": "hi"}]}]);
    let mut tui = Tui::start(script, 24, 80, &[]);
    tui.wait_for("Ask elelem");
    tui.send("?");
    tui.wait_for("help · type to search");
    let screen = tui.contents();
    assert!(row_with(&screen, "Ctrl+R").contains("search earlier prompts"), "{screen}");
    tui.send("mouse");
    tui.wait_for("search: mouse");
    tui.wait_for("/mouse, --no-mouse");
    let screen = tui.contents();
    assert!(!screen.contains("Ctrl+R"), "{screen}");
    tui.send("\x1b");
    tui.wait_for("help · type to search");
    tui.wait_for("Ctrl+R");
    tui.send("\x1b");
    tui.wait_for("Ask elelem");
    assert!(!tui.contents().contains("help · "), "{}", tui.contents());
    tui.send("\x03\x03");
    tui.wait_exit();
}

/// A project with a `.agents/` holding one of each thing trust turns on (a hook that leaves
/// a mark in the home directory, a Lua file, an MCP server, a rule that loosens and one
/// that tightens, a file of notes), and a home apart.
struct Project {
    home: tempfile::TempDir,
    project: Option<tempfile::TempDir>,
    path: std::path::PathBuf,
}

/// The stub's turn: one tool call (which the hook sees), then a reply.
fn listing_turn() -> serde_json::Value {
    json!([
        {"events": [{"type": "doing", "id": "t1", "name": "list", "arguments": {"path": "."}}]},
        {"events": [{"type": "saying", "text": "listed it"}]}
    ])
}

impl Project {
    fn new() -> Project {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let marker = home.path().join("hook-ran");
        let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": format!("touch '{}'", marker.display())}]}]}});
        let mcp =
            json!({"mcpServers": {"db": {"command": "/nonexistent/db-server", "args": ["--token", "${DB_TOKEN}"]}}});
        let files = [
            (".agents/hooks.json", hooks.to_string()),
            (".agents/plugins/fmt.lua", "-- formats\n".to_string()),
            (".agents/mcp.json", mcp.to_string()),
            (".agents/permissions.json", json!({"execute": "allow", "read": "deny"}).to_string()),
            (".agents/NOTES.md", "notes\n".to_string()),
        ];
        for (name, text) in files {
            let path = project.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::write(home.path().join("script.json"), listing_turn().to_string()).unwrap();
        let path = std::fs::canonicalize(project.path()).unwrap();
        Project { home, project: Some(project), path }
    }

    fn hook_ran(&self) -> bool {
        self.home.path().join("hook-ran").exists()
    }

    /// The question `chat` asks here, its paths written as `/home/me/…`.
    fn request(&self) -> elelem::agent::input::ApprovalRequest {
        use elelem::plugins::trust::{Trust, TrustStore};
        let question = Trust::new(TrustStore::none(), false).question(&self.path, Some(self.home.path())).unwrap();
        let mut tools = elelem::agent::toolbox::Toolbox::new();
        tools.add_all(elelem::tools::all());
        let turns_on =
            elelem::plugins::trust_items::turns_on(&self.path, &question.agents, Some(self.home.path()), &tools);
        let mut request = question.with_turns_on(turns_on).request();
        let home = std::fs::canonicalize(self.home.path()).unwrap();
        request.preview.text = request
            .preview
            .text
            .replace(&self.path.display().to_string(), "/home/me/project")
            .replace(&home.display().to_string(), "/home/me")
            .replace(&self.home.path().display().to_string(), "/home/me");
        request
    }

    /// The full-screen app in the project (`rows` x `cols`), the trust store in its `data/`.
    fn tui(&mut self, rows: u16, cols: u16) -> Tui {
        let project = self.project.take().expect("one app per project");
        let home = self.home.path().display().to_string();
        Tui::launch(env!("CARGO_BIN_EXE_elelem").as_ref(), project, listing_turn(), rows, cols, &[("HOME", &home)], &[])
    }

    fn store(&self) -> std::path::PathBuf {
        self.path.join("data/elelem/trusted.json")
    }
}

#[test]
fn the_trust_question_says_what_yes_turns_on_80x24_and_120x40() {
    let project = Project::new();
    let request = project.request();
    let text = &request.preview.text;
    for said in [
        "Trusting it turns on:",
        "  hooks.json: runs this command, as you (not sandboxed):\n    before every tool call: touch '/home/me/hook-ran'",
        "  plugins/: runs this Lua code inside elelem, as you:\n    fmt.lua",
        "  mcp.json: adds this MCP server, as you (not sandboxed):\n    db: starts /nonexistent/db-server --token ${DB_TOKEN}",
        "  permissions.json: loosens your rules:\n    execute allow\n",
        "Also in /home/me/project/.agents:\n  NOTES.md",
    ] {
        assert!(text.contains(said), "{said:?} not in:\n{text}");
    }
    assert!(!text.contains("read deny") && !text.contains("  hooks.json\n"), "only what loosens, listed once:\n{text}");
    for (name, width, height) in [("trust_question_80x24", 80, 24), ("trust_question_120x40", 120, 40)] {
        let mut app = app();
        let clock = elelem::tui::runtime::clock::ManualClock::default();
        app.set_clock(std::sync::Arc::new(clock.clone()));
        let (tx, _rx) = tokio::sync::oneshot::channel();
        app.ask(request.clone(), tx);
        clock.advance(elelem::tui::app::APPROVAL_GUARD);
        let screen = text_of(&mut app, width, height);
        insta::assert_snapshot!(name, screen);
        assert!(screen.contains("[1] yes, trust it"), "{screen}");
        assert!(row_with(&screen, "hooks.json").contains("runs this command"), "{screen}");
    }
}

/// What the notices of an untrusted project say, found on `screen`.
fn stale(screen: &str) -> Vec<&'static str> {
    let said = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    ["are not run", "is not trusted, so", "this project is not trusted", "not starting the servers"]
        .into_iter()
        .filter(|words| said.contains(words))
        .collect()
}

fn text_of(app: &mut App, width: u16, height: u16) -> String {
    text(&frame(app, width, height))
}

/// Through the real binary: the question says what yes turns on; after yes the project's
/// hook runs on the next tool call and nothing on screen says the project's hooks are not
/// run (the question came before the session was built, whose notices follow the answer).
#[test]
fn yes_in_the_tui_turns_on_what_it_said_and_no_notice_says_otherwise() {
    let mut project = Project::new();
    let tui = project.tui(40, 120);
    tui.wait_for("Trust this project's .agents/?");
    tui.wait_for("[1] yes, trust it");
    let screen = tui.contents();
    assert!(screen.contains("hooks.json: runs this command, as you (not sandboxed):"), "{screen}");
    assert!(screen.contains("mcp.json: adds this MCP server"), "{screen}");
    tui.send("1");
    tui.wait_for("its .agents/ settings apply");
    tui.wait_for("1 plugin file · 1 MCP server");
    let screen = tui.contents();
    let said = screen.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("settings apply (hooks.json, plugins/, mcp.json, permissions.json)"), "{said}");
    assert!(stale(&screen).is_empty(), "a stale notice: {:?}\n{screen}", stale(&screen));
    assert!(project.store().exists(), "yes is remembered");
    tui.send("go\r");
    tui.wait_for("listed it");
    assert!(project.hook_ran(), "the project's hook ran once trusted");
}

/// After no, the screen says what stays off and how to trust the project later, and the
/// hook does not run.
#[test]
fn no_in_the_tui_says_what_stays_off_and_how_to_trust_later() {
    let mut project = Project::new();
    let tui = project.tui(24, 80);
    tui.wait_for("[2] no, do not ask again");
    tui.send("2");
    tui.wait_for("stays untrusted");
    let screen = tui.contents().replace(['\n', '│'], " ");
    let said = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("hooks.json, plugins/ and mcp.json stay off"), "{said}");
    assert!(said.contains("To trust it later: start elelem --trust"), "{said}");
    tui.send("go\r");
    tui.wait_for("listed it");
    assert!(!project.hook_ran(), "the untrusted project's hook did not run");
}

/// The line REPL asks the same question (what yes turns on, item by item), and after yes
/// prints no notice that the project's hooks are not run.
#[test]
fn the_line_repl_asks_what_yes_turns_on_and_follows_the_answer() {
    let project = Project::new();
    let term = crate::support::permissions::Terminal::start(&project.path, project.home.path(), &["chat", "--plain"]);
    term.wait_for("Trust this project's .agents/? [y]es / [n]o, do not ask again / Enter: not now");
    let screen = term.contents();
    assert!(screen.contains("    hooks.json: runs this command, as you (not sandboxed):"), "{screen}");
    assert!(screen.contains("      execute allow"), "{screen}");
    term.send("y\r");
    term.wait_for("its .agents/ settings apply (hooks.json, plugins/, mcp.json, permissions.json)");
    term.send("go\r");
    term.wait_for("listed it");
    let screen = term.contents();
    assert!(stale(&screen).is_empty(), "a stale notice: {:?}\n{screen}", stale(&screen));
    assert!(project.hook_ran(), "the project's hook ran once trusted");
}
