//! The briefing: what the system prompt tells the model about its world (the sandbox in
//! each mode, the network, the permission mode, how to work, what never to do unasked),
//! rendered from the settings handed in, and what it costs together with the built-in
//! tools' descriptions.

use elelem::agent::system_prompt::{Environment, Sandbox, SystemPrompt};
use elelem::protocol::mode::Mode;

fn prompt_with(environment: fn() -> Environment) -> SystemPrompt {
    let dir = std::env::temp_dir();
    SystemPrompt::new(dir).with_environment(environment)
}

fn workspace_offline() -> Environment {
    Environment { shell: "bash".into(), sandbox: Sandbox::WorkspaceWrite, network: false }
}
fn workspace_online() -> Environment {
    Environment { shell: "bash".into(), sandbox: Sandbox::WorkspaceWrite, network: true }
}
fn read_only_offline() -> Environment {
    Environment { shell: "bash".into(), sandbox: Sandbox::ReadOnly, network: false }
}
fn read_only_online() -> Environment {
    Environment { shell: "zsh".into(), sandbox: Sandbox::ReadOnly, network: true }
}
fn off() -> Environment {
    Environment { shell: "bash".into(), sandbox: Sandbox::Off, network: false }
}

#[test]
fn each_sandbox_mode_is_told_with_what_it_allows_and_refuses() {
    let text = prompt_with(workspace_offline).render();
    assert!(text.contains("commands run in bash."), "{text}");
    assert!(text.contains("Sandbox: workspace-write:"), "{text}");
    assert!(text.contains("writing only in the project and $TMPDIR"), "{text}");
    assert!(text.contains("Network: off"), "{text}");
    assert!(text.contains("`\"sandbox\": false`"), "{text}");
    assert!(text.contains("Could not resolve host"), "{text}");

    let text = prompt_with(workspace_online).render();
    assert!(text.contains("Sandbox: workspace-write:") && text.contains("Network: on."), "{text}");
    assert!(!text.contains("Network: off"), "{text}");

    let text = prompt_with(read_only_offline).render();
    assert!(text.contains("Sandbox: read-only:") && text.contains("writing nowhere"), "{text}");
    assert!(text.contains("Network: off") && text.contains("`\"sandbox\": false`"), "{text}");

    let text = prompt_with(read_only_online).render();
    assert!(text.contains("Sandbox: read-only:") && text.contains("Network: on."), "{text}");
    assert!(text.contains("commands run in zsh."), "{text}");

    let text = prompt_with(off).render();
    assert!(text.contains("Sandbox: off:") && text.contains("with the user's rights and network"), "{text}");
    assert!(!text.contains("\"sandbox\": false") && !text.contains("Network: off"), "{text}");
}

#[test]
fn without_an_environment_reader_no_sandbox_is_claimed() {
    let text = SystemPrompt::new(std::env::temp_dir()).render();
    assert!(!text.contains("Sandbox:") && !text.contains("commands run in"), "{text}");
    assert!(text.contains(&format!("Platform: {} {}\n", std::env::consts::OS, std::env::consts::ARCH)), "{text}");
}

#[test]
fn each_permission_mode_is_told_after_the_fixed_text_and_the_date_comes_last() {
    let mut prompt = prompt_with(workspace_offline);
    prompt.set_section("skills", "Skills: none.");
    let ask = prompt.render();
    assert!(ask.contains("Mode: ask"), "{ask}");
    prompt.set_mode(Mode::Edits);
    let edits = prompt.render();
    assert!(edits.contains("Mode: accept edits") && !edits.contains("Mode: ask"), "{edits}");
    prompt.set_mode(Mode::Plan);
    let plan = prompt.render();
    assert!(plan.contains("Mode: plan") && plan.contains("only read-only tools run"), "{plan}");
    // The mode changes within a session: everything before it, the sections included, is
    // the same prefix whatever the mode; the date is the last line.
    let prefix = ask.split("Mode: ask").next().unwrap();
    assert!(edits.starts_with(prefix) && plan.starts_with(prefix), "{ask}");
    assert!(prefix.contains("Skills: none."), "{ask}");
    for text in [&ask, &edits, &plan] {
        assert!(text.lines().last().unwrap().starts_with("Date: "), "{text}");
    }
}

