//! The kernel's hooks on what the user typed (issue 39: `!command` and `@` mentions are
//! plugins now, reached only through these): `Plugin::take_line`, asked for each line
//! before it is dispatched, until one plugin takes it (a panic is shown and the next is
//! asked), and `Plugin::attach`, run on each prompt before it is sent, which may add text
//! and images or refuse to send it.

use elelem::agent::input::DenyAll;
use elelem::agent::output::{AgentEvent, RecordingOutput, TurnEnd};
use elelem::agent::system_prompt::SystemPrompt;
use elelem::agent::{Agent, Flow, NextLine, Plugin, Prompt, Session, Toolbox, Transcript};
use elelem::protocol::image::Image;
use elelem::protocol::{Message, ProviderSettings, Role};
use futures::future::BoxFuture;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

use crate::support::Lines;

/// Takes the lines that start with `prefix` (noting each in `seen` and for the next
/// prompt); panics on every line when `panics`. Records its `before_line` calls too.
struct Taker {
    prefix: &'static str,
    seen: Arc<Mutex<Vec<String>>>,
    panics: bool,
}

impl Plugin for Taker {
    fn name(&self) -> &str {
        self.prefix
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
        Box::pin(async move { self.seen.lock().unwrap().push(format!("before {next:?}")) })
    }

    fn take_line<'a>(
        &'a self,
        session: &'a mut Session,
        line: &'a str,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            if self.panics {
                panic!("the taker broke");
            }
            let Some(rest) = line.strip_prefix(self.prefix) else { return false };
            self.seen.lock().unwrap().push(format!("took {rest}"));
            session.show(format!("noted {rest}"));
            true
        })
    }
}

fn session(lines: &[&str]) -> (Session, Arc<RecordingOutput>) {
    let providers = elelem::providers::builtin().unwrap();
    let settings = ProviderSettings::default();
    let provider = providers.build("stub", &settings).unwrap();
    let output = Arc::new(RecordingOutput::default());
    let transcript = Transcript::new(SystemPrompt::new(std::env::temp_dir()).with_template("SYSTEM"));
    let agent = Agent::new(provider, Toolbox::new(), output.clone(), transcript);
    let input = Lines::of(lines);
    (Session::new(agent, Box::new(input), providers, settings, Arc::new(DenyAll)), output)
}

fn turns(output: &RecordingOutput) -> usize {
    output.events().iter().filter(|e| matches!(e, AgentEvent::TurnFinished { .. })).count()
}

/// The user messages of the last context the session published.
fn prompts(output: &RecordingOutput) -> Vec<Message> {
    let last = output.events().into_iter().rev().find_map(|e| match e {
        AgentEvent::Context(snapshot) => Some(snapshot.messages),
        _ => None,
    });
    last.unwrap_or_default().into_iter().filter(|m| m.role == Role::User).collect()
}

#[tokio::test]
async fn a_taken_line_is_neither_a_command_nor_a_turn_and_a_panic_asks_the_next_plugin() {
    let (mut session, output) = session(&["#one", "/mark", "hello", "#two"]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    session.add_plugin(Arc::new(Taker { prefix: "?", seen: Arc::new(Mutex::new(Vec::new())), panics: true })).unwrap();
    session.add_plugin(Arc::new(Taker { prefix: "#", seen: seen.clone(), panics: false })).unwrap();
    session.run().await;
    let expected = ["took one", "before Command", "command ran", "before Turn", "took two"];
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!(turns(&output), 1, "only `hello` was a turn");
    let events = output.events();
    assert!(
        events.contains(&AgentEvent::Info("noted one".into()))
            && events.contains(&AgentEvent::Info("noted two".into()))
    );
    let errors = events.iter().filter(|e| matches!(e, AgentEvent::Error(m) if m.contains("the taker broke"))).count();
    assert_eq!(errors, 4, "one error per line the broken plugin was asked about: {events:?}");
}

/// Adds `text` after each prompt and, when `image`, a picture; refuses prompts holding
/// `refuse`.
struct Attacher {
    text: &'static str,
    image: bool,
}

impl Plugin for Attacher {
    fn name(&self) -> &str {
        "attacher"
    }

    fn setup(&self, _session: &mut Session) -> anyhow::Result<()> {
        Ok(())
    }

    fn attach<'a>(
        &'a self,
        _session: &'a mut Session,
        prompt: &'a mut Prompt,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            if prompt.text.contains("refuse") {
                return Err("the attacher refused".into());
            }
            prompt.text.push_str(self.text);
            if self.image {
                let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01";
                prompt.images.push(Image::from_bytes("shot.png", None, png).unwrap());
            }
            Ok(())
        })
    }
}

#[tokio::test]
async fn attach_hooks_add_to_the_prompt_in_order_or_refuse_to_send_it() {
    let (mut session, output) = session(&[]);
    session.add_plugin(Arc::new(Attacher { text: " [first]", image: true })).unwrap();
    session.add_plugin(Arc::new(Attacher { text: " [second]", image: false })).unwrap();
    let outcome = session.turn("look", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Done);
    let sent = prompts(&output);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].content, "look [first] [second]");
    assert_eq!(sent[0].images.len(), 1, "the image went with the prompt");

    let outcome = session.turn("please refuse this", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Failed);
    assert!(output.events().contains(&AgentEvent::Error("the attacher refused. Nothing was sent.".into())));
    assert_eq!(turns(&output), 1, "the refused prompt reached no model");
}
