//! The kernel's seams for plugins that are not written in Rust: a before hook that fails
//! in its own right (not a refusal), observers of every shown event (forgotten on
//! `reload`), lines queued as if typed, and the context published before the turn ends.

use elelem::agent::input::DenyAll;
use elelem::agent::output::{AgentEvent, RecordingOutput};
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, HookStop, SetupBlock, Tool, ToolContext, Toolbox, Transcript};
use elelem::agent::{Flow, Session};
use elelem::protocol::ProviderSettings;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

#[tokio::test]
async fn a_failing_before_hook_is_a_failure_with_name_and_args_and_a_refusal_is_not() {
    let mut toolbox = Toolbox::new();
    let tool = Tool::new("t", "", json!({"type": "object"}), |_: Value, _: ToolContext| async { Ok(json!({})) });
    toolbox.add(tool.unwrap());
    toolbox.before_stopping(None, |call| async move {
        match call.args["k"].as_i64() {
            Some(1) => Err(HookStop::Fail("the hook broke".into())),
            Some(2) => Err(HookStop::Refuse("not this one".into())),
            _ => Ok(()),
        }
    });
    let run = |k: i64| toolbox.run("t", json!({"k": k}), ToolContext::detached());
    assert_eq!(run(1).await.to_value(), json!({"error": "the hook broke", "name": "t", "args": {"k": 1}, "ok": false}));
    assert_eq!(run(2).await.to_value(), json!({"error": "not this one", "ok": false}));
    assert_eq!(run(3).await.to_value(), json!({"ok": true}));
}

use crate::support::Lines;

fn session(lines: &[&str]) -> (Session, Arc<RecordingOutput>) {
    let providers = elelem::providers::builtin().unwrap();
    let settings = ProviderSettings::default();
    let provider = providers.build("stub", &settings).unwrap();
    let output = Arc::new(RecordingOutput::default());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()));
    let agent = Agent::new(provider, Toolbox::new(), output.clone(), transcript);
    let input = Lines::of(lines);
    (Session::new(agent, Box::new(input), providers, settings, Arc::new(DenyAll)), output)
}

#[tokio::test]
async fn observers_see_what_the_output_shows_until_reload_and_queued_lines_run_first() {
    let (mut session, output) = session(&["/typed"]);
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let setups = Arc::new(Mutex::new(0));
    let (seen_by_plugin, count) = (seen.clone(), setups.clone());
    let plugin = SetupBlock::plugin("watcher", move |session: &mut Session| {
        *count.lock().unwrap() += 1;
        // Observed only by the first setup: reload must forget it.
        if *count.lock().unwrap() == 1 {
            let seen = seen_by_plugin.clone();
            session.observe(Arc::new(move |event| {
                if let AgentEvent::Info(text) = event {
                    seen.lock().unwrap().push(text.clone());
                }
            }));
        }
        let c = session.commands_mut();
        c.add("typed", "", "", |s, _| {
            s.show("typed");
            Ok(Flow::Continue)
        });
        c.add("queue", "", "", |s, _| {
            s.queue_line("/typed");
            s.show("queued");
            Ok(Flow::Continue)
        });
        Ok(())
    });
    session.add_plugin(plugin).unwrap();
    session.command("/queue");
    session.run().await;
    assert_eq!(*seen.lock().unwrap(), ["queued", "typed", "typed"]);
    let shown: Vec<AgentEvent> = output.events().into_iter().filter(|e| matches!(e, AgentEvent::Info(_))).collect();
    assert_eq!(shown.len(), 3, "the front end still sees everything");
    session.reload().unwrap();
    session.show("after reload");
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn an_observer_of_some_events_sees_only_those_and_the_front_end_sees_all() {
    let (mut session, output) = session(&[]);
    let seen = Arc::new(Mutex::new(Vec::<AgentEvent>::new()));
    let seen_by_observer = seen.clone();
    let turn_started = |event: &AgentEvent| matches!(event, AgentEvent::TurnStarted { .. });
    session.observe_only(turn_started, Arc::new(move |event| seen_by_observer.lock().unwrap().push(event.clone())));
    session.turn("hi", Default::default()).await;
    assert_eq!(*seen.lock().unwrap(), [AgentEvent::TurnStarted { prompt: "hi".into() }]);
    let shown = output.events();
    assert!(shown.iter().any(|e| matches!(e, AgentEvent::Context(_))));
    assert!(shown.iter().any(|e| matches!(e, AgentEvent::TurnFinished { .. })));
}

#[tokio::test]
async fn the_context_with_the_reply_is_published_before_the_turn_ends() {
    let (mut session, output) = session(&[]);
    session.turn("hi", Default::default()).await;
    let events = output.events();
    let finished = events.iter().position(|e| matches!(e, AgentEvent::TurnFinished { .. })).unwrap();
    let Some(AgentEvent::Context(context)) = events.get(finished - 1) else { panic!("{:?}", events[finished - 1]) };
    assert_eq!(context.messages.len(), 2);
}
