//! The kernel against ARCHITECTURE.md's contract (a turn, the objects, a tool call): one test per statement of the turn flow, the
//! conversation, provider failures, interrupts and the toolbox's call flow.

use elelem::agent::output::{AgentEvent, Delta, RecordingOutput, TurnEnd};
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Transcript};
use elelem::agent::{Tool, ToolContext, Toolbox};
use elelem::protocol::{EventStream, Provider, ProviderError, ProviderEvent, Request};
use elelem::protocol::{Message, Role, ThinkingBlock, ToolCall, ToolResult};
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A model double: answers each call from a list and records every request it got.
struct ScriptedModel {
    answers: Mutex<Vec<Result<Vec<ProviderEvent>, ProviderError>>>,
    requests: Mutex<Vec<Request>>,
    /// Sleep before each event (for interrupt tests).
    pace: Duration,
}

impl ScriptedModel {
    fn new(answers: Vec<Result<Vec<ProviderEvent>, ProviderError>>) -> Arc<Self> {
        Arc::new(ScriptedModel { answers: Mutex::new(answers), requests: Mutex::new(vec![]), pace: Duration::ZERO })
    }
    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Provider for ScriptedModel {
    fn name(&self) -> &str {
        "scripted"
    }
    fn model(&self) -> &str {
        "scripted-1"
    }
    fn fetch(&self, request: Request) -> EventStream {
        self.requests.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        let answer =
            if answers.is_empty() { Ok(vec![ProviderEvent::Saying("done".into())]) } else { answers.remove(0) };
        let pace = self.pace;
        match answer {
            Err(e) => futures::stream::iter(vec![Err(e)]).boxed(),
            Ok(events) => futures::stream::iter(events)
                .then(move |e| async move {
                    tokio::time::sleep(pace).await;
                    Ok(e)
                })
                .boxed(),
        }
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ProviderEvent {
    ProviderEvent::Doing(ToolCall { id: id.into(), name: name.into(), arguments })
}

fn say(text: &str) -> ProviderEvent {
    ProviderEvent::Saying(text.into())
}

fn echo_tool() -> Tool {
    crate::support::read_tool().with_aliases(&["open"])
}

fn agent_with(model: Arc<ScriptedModel>, toolbox: Toolbox) -> (Agent, Arc<RecordingOutput>) {
    let output = Arc::new(RecordingOutput::default());
    let dir = std::env::temp_dir();
    let transcript = Transcript::new(SystemPrompt::new(dir).with_template("SYSTEM {{date}}"));
    (Agent::new(model, toolbox, output.clone(), transcript), output)
}

fn toolbox() -> Toolbox {
    let mut t = Toolbox::new();
    t.add(echo_tool());
    t
}

#[tokio::test]
async fn a_turn_runs_tools_and_sends_the_results_back_until_the_model_stops() {
    let model = ScriptedModel::new(vec![
        Ok(vec![say("Let me look."), call("t1", "read", json!({"path": "README.md"}))]),
        Ok(vec![say("It is a readme.")]),
    ]);
    let (mut agent, output) = agent_with(model.clone(), toolbox());
    let outcome = agent.turn("what is this?", CancellationToken::new()).await;
    assert_eq!(outcome.reply, "It is a readme.");
    assert_eq!(outcome.end, TurnEnd::Done);

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let first: Vec<Role> = requests[0].messages.iter().map(|m| m.role).collect();
    assert_eq!(first, [Role::System, Role::User]);
    assert_eq!(requests[0].tools[0].name, "read");
    let second = &requests[1].messages;
    assert_eq!(second.len(), 4);
    assert_eq!(second[2].role, Role::Assistant);
    assert_eq!(second[2].content, "Let me look.");
    assert_eq!(second[2].tool_calls[0].id, "t1");
    assert_eq!(second[3].role, Role::Tool);
    assert_eq!(second[3].tool_call_id.as_deref(), Some("t1"));
    assert_eq!(second[3].text(), r#"{"content":"text of README.md","path":"README.md","ok":true}"#);

    let events = output.events();
    assert!(events.contains(&AgentEvent::ToolStarted {
        call: ToolCall { id: "t1".into(), name: "read".into(), arguments: json!({"path": "README.md"}) },
        summary: "README.md".into()
    }));
    assert!(events.contains(&AgentEvent::TurnFinished { reply: "It is a readme.".into(), end: TurnEnd::Done }));
    // While the turn ran, the context showed its tool traffic; at the end it is dropped.
    let turns: Vec<usize> =
        events.iter().filter_map(|e| if let AgentEvent::Context(c) = e { Some(c.turn.len()) } else { None }).collect();
    assert_eq!(turns, [0, 2, 0], "context before, during and after the turn");
}

#[tokio::test]
async fn the_conversation_keeps_only_prompts_and_final_replies() {
    let model = ScriptedModel::new(vec![
        Ok(vec![call("t1", "read", json!({"path": "a"}))]),
        Ok(vec![say("first reply")]),
        Ok(vec![say("second reply")]),
    ]);
    let (mut agent, _) = agent_with(model.clone(), toolbox());
    agent.turn("one", CancellationToken::new()).await;
    agent.turn("two", CancellationToken::new()).await;
    let kept: Vec<(Role, &str)> =
        agent.transcript().conversation.messages().iter().map(|m| (m.role, m.content.as_str())).collect();
    assert_eq!(
        kept,
        [(Role::User, "one"), (Role::Assistant, "first reply"), (Role::User, "two"), (Role::Assistant, "second reply")]
    );
    // The third call (second turn) sees no tool traffic from the first turn.
    let third = &model.requests()[2].messages;
    assert!(third.iter().all(|m| m.role != Role::Tool && m.tool_calls.is_empty()));
}

#[tokio::test]
async fn the_system_prompt_is_rendered_fresh_for_every_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let model = ScriptedModel::new(vec![Ok(vec![say("a")]), Ok(vec![say("b")])]);
    let output = Arc::new(RecordingOutput::default());
    let transcript =
        Transcript::new(SystemPrompt::new(dir.path().to_path_buf()).with_instructions(elelem::instructions::render));
    let mut agent = Agent::new(model.clone(), Toolbox::new(), output, transcript);
    agent.turn("one", CancellationToken::new()).await;
    std::fs::write(dir.path().join("AGENTS.md"), "Prefer small commits.").unwrap();
    agent.turn("two", CancellationToken::new()).await;
    let requests = model.requests();
    assert!(!requests[0].messages[0].content.contains("Prefer small commits."));
    assert!(requests[1].messages[0].content.contains("Prefer small commits."));
}

#[tokio::test]
async fn a_provider_failure_ends_the_turn_with_an_error_reply_that_is_saved() {
    let model = ScriptedModel::new(vec![Err(ProviderError::Api("overloaded".into())), Ok(vec![say("fine now")])]);
    let (mut agent, output) = agent_with(model, toolbox());
    let outcome = agent.turn("hi", CancellationToken::new()).await;
    assert_eq!(outcome.reply, "Error: overloaded");
    assert_eq!(outcome.end, TurnEnd::Failed);
    assert_eq!(agent.transcript().conversation.last().unwrap().content, "Error: overloaded");
    assert!(output.events().contains(&AgentEvent::Error("overloaded".into())));
    assert!(output.events().iter().any(|e| matches!(e, AgentEvent::Warning(w) if w.contains("overloaded"))));
    // The agent keeps working.
    assert_eq!(agent.turn("again", CancellationToken::new()).await.reply, "fine now");
}

/// A model that asks for another tool call every time it is called.
struct LoopingModel {
    calls: Mutex<usize>,
}

impl Provider for LoopingModel {
    fn name(&self) -> &str {
        "looping"
    }
    fn model(&self) -> &str {
        "looping-1"
    }
    fn fetch(&self, _request: Request) -> EventStream {
        let mut calls = self.calls.lock().unwrap();
        *calls += 1;
        let id = format!("t{calls}");
        futures::stream::iter(vec![Ok(say("again")), Ok(call(&id, "read", json!({"path": "x"})))]).boxed()
    }
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_is_stopped_at_the_step_limit() {
    let model = Arc::new(LoopingModel { calls: Mutex::new(0) });
    let output = Arc::new(RecordingOutput::default());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()).with_template("SYSTEM"));
    let mut agent = Agent::new(model.clone(), toolbox(), output.clone(), transcript);
    assert_eq!(agent.max_steps(), elelem::agent::agent::DEFAULT_MAX_STEPS);
    agent.set_max_steps(5);
    let outcome = agent.turn("loop", CancellationToken::new()).await;
    let message = "stopped after 5 model calls in one turn, the step limit; the model was still asking for \
                   tools (raise the limit with --max-steps or ELELEM_MAX_STEPS)";
    assert_eq!(outcome.end, TurnEnd::Failed);
    assert_eq!(outcome.reply, format!("Error: {message}"));
    assert_eq!(*model.calls.lock().unwrap(), 5);
    let events = output.events();
    let ran = events.iter().filter(|e| matches!(e, AgentEvent::ToolFinished { .. })).count();
    assert_eq!(ran, 4, "the tools of the last response do not run");
    assert!(events.contains(&AgentEvent::Error(message.into())));
    assert_eq!(agent.transcript().conversation.last().unwrap().content, outcome.reply);
}

/// On tokio's paused clock: the model's pace and the interrupt are virtual time, so the
/// test neither waits nor depends on how busy the machine is.
#[tokio::test(start_paused = true)]
async fn an_interrupted_turn_keeps_the_partial_reply_with_a_marker_and_drops_the_stream() {
    let model = Arc::new(ScriptedModel {
        answers: Mutex::new(vec![Ok((0..100).map(|i| say(&format!("word{i} "))).collect())]),
        requests: Mutex::new(vec![]),
        pace: Duration::from_millis(20),
    });
    let (mut agent, output) = agent_with(model, toolbox());
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(120)).await;
        canceller.cancel();
    });
    let started = std::time::Instant::now();
    let outcome = agent.turn("talk a lot", cancel).await;
    assert!(started.elapsed() < Duration::from_secs(1), "the stream was not dropped at once");
    assert_eq!(outcome.end, TurnEnd::Interrupted);
    assert_eq!(outcome.reply, "");
    let kept: Vec<Role> = agent.transcript().conversation.messages().iter().map(|m| m.role).collect();
    assert_eq!(kept, [Role::User, Role::Assistant]);
    let trace = &agent.transcript().conversation.messages()[1].content;
    assert!(trace.starts_with("word0 word1 "), "{trace}");
    assert!(trace.ends_with("\n\n[The user interrupted this turn.]"), "{trace}");
    let sayings = output.events().iter().filter(|e| matches!(e, AgentEvent::Delta(Delta::Saying(_)))).count();
    assert!(sayings > 0 && sayings < 100);
}

