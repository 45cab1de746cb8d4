//! The `task` tool and concurrent calls (issue 31 point 2). Through the real binary against
//! a local Anthropic-protocol server that plays the model by looking at each request (a
//! request offering `task` is the parent's, one without it a sub-agent's): a `task` call
//! returns the sub-agent's report and none of its tool output; two `task` calls of one
//! response run at the same time (each child waits for a file the other creates); a
//! sub-agent is held to the same permissions. In process: read-only calls of one response
//! run at the same time with results in call order, and an interrupt stops a sub-agent.

use crate::providers::model_server::{chat, result_text, results_this_turn, text, tool_results, tool_use, ModelServer};
use elelem::agent::output::{AgentEvent, RecordingOutput, TurnEnd};
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Tool, ToolContext, Toolbox, Transcript};
use elelem::protocol::{EventStream, Provider, ProviderEvent, Request, Role, ToolCall};
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Whether `body` is the parent's request (it offers `task`).
fn offers_task(body: &Value) -> bool {
    body["tools"].as_array().into_iter().flatten().any(|t| t["name"] == "task")
}

/// The first user message of `body` (the prompt a sub-agent was given).
fn first_prompt(body: &Value) -> String {
    let first = &body["messages"][0]["content"];
    match first {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// The system prompt's text in `body` (a string or text blocks).
fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// The result text of call `id` in `body`.
fn result_of(body: &Value, id: &str) -> Option<String> {
    tool_results(body).iter().find(|b| b["tool_use_id"] == id).map(result_text)
}

#[tokio::test]
async fn a_task_returns_the_sub_agents_report_and_none_of_its_tool_output() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("notes.txt"), "CHILD-ONLY-CONTENT: the number is 42\n").unwrap();
    let server = ModelServer::start(|body: &Value| match (offers_task(body), results_this_turn(body)) {
        (true, 0) => vec![
            text("I'll have a sub-agent read the notes."),
            tool_use(
                "toolu_task",
                "task",
                json!({"description": "read the notes", "prompt": "Read notes.txt and report its number."}),
            ),
        ],
        (true, _) => vec![text("The sub-agent says 42.")],
        (false, 0) => vec![tool_use("toolu_child_read", "read", json!({"path": "notes.txt"}))],
        (false, _) => {
            let read = result_of(body, "toolu_child_read").unwrap_or_default();
            vec![text(&format!("REPORT: saw the notes = {}", read.contains("the number is 42")))]
        }
    })
    .await;
    let out = chat(home.path(), &server, &[], "what number is in the notes?\n", &[]).await;
    let requests = server.requests();
    let (parent, child): (Vec<&Value>, Vec<&Value>) = requests.iter().partition(|b| offers_task(b));
    assert_eq!((parent.len(), child.len()), (2, 2), "two parent and two child requests");
    assert_eq!(first_prompt(child[0]), "Read notes.txt and report its number.", "a fresh context: only the task");
    let (child_system, parent_system) = (system_text(child[0]), system_text(parent[0]));
    assert!(child_system.starts_with("You are a sub-agent"), "a preamble first: {child_system}");
    assert!(child_system.contains("Only your final reply is returned"), "{child_system}");
    assert!(!parent_system.contains("sub-agent:"), "{parent_system}");
    assert!(child_system.ends_with(parent_system.trim_start()), "then the same system prompt");
    assert_eq!(child[0]["messages"].as_array().map(Vec::len), Some(1), "nothing of the parent's conversation");
    let report = result_of(parent[1], "toolu_task").expect("the task's result");
    assert!(report.contains("REPORT: saw the notes = true"), "{report}");
    for body in &parent {
        assert!(!body.to_string().contains("CHILD-ONLY-CONTENT"), "the child's tool output reached the parent");
    }
    assert!(child[1].to_string().contains("CHILD-ONLY-CONTENT"), "the child itself read it");
    assert!(out.contains("The sub-agent says 42."), "{out}");
    assert!(out.contains("↳ read notes.txt"), "the line REPL shows the child's call nested:\n{out}");
}

/// A command that creates `mine`, waits (at most ~10 s) for `theirs`, and says whether it came.
fn meet(mine: &str, theirs: &str) -> String {
    format!(
        "touch {mine}; i=0; while [ ! -f {theirs} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; \
         test -f {theirs} && echo saw-{theirs}"
    )
}

