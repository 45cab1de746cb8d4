//! The model picker (ratatui `TestBackend`): `AgentEvent::Models` opens it over the prompt
//! with each model's window and price and the one in use marked; typing filters, Enter sends
//! `/model ID`, Esc closes; a failed listing shows its error; the status line shows the
//! model once the session switched.

use crate::tui::screens::{app, frame, text};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use elelem::agent::output::AgentEvent;
use elelem::protocol::ModelInfo;
use elelem::tui::app::{Action, App};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn listed() -> Vec<ModelInfo> {
    let mut models: Vec<ModelInfo> = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "evil\u{1b}[2Jname"]
        .into_iter()
        .map(ModelInfo::named)
        .collect();
    models[0].price = Some((3.0, 15.0));
    models[2].price = Some((1.0, 5.0));
    models
}

fn open(app: &mut App, listed: Result<Vec<ModelInfo>, String>) {
    app.handle_agent(AgentEvent::Models { provider: "anthropic".into(), current: "claude-sonnet-4-5".into(), listed });
}

#[test]
fn the_picker_lists_models_with_window_and_price_120x40() {
    let mut app = app();
    open(&mut app, Ok(listed()));
    let screen = text(&frame(&mut app, 120, 40));
    assert!(screen.contains("models · anthropic · 4 of 4"), "{screen}");
    assert!(
        screen.contains("›* claude-sonnet-4-5") && screen.contains("200k window · $3.00 / $15.00 per M tokens"),
        "{screen}"
    );
    assert!(!screen.contains('\u{1b}'), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn typing_filters_enter_switches_and_the_status_line_follows() {
    let mut app = app();
    open(&mut app, Ok(listed()));
    for c in "hai".chars() {
        assert_eq!(app.handle_key(key(KeyCode::Char(c))), vec![]);
    }
    assert_eq!(app.view().prompt, "", "the picker took the keys");
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("1 of 4") && screen.contains("claude-haiku-4-5"), "{screen}");
    assert!(!screen.contains("claude-opus"), "{screen}");
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit("/model claude-haiku-4-5".into())]);
    assert!(!app.view().has("model picker"), "closed after the choice");
    app.handle_agent(AgentEvent::ProviderChanged { provider: "anthropic".into(), model: "claude-haiku-4-5".into() });
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.lines().last().unwrap_or_default().contains("anthropic · claude-haiku-4-5"), "{screen}");
}

#[test]
fn esc_closes_and_a_failed_listing_says_why() {
    let mut app = app();
    open(&mut app, Err("anthropic: listing the models: HTTP 401 Unauthorized".into()));
    let screen = text(&frame(&mut app, 80, 24));
    assert!(screen.contains("cannot list the models: anthropic: listing the models: HTTP 401"), "{screen}");
    assert_eq!(app.handle_key(key(KeyCode::Esc)), vec![]);
    assert!(!app.view().has("model picker"));
    let screen = text(&frame(&mut app, 80, 24));
    assert!(!screen.contains("cannot list"), "{screen}");
}

#[test]
fn slash_model_alone_asks_the_session_for_the_list() {
    let mut app = app();
    for c in "/model".chars() {
        app.handle_key(key(KeyCode::Char(c)));
    }
    app.handle_key(key(KeyCode::Esc)); // the command popup
    assert_eq!(app.handle_key(key(KeyCode::Enter)), vec![Action::Submit("/model".into())]);
}

/// Through the real binary on the OpenAI wire against a local server: `/model` opens the
/// picker with the server's models, typing filters, Enter switches, the status line shows
/// the new model and the next request asks for it.
#[test]
fn through_the_real_binary_the_picker_switches_the_model_of_the_next_request() {
    use crate::support::{Reply, Server};
    use crate::tui::pty::Tui;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sse = concat!(
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"REPLY-FROM-SECOND\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let models = serde_json::json!({"object": "list", "data": [{"id": "gpt-4o"}, {"id": "gpt-second"}]});
    let server =
        runtime.block_on(Server::start(vec![Reply::stream("application/json", &models.to_string()), Reply::sse(sse)]));
    let base = format!("{}/v1", server.url);
    let env = [("OPENAI_BASE_URL", base.as_str()), ("OPENAI_API_KEY", "sk-test-key-0123456789")];
    let dir = tempfile::tempdir().unwrap();
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_elelem"));
    let mut tui = Tui::launch(binary, dir, serde_json::json!([]), 40, 120, &env, &["-p", "openai", "-m", "gpt-4o"]);
    tui.wait_for("Ask elelem");
    tui.send("/model\r");
    tui.wait_for("models · openai · 2 of 2");
    tui.send("second");
    tui.wait_for("1 of 2");
    tui.send("\r");
    tui.wait_for("openai · gpt-second");
    tui.send("hello\r");
    tui.wait_for("REPLY-FROM-SECOND");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/models");
    assert_eq!(requests[1].body["model"], "gpt-second");
    tui.send("\x04");
    assert!(tui.wait_exit().success());
}