#[tokio::test]
async fn an_interrupt_kills_a_running_tool() {
    let mut toolbox = Toolbox::new();
    toolbox.add(elelem::tools::execute::tool());
    let model = ScriptedModel::new(vec![Ok(vec![call("t1", "execute", json!({"command": "sleep 30"}))])]);
    let (mut agent, output) = agent_with(model, toolbox);
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel();
    });
    let started = std::time::Instant::now();
    let outcome = agent.turn("sleep", cancel).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.end, TurnEnd::Interrupted);
    let result = output
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::ToolFinished { result, .. } => Some(result.to_value()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result["ok"], json!(false));
    assert!(result["error"].as_str().unwrap().contains("interrupted"));
    let trace = &agent.transcript().conversation.messages()[1].content;
    assert_eq!(
        trace,
        "[The user interrupted this turn. Tool calls that ran before the interrupt: \
         execute sleep 30 (interrupted by the user; the command was killed).]"
    );
}

// ---- Toolbox: ARCHITECTURE.md, "A tool call" ----

async fn run(toolbox: &Toolbox, name: &str, args: Value) -> Value {
    toolbox.run(name, args, ToolContext::detached()).await.to_value()
}

#[tokio::test]
async fn an_alias_resolves_to_its_tool() {
    let t = toolbox();
    assert_eq!(t.resolve("open"), "read");
    assert_eq!(run(&t, "open", json!({"path": "x"})).await, json!({"content": "text of x", "path": "x", "ok": true}));
}