#[tokio::test]
async fn two_task_calls_of_one_response_run_at_the_same_time() {
    let home = tempfile::tempdir().unwrap();
    let server = ModelServer::start(|body: &Value| match (offers_task(body), results_this_turn(body)) {
        (true, 0) => vec![
            tool_use("toolu_a", "task", json!({"description": "side a", "prompt": "side a"})),
            tool_use("toolu_b", "task", json!({"description": "side b", "prompt": "side b"})),
        ],
        (true, _) => vec![text("both sides met")],
        (false, 0) => {
            let (mine, theirs) =
                if first_prompt(body) == "side a" { ("a.flag", "b.flag") } else { ("b.flag", "a.flag") };
            vec![tool_use("toolu_meet", "execute", json!({"command": meet(mine, theirs)}))]
        }
        (false, _) => {
            let ran = result_of(body, "toolu_meet").unwrap_or_default();
            let side = first_prompt(body);
            vec![text(&format!("{side}: met={}", ran.contains("saw-")))]
        }
    })
    .await;
    chat(home.path(), &server, &["--yolo", "--sandbox", "off"], "meet in the middle\n", &[]).await;
    let requests = server.requests();
    let last = requests.iter().rfind(|b| offers_task(b)).unwrap();
    let results = tool_results(last);
    let ids: Vec<&str> = results.iter().filter_map(|b| b["tool_use_id"].as_str()).collect();
    assert_eq!(ids, ["toolu_a", "toolu_b"], "results in call order");
    assert!(result_text(&results[0]).contains("side a: met=true"), "{}", result_text(&results[0]));
    assert!(result_text(&results[1]).contains("side b: met=true"), "{}", result_text(&results[1]));
}

#[tokio::test]
async fn a_sub_agent_is_held_to_the_same_permissions() {
    let home = tempfile::tempdir().unwrap();
    let server = ModelServer::start(|body: &Value| match (offers_task(body), results_this_turn(body)) {
        (true, 0) => vec![tool_use("toolu_task", "task", json!({"description": "x", "prompt": "make a file"}))],
        (true, _) => vec![text("done")],
        (false, 0) => {
            vec![tool_use("toolu_touch", "execute", json!({"command": "touch made-by-child", "sandbox": false}))]
        }
        (false, _) => vec![text(&format!("child got: {}", result_of(body, "toolu_touch").unwrap_or_default()))],
    })
    .await;
    // Headless without --yolo: leaving the sandbox would ask, so the gate refuses it, in the
    // child as in the parent.
    chat(home.path(), &server, &[], "go\n", &[]).await;
    assert!(!home.path().join("made-by-child").exists(), "the child ran a command nobody approved");
    let child = server.requests().into_iter().rfind(|b| !offers_task(b)).unwrap();
    let refused = result_of(&child, "toolu_touch").unwrap();
    assert!(refused.contains("\"ok\":false"), "{refused}");
}

/// A model that answers each request with `play(request)`, in process.
struct Played(Play, Mutex<Vec<Request>>);

/// What the in-process model answers a request with.
type Play = Box<dyn Fn(&Request) -> Vec<ProviderEvent> + Send + Sync>;

impl Provider for Played {
    fn name(&self) -> &str {
        "played"
    }
    fn model(&self) -> &str {
        "played-1"
    }
    fn fetch(&self, request: Request) -> EventStream {
        let events = (self.0)(&request);
        self.1.lock().unwrap().push(request);
        futures::stream::iter(events.into_iter().map(Ok)).boxed()
    }
}

fn doing(id: &str, name: &str, arguments: Value) -> ProviderEvent {
    ProviderEvent::Doing(ToolCall { id: id.into(), name: name.into(), arguments })
}

/// Tool results of this turn in `request`, as (call id, content).
fn results(request: &Request) -> Vec<(String, String)> {
    request
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| {
            (
                m.tool_call_id.clone().unwrap_or_default(),
                m.result.as_ref().map(|r| r.to_value().to_string()).unwrap_or_default(),
            )
        })
        .collect()
}

fn agent(provider: Arc<Played>, toolbox: Toolbox) -> (Agent, Arc<RecordingOutput>) {
    let output = Arc::new(RecordingOutput::default());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()).with_template("SYSTEM"));
    let mut agent = Agent::new(provider, toolbox, output.clone(), transcript);
    // As `startup` composes it: calls of tools that run agents get a child agent.
    agent.set_sub_agents(Arc::new(elelem::startup::sub_agents::Children::default()));
    (agent, output)
}

