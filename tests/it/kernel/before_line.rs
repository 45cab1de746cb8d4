//! The kernel's one hook before each line (`Plugin::before_line`): run for every plugin, in
//! order, before each turn and each slash command, told which one comes (`NextLine`); a
//! panic in it is shown as an error and the line still runs.

use elelem::agent::input::DenyAll;
use elelem::agent::output::{AgentEvent, RecordingOutput};
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Flow, NextLine, Plugin, Session, Toolbox, Transcript};
use elelem::protocol::ProviderSettings;
use futures::future::BoxFuture;
use std::sync::{Arc, Mutex};

use crate::support::Lines;

/// Records each `before_line` it sees (as `name:next`) in `seen`; panics when `panics`. Its
/// `/mark` records that it ran (the second plugin's replaces the first's).
struct Watcher {
    name: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
    panics: bool,
}

impl Plugin for Watcher {
    fn name(&self) -> &str {
        self.name
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let seen = self.seen.clone();
        session.commands_mut().add("mark", "", "", move |_, _| {
            seen.lock().unwrap().push("command ran".into());
            Ok(Flow::Continue)
        });
        Ok(())
    }

    fn before_line<'a>(&'a self, _session: &'a mut Session, next: NextLine) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // It may wait: the session awaits it before the line.
            tokio::task::yield_now().await;
            self.seen.lock().unwrap().push(format!("{}:{next:?}", self.name));
            if self.panics {
                panic!("the hook broke");
            }
        })
    }
}

#[tokio::test]
async fn every_plugin_is_asked_before_each_turn_and_command_in_order_and_a_panic_is_shown() {
    let providers = elelem::providers::builtin().unwrap();
    let settings = ProviderSettings::default();
    let provider = providers.build("stub", &settings).unwrap();
    let output = Arc::new(RecordingOutput::default());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()));
    let agent = Agent::new(provider, Toolbox::new(), output.clone(), transcript);
    let input = Lines(vec!["/mark".into(), "hello".into(), "".into()]);
    let mut session = Session::new(agent, Box::new(input), providers, settings, Arc::new(DenyAll));
    let seen = Arc::new(Mutex::new(Vec::new()));
    session.add_plugin(Arc::new(Watcher { name: "first", seen: seen.clone(), panics: true })).unwrap();
    session.add_plugin(Arc::new(Watcher { name: "second", seen: seen.clone(), panics: false })).unwrap();
    session.run().await;
    let expected = ["first:Command", "second:Command", "command ran", "first:Turn", "second:Turn"];
    assert_eq!(*seen.lock().unwrap(), expected, "an empty line asks nobody");
    let errors: Vec<AgentEvent> =
        output.events().into_iter().filter(|event| matches!(event, AgentEvent::Error(_))).collect();
    assert_eq!(errors.len(), 2, "one error per panic: {errors:?}");
    assert!(output.events().iter().any(|event| matches!(event, AgentEvent::TurnFinished { .. })), "the turn ran");
}