#[tokio::test]
async fn an_unknown_tool_gets_a_stand_in_name_and_lists_the_real_tools() {
    let mut t = toolbox();
    t.add(
        Tool::new("write", "", json!({"type": "object"}), |_: Value, _: ToolContext| async { Ok(json!({})) }).unwrap(),
    );
    assert_eq!(t.resolve("foo"), "foo?");
    assert_eq!(
        run(&t, "foo", json!({})).await,
        json!({"error": "unknown tool: \"foo\". Available: read, write", "ok": false})
    );
}

/// A toolbox whose hooks and handler record that they ran.
fn traced() -> (Toolbox, Arc<Mutex<Vec<String>>>) {
    let trace = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut t = Toolbox::new();
    let tr = trace.clone();
    t.add(
        Tool::new(
            "read",
            "",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            move |_: Value, _: ToolContext| {
                let tr = tr.clone();
                async move {
                    tr.lock().unwrap().push("handler".into());
                    Ok(json!({"content": "x"}))
                }
            },
        )
        .unwrap(),
    );
    for (scope, label) in [(Some("read"), "tool"), (None, "global")] {
        let tr = trace.clone();
        t.before(scope, move |_| {
            let tr = tr.clone();
            async move {
                tr.lock().unwrap().push(format!("before {label}"));
                Ok(())
            }
        });
        let tr = trace.clone();
        t.after(scope, move |_, result| {
            let tr = tr.clone();
            async move {
                tr.lock().unwrap().push(format!("after {label}"));
                Ok(result)
            }
        });
    }
    (t, trace)
}