#[tokio::test]
async fn read_only_calls_of_one_response_run_at_the_same_time_with_results_in_call_order() {
    // `wait` returns once `signal` ran; run one after the other, `wait` (called first) would
    // never see it and give up.
    let signalled = Arc::new(tokio::sync::Notify::new());
    let (waiter, signaller) = (signalled.clone(), signalled.clone());
    let mut toolbox = Toolbox::new();
    let schema = json!({"type": "object"});
    toolbox.add(
        Tool::new("wait", "", schema.clone(), move |_: Value, _: ToolContext| {
            let waiter = waiter.clone();
            async move {
                let met = tokio::time::timeout(std::time::Duration::from_secs(10), waiter.notified()).await.is_ok();
                Ok(json!({"content": format!("wait met={met}")}))
            }
        })
        .unwrap()
        .read_only(),
    );
    toolbox.add(
        Tool::new("signal", "", schema, move |_: Value, _: ToolContext| {
            let signaller = signaller.clone();
            async move {
                signaller.notify_one();
                Ok(json!({"content": "signalled"}))
            }
        })
        .unwrap()
        .read_only(),
    );
    let provider = Arc::new(Played(
        Box::new(|request: &Request| {
            if results(request).is_empty() {
                vec![doing("c1", "wait", json!({})), doing("c2", "signal", json!({}))]
            } else {
                vec![ProviderEvent::Saying("done".into())]
            }
        }),
        Mutex::default(),
    ));
    let (mut agent, _) = agent(provider.clone(), toolbox);
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Done);
    let last = provider.1.lock().unwrap().last().cloned().unwrap();
    let got = results(&last);
    assert_eq!(got.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["c1", "c2"], "call order");
    assert!(got[0].1.contains("wait met=true"), "{:?}", got[0]);
}

#[tokio::test]
async fn an_interrupt_stops_a_running_sub_agent_with_the_turn() {
    let started = Arc::new(tokio::sync::Notify::new());
    let stopped = Arc::new(Mutex::new(false));
    let (hang_started, hang_stopped) = (started.clone(), stopped.clone());
    let mut toolbox = Toolbox::new();
    toolbox.add(elelem::tools::task::tool());
    toolbox.add(
        Tool::new("hang", "", json!({"type": "object"}), move |_: Value, ctx: ToolContext| {
            let (started, stopped) = (hang_started.clone(), hang_stopped.clone());
            async move {
                started.notify_one();
                ctx.cancel.cancelled().await;
                *stopped.lock().unwrap() = true;
                Ok(json!({"content": "stopped"}))
            }
        })
        .unwrap(),
    );
    let provider = Arc::new(Played(
        Box::new(|request: &Request| {
            let parent = request.tools.iter().any(|t| t.name == "task");
            match (parent, results(request).is_empty()) {
                (true, true) => vec![doing("toolu_task", "task", json!({"description": "d", "prompt": "hang"}))],
                (false, true) => vec![doing("toolu_hang", "hang", json!({}))],
                _ => vec![ProviderEvent::Saying("should not get here".into())],
            }
        }),
        Mutex::default(),
    ));
    let (mut agent, output) = agent(provider.clone(), toolbox);
    let cancel = CancellationToken::new();
    let interrupt = cancel.clone();
    tokio::spawn(async move {
        started.notified().await;
        interrupt.cancel();
    });
    let outcome = agent.turn("go", cancel).await;
    assert_eq!(outcome.end, TurnEnd::Interrupted);
    assert!(*stopped.lock().unwrap(), "the child's tool saw the interrupt");
    assert_eq!(provider.1.lock().unwrap().len(), 2, "no model call after the interrupt");
    let finished = output.events().into_iter().find_map(|e| match e {
        AgentEvent::ToolFinished { call, result } if call.id == "toolu_task" => Some(result),
        _ => None,
    });
    assert_eq!(finished.and_then(|r| r.error().map(str::to_string)).as_deref(), Some("interrupted"));
    let nested = output.events().into_iter().any(|e| {
        matches!(e, AgentEvent::SubAgent { call_id, event } if call_id == "toolu_task"
            && matches!(*event, AgentEvent::ToolStarted { ref call, .. } if call.name == "hang"))
    });
    assert!(nested, "the child's call reached the output tagged with the parent call");
}

