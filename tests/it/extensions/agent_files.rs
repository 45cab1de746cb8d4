//! Agents defined in files (`~/.agents/agents/*.md`) through the real binary against a
//! local model server: `task` offers them (an `agent` property with names and
//! descriptions), a call naming one runs with that file's prompt, only its tools and its
//! model, and a file with bad front matter is reported (file and line) and skipped.

use crate::providers::model_server::{chat, result_text, results_this_turn, text, tool_results, tool_use, ModelServer};
use serde_json::{json, Value};

const REVIEWER: &str = "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, grep\nmodel: claude-reviewer-model\n---\nYou are the REVIEWER. Read the code and list the bugs you find.\n";

/// The names of the tools a request offers.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).map(str::to_string).collect()
}

fn system_of(body: &Value) -> String {
    match &body["system"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

fn is_reviewer(body: &Value) -> bool {
    system_of(body).contains("You are the REVIEWER")
}

#[tokio::test(flavor = "multi_thread")]
async fn task_offers_an_agent_from_a_file_which_runs_with_its_prompt_model_and_only_its_tools() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".agents/agents")).unwrap();
    std::fs::write(home.path().join(".agents/agents/reviewer.md"), REVIEWER).unwrap();
    std::fs::write(home.path().join("notes.txt"), "a line\n").unwrap();
    let server = ModelServer::start(|body: &Value| match (is_reviewer(body), results_this_turn(body)) {
        (false, 0) => vec![tool_use(
            "toolu_t",
            "task",
            json!({"description": "review notes", "prompt": "review notes.txt", "agent": "reviewer"}),
        )],
        (false, _) => vec![text("reviewed")],
        // The reviewer tries a tool its file does not name, then one it does.
        (true, 0) => vec![tool_use("toolu_w", "write", json!({"path": "notes.txt", "content": "changed\n"}))],
        (true, 1) => vec![tool_use("toolu_r", "read", json!({"path": "notes.txt"}))],
        (true, _) => vec![text("no bugs in notes.txt")],
    })
    .await;
    let stdout = chat(home.path(), &server, &["--yolo", "--sandbox", "off"], "review my notes\n", &[]).await;
    let requests = server.requests();
    // The tool log names the agent on the call's row.
    assert!(stdout.contains("reviewer: review notes"), "{stdout}");

    // The parent is offered the agent by name and description.
    let task = requests[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "task").unwrap().clone();
    let agent = &task["input_schema"]["properties"]["agent"];
    assert_eq!(agent["enum"], json!(["reviewer"]), "{task}");
    assert!(agent["description"].as_str().unwrap().contains("reviewer: Reviews a change for bugs"), "{task}");

    // The reviewer runs with its prompt, its model and only its tools.
    let child: Vec<&Value> = requests.iter().filter(|b| is_reviewer(b)).collect();
    assert_eq!(child.len(), 3, "{requests:?}");
    assert_eq!(child[0]["model"], "claude-reviewer-model");
    assert_eq!(tool_names(child[0]), ["read", "grep"]);
    let system = system_of(child[0]);
    assert!(system.contains("Working directory:") && !system.contains("How to work:"), "{system}");
    let refused = result_text(&tool_results(child[1])[0]);
    assert!(refused.contains("unknown tool"), "{refused}");
    assert_eq!(std::fs::read_to_string(home.path().join("notes.txt")).unwrap(), "a line\n", "write never ran");
    assert!(result_text(&tool_results(child[2])[1]).contains("a line"));

    // Its final reply is the task's result; the parent keeps its own model.
    let last = requests.last().unwrap();
    assert!(!is_reviewer(last) && last["model"] != "claude-reviewer-model");
    assert!(result_text(&tool_results(last)[0]).contains("no bugs in notes.txt"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_file_with_bad_front_matter_is_reported_with_its_line_and_skipped() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".agents/agents")).unwrap();
    std::fs::write(home.path().join(".agents/agents/reviewer.md"), REVIEWER).unwrap();
    let broken = "---\nname: broken\ndescription: Looks fine\nthis line is not yaml\n---\nBody.\n";
    std::fs::write(home.path().join(".agents/agents/broken.md"), broken).unwrap();
    std::fs::write(home.path().join(".agents/agents/unnamed.md"), "---\ndescription: no name\n---\nBody.\n").unwrap();
    let server = ModelServer::start(|_| vec![text("ok")]).await;
    let stdout = chat(home.path(), &server, &[], "hello\n/agents\n", &[]).await;
    assert!(stdout.contains("agent file skipped:") && stdout.contains("broken.md:4:"), "{stdout}");
    assert!(stdout.contains("unnamed.md:1: front matter has no `name`"), "{stdout}");
    let task = server.requests()[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "task").unwrap().clone();
    assert_eq!(task["input_schema"]["properties"]["agent"]["enum"], json!(["reviewer"]), "{task}");
    assert!(stdout.contains("reviewer (user) — Reviews a change for bugs"), "/agents lists it: {stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_projects_agent_files_are_not_read() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join(".claude/agents")).unwrap();
    std::fs::write(project.join(".claude/agents/reviewer.md"), REVIEWER).unwrap();
    let server = ModelServer::start(|_| vec![text("ok")]).await;
    chat_in(&project, home.path(), &server, &[], "hello\n", &[]).await;
    let task = server.requests()[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "task").unwrap().clone();
    assert!(task["input_schema"]["properties"].get("agent").is_none(), "{task}");
    chat_in(&project, home.path(), &server, &["--trust"], "hello\n", &[]).await;
    let task = server.requests()[1]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "task").unwrap().clone();
    assert_eq!(task["input_schema"]["properties"]["agent"]["enum"], json!(["reviewer"]), "{task}");
}

/// `elelem chat --plain -p anthropic ARGS` in `cwd` with `home` as HOME against `server`,
/// typing `lines`; panics unless it exits cleanly.
async fn chat_in(
    cwd: &std::path::Path,
    home: &std::path::Path,
    server: &ModelServer,
    args: &[&str],
    lines: &str,
    env: &[(&str, &str)],
) {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "-p", "anthropic"])
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .env_remove("ELELEM_STUB_SCRIPT")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(lines.as_bytes()).await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