#[tokio::test]
async fn hooks_run_global_first_then_per_tool_around_the_handler() {
    let (t, trace) = traced();
    assert_eq!(run(&t, "read", json!({"path": "a"})).await, json!({"content": "x", "ok": true}));
    assert_eq!(*trace.lock().unwrap(), ["before global", "before tool", "handler", "after global", "after tool"]);
}

#[tokio::test]
async fn a_validation_failure_runs_no_hook_and_no_handler() {
    let (t, trace) = traced();
    assert_eq!(
        run(&t, "read", json!({})).await,
        json!({"error": "object at root is missing required properties: path", "ok": false})
    );
    assert!(trace.lock().unwrap().is_empty());
}

#[tokio::test]
async fn validation_messages_name_every_missing_property_and_nested_locations() {
    let schema = json!({
        "type": "object",
        "properties": {"x": {"type": "object", "required": ["y"]}, "n": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let tool = Tool::new("t", "", schema, |_: Value, _: ToolContext| async { Ok(json!({})) }).unwrap();
    assert_eq!(tool.validate(&json!({})).unwrap_err(), "object at root is missing required properties: a, b");
    assert_eq!(
        tool.validate(&json!({"a": 1, "b": 2, "x": {}})).unwrap_err(),
        "object at `/x` is missing required properties: y"
    );
    let wrong_type = tool.validate(&json!({"a": 1, "b": 2, "n": "five"})).unwrap_err();
    assert!(wrong_type.starts_with("value at `/n` is invalid:"), "{wrong_type}");
    assert!(wrong_type.contains("integer"), "{wrong_type}");
}

#[tokio::test]
async fn a_before_hook_can_refuse_the_call() {
    let (mut t, trace) = traced();
    t.before(None, |call| async move { Err(format!("Permission denied: {}", call.name())) });
    assert_eq!(run(&t, "read", json!({"path": "a"})).await, json!({"error": "Permission denied: read", "ok": false}));
    assert!(!trace.lock().unwrap().contains(&"handler".to_string()));
}

#[tokio::test]
async fn handler_errors_and_panics_become_failures_with_name_and_args() {
    let mut t = Toolbox::new();
    let schema = json!({"type": "object"});
    t.add(
        Tool::new("fails", "", schema.clone(), |_: Value, _: ToolContext| async { anyhow::bail!("disk full") })
            .unwrap(),
    );
    t.add(
        Tool::new("panics", "", schema, |_: Value, _: ToolContext| async {
            if true {
                panic!("boom");
            }
            Ok(json!({}))
        })
        .unwrap(),
    );
    assert_eq!(
        run(&t, "fails", json!({"k": 1})).await,
        json!({"error": "disk full", "name": "fails", "args": {"k": 1}, "ok": false})
    );
    assert_eq!(
        run(&t, "panics", json!({"k": 2})).await,
        json!({"error": "panicked: boom", "name": "panics", "args": {"k": 2}, "ok": false})
    );
}

#[tokio::test]
async fn a_failing_after_hook_becomes_a_failure() {
    let (mut t, _) = traced();
    t.after(None, |_, _| async { anyhow::bail!("audit log unavailable") });
    assert_eq!(
        run(&t, "read", json!({"path": "a"})).await,
        json!({"error": "audit log unavailable", "name": "read", "args": {"path": "a"}, "ok": false})
    );
}

#[tokio::test]
async fn a_result_with_an_error_key_is_a_failure_and_serializes_exactly() {
    let mut t = Toolbox::new();
    t.add(
        Tool::new("read", "", json!({"type": "object"}), |_: Value, _: ToolContext| async {
            Ok(json!({"error": "no such file", "path": "x"}))
        })
        .unwrap(),
    );
    let result = run(&t, "read", json!({})).await;
    assert_eq!(result.to_string(), r#"{"error":"no such file","path":"x","ok":false}"#);
}

#[tokio::test]
async fn the_tool_result_message_carries_the_exact_json() {
    let call = ToolCall { id: "toolu_01".into(), name: "read".into(), arguments: json!({"path": "README.md"}) };
    let message = Message::tool_result(&call, ToolResult::from_value(json!({"content": "x"})));
    assert_eq!(message.text(), r#"{"content":"x","ok":true}"#);
    assert_eq!(message.role, Role::Tool);
    assert_eq!(message.tool_call_id.as_deref(), Some("toolu_01"));
}

#[tokio::test]
async fn thinking_blocks_with_signatures_and_redacted_data_go_back_with_the_tool_calls() {
    let model = ScriptedModel::new(vec![
        Ok(vec![
            ProviderEvent::Thinking("Let me ".into()),
            ProviderEvent::Thinking("read.".into()),
            ProviderEvent::ThinkingSignature("sig-1".into()),
            ProviderEvent::RedactedThinking("opaque".into()),
            call("t1", "read", json!({"path": "a"})),
        ]),
        Ok(vec![say("done")]),
    ]);
    let (mut agent, _) = agent_with(model.clone(), toolbox());
    agent.turn("go", CancellationToken::new()).await;
    let assistant = &model.requests()[1].messages[2];
    assert_eq!(
        assistant.thinking,
        [
            ThinkingBlock { text: "Let me read.".into(), signature: Some("sig-1".into()), redacted: None },
            ThinkingBlock { redacted: Some("opaque".into()), ..Default::default() },
        ]
    );
}