#[tokio::test]
async fn hooks_of_calls_running_together_run_one_call_at_a_time() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut toolbox = Toolbox::new();
    for name in ["look", "peek"] {
        let tool = Tool::new(name, "", json!({"type": "object"}), |_: Value, _: ToolContext| async { Ok(json!({})) });
        toolbox.add(tool.unwrap().read_only());
    }
    let seen = log.clone();
    toolbox.before(None, move |call| {
        let seen = seen.clone();
        async move {
            let id = call.context.call_id.clone();
            seen.lock().unwrap().push(format!("enter {id}"));
            for _ in 0..5 {
                tokio::task::yield_now().await;
            }
            seen.lock().unwrap().push(format!("leave {id}"));
            Ok(())
        }
    });
    let provider = Arc::new(Played(
        Box::new(|request: &Request| match results(request).is_empty() {
            true => vec![doing("c1", "look", json!({})), doing("c2", "peek", json!({}))],
            false => vec![ProviderEvent::Saying("done".into())],
        }),
        Mutex::default(),
    ));
    let (mut agent, _) = agent(provider, toolbox);
    agent.turn("go", CancellationToken::new()).await;
    assert_eq!(*log.lock().unwrap(), ["enter c1", "leave c1", "enter c2", "leave c2"]);
}

#[tokio::test]
async fn ask_json_writes_a_sub_agents_calls_nested_under_the_task() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("notes.txt"), "hello\n").unwrap();
    let server = ModelServer::start(|body: &Value| match (offers_task(body), results_this_turn(body)) {
        (true, 0) => vec![tool_use("toolu_task", "task", json!({"description": "d", "prompt": "read the notes"}))],
        (true, _) => vec![text("parent done")],
        (false, 0) => vec![tool_use("toolu_child_read", "read", json!({"path": "notes.txt"}))],
        (false, _) => vec![text("child done")],
    })
    .await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["ask", "--json", "-p", "anthropic", "go"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .env_remove("ELELEM_STUB_SCRIPT")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let nested: Vec<&Value> = lines.iter().filter(|l| l["type"] == "sub_agent").collect();
    assert!(
        nested
            .iter()
            .any(|l| l["call_id"] == "toolu_task" && l["event"]["type"] == "doing" && l["event"]["name"] == "read"),
        "{lines:#?}"
    );
    let task_result = lines.iter().find(|l| l["type"] == "result" && l["id"] == "toolu_task").unwrap();
    assert_eq!(task_result["result"]["content"], "child done");
    assert!(!lines.iter().any(|l| l["type"] == "result" && l["id"] == "toolu_child_read"), "not as the parent's own");
}

#[test]
fn a_sub_agents_tokens_count_in_the_turn_and_in_cost() {
    let home = tempfile::tempdir().unwrap();
    let usage = |input: u64, output: u64| json!({"type": "usage", "input_tokens": input, "output_tokens": output});
    let steps = json!([
        {"events": [{"type": "doing", "id": "toolu_task", "name": "task",
                     "arguments": {"description": "d", "prompt": "report"}}, usage(1000, 10)]},
        {"events": [{"type": "saying", "text": "child report"}, usage(2000, 20)]},
        {"events": [{"type": "saying", "text": "done"}, usage(3000, 30)]}
    ]);
    let script = home.path().join("script.json");
    std::fs::write(&script, steps.to_string()).unwrap();
    let input = home.path().join("input");
    std::fs::write(&input, "go\n/cost\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "-p", "stub"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("turn ↑6.0k ↓60"), "{stdout}");
    assert!(stdout.contains("6,000 uncached"), "{stdout}");
}

#[tokio::test]
async fn a_sub_agent_that_keeps_calling_tools_stops_at_the_step_limit() {
    let mut toolbox = Toolbox::new();
    toolbox.add(elelem::tools::task::tool());
    toolbox.add(crate::support::read_tool());
    let provider = Arc::new(Played(
        Box::new(|request: &Request| {
            let parent = request.tools.iter().any(|t| t.name == "task");
            match (parent, results(request).is_empty()) {
                (true, true) => vec![doing("toolu_task", "task", json!({"description": "d", "prompt": "loop"}))],
                (true, false) => vec![ProviderEvent::Saying("parent done".into())],
                (false, _) => vec![doing(&format!("r{}", results(request).len()), "read", json!({"path": "x"}))],
            }
        }),
        Mutex::default(),
    ));
    let (mut agent, output) = agent(provider.clone(), toolbox);
    agent.set_max_steps(3);
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.reply, "parent done");
    let child_calls = provider.1.lock().unwrap().iter().filter(|r| !r.tools.iter().any(|t| t.name == "task")).count();
    assert_eq!(child_calls, 3, "the child made as many model calls as the step limit allows");
    let result = output.events().into_iter().find_map(|e| match e {
        AgentEvent::ToolFinished { call, result } if call.id == "toolu_task" => Some(result),
        _ => None,
    });
    let error = result.and_then(|r| r.error().map(str::to_string)).unwrap_or_default();
    assert!(error.starts_with("the sub-agent failed: stopped after 3 model calls"), "{error}");
}