#[test]
fn how_to_work_and_what_never_to_do_unasked_are_told() {
    let text = prompt_with(workspace_offline).render();
    for words in [
        "Explore before changing",
        "Keep a plan",
        "smallest change",
        "project's own tests",
        "what you did not",
        "commit, push, rewrite git history",
        "install globally",
        "AGENTS.md",
        "win over these",
        "never retry unchanged",
        "hook feedback",
        "Markdown",
        "`path:line`",
    ] {
        assert!(text.contains(words), "{words:?} missing from:\n{text}");
    }
}

#[test]
fn the_prompt_renders_the_same_bytes_twice() {
    let prompt = prompt_with(workspace_offline);
    assert_eq!(prompt.render(), prompt.render());
}

/// Characters of the prompt plus every built-in tool's name, description and schema as
/// sent; about four characters a token.
fn briefing_chars() -> (usize, Vec<(String, usize)>) {
    let prompt = prompt_with(workspace_offline).render();
    let mut parts = vec![("system prompt".to_string(), prompt.chars().count())];
    for tool in elelem::tools::all() {
        let schema = serde_json::to_string(&tool.parameters).unwrap();
        parts.push((tool.name.clone(), tool.name.len() + tool.description.chars().count() + schema.chars().count()));
    }
    (parts.iter().map(|(_, n)| n).sum(), parts)
}

#[test]
fn the_briefing_fits_its_budget() {
    let (total, parts) = briefing_chars();
    let listed: Vec<String> = parts.iter().map(|(name, n)| format!("{name}: {n}")).collect();
    println!("{}\ntotal: {total} characters, about {} tokens", listed.join("\n"), total / 4);
    assert!(total / 4 <= 1_600, "the briefing grew past its budget:\n{}\ntotal {total}", listed.join("\n"));
}

/// The system prompt of an Anthropic request body, its cache marks aside.
fn system_of(body: &serde_json::Value) -> String {
    match &body["system"] {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        other => panic!("no system prompt in {other}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_tells_the_model_its_sandbox_and_rules_with_the_same_bytes_each_turn() {
    use crate::providers::model_server::{self, ModelServer};
    let home = crate::support::home::Home::new();
    let server = ModelServer::start(|_| vec![model_server::text("ok")]).await;
    let args = ["--sandbox", "workspace-write"];
    model_server::chat(home.dir.path(), &server, &args, "first\nsecond\n", &[]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let first = system_of(&requests[0]);
    for words in [
        "Sandbox: workspace-write",
        "Network: off",
        "`\"sandbox\": false`",
        "tests",
        "commit",
        "push",
        "commands run in bash",
        "Mode: ask",
    ] {
        assert!(first.contains(words), "{words:?} missing from the first request's system prompt:\n{first}");
    }
    // Prompt caching: the second turn's system prompt is the same, byte for byte.
    assert_eq!(
        model_server::without_marks(&requests[0]["system"]),
        model_server::without_marks(&requests[1]["system"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_states_the_settings_in_force_and_a_sandbox_switch_at_the_next_call() {
    use crate::providers::model_server::{self, ModelServer};
    let home = crate::support::home::Home::new();
    let server = ModelServer::start(|_| vec![model_server::text("ok")]).await;
    let args = ["--sandbox", "read-only", "--sandbox-network", "--mode", "plan"];
    model_server::chat(home.dir.path(), &server, &args, "first\n/sandbox off\n/mode edits\nsecond\n", &[]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let first = system_of(&requests[0]);
    assert!(first.contains("Sandbox: read-only") && first.contains("Network: on."), "{first}");
    assert!(first.contains("Mode: plan"), "{first}");
    let second = system_of(&requests[1]);
    assert!(second.contains("Sandbox: off") && !second.contains("\"sandbox\": false"), "{second}");
    assert!(second.contains("Mode: accept edits"), "{second}");
}
