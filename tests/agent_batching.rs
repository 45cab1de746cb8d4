//! The agent takes every provider event that is already waiting in one go and shows
//! consecutive text of one kind as one delta: a fast stream costs one output call per
//! batch, not one per event, and nothing changes order.

mod support;

use elelem::agent::output::{AgentEvent, Delta, TurnEnd};
use elelem::protocol::{EventStream, Provider, ProviderError, ProviderEvent, Request, Usage};
use futures::StreamExt;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// A model whose whole answer is ready at once.
struct ReadyModel {
    answer: Mutex<Vec<Result<ProviderEvent, ProviderError>>>,
}

impl Provider for ReadyModel {
    fn name(&self) -> &str {
        "ready"
    }
    fn model(&self) -> &str {
        "ready-1"
    }
    fn fetch(&self, _request: Request) -> EventStream {
        futures::stream::iter(std::mem::take(&mut *self.answer.lock().unwrap())).boxed()
    }
}

/// What the output showed, with consecutive deltas of one kind joined, and how many
/// delta events it took.
fn shown(events: &[AgentEvent]) -> (Vec<String>, usize) {
    let mut lines: Vec<String> = Vec::new();
    let mut deltas = 0;
    for event in events {
        let (kind, text) = match event {
            AgentEvent::Delta(Delta::Saying(t)) => ("saying", t.clone()),
            AgentEvent::Delta(Delta::Thinking(t)) => ("thinking", t.clone()),
            AgentEvent::Usage(u) => ("usage", u.output_tokens.to_string()),
            AgentEvent::Error(e) => ("error", e.clone()),
            _ => continue,
        };
        deltas += usize::from(matches!(event, AgentEvent::Delta(_)));
        match lines.last_mut() {
            Some(last) if kind != "usage" && kind != "error" && last.starts_with(&format!("{kind}: ")) => {
                last.push_str(&text)
            }
            _ => lines.push(format!("{kind}: {text}")),
        }
    }
    (lines, deltas)
}

#[tokio::test]
async fn waiting_text_is_shown_merged_and_in_order() {
    let mut answer: Vec<_> = (0..1000).map(|_| Ok(ProviderEvent::Saying("ab".into()))).collect();
    answer.extend((0..3).map(|_| Ok(ProviderEvent::Thinking("t".into()))));
    answer.push(Ok(ProviderEvent::Saying("z".into())));
    answer.push(Ok(ProviderEvent::Usage(Usage { input_tokens: 1, output_tokens: 7 })));
    answer.push(Ok(ProviderEvent::Saying("end".into())));
    let (mut agent, output) = support::agent(Arc::new(ReadyModel { answer: Mutex::new(answer) }));
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!(outcome.end, TurnEnd::Done);
    assert_eq!(outcome.reply, format!("{}zend", "ab".repeat(1000)));
    let (lines, deltas) = shown(&output.events());
    let expected = [format!("saying: {}", "ab".repeat(1000)), "thinking: ttt".into(), "saying: z".into()];
    assert_eq!(lines[..3], expected);
    assert_eq!(lines[3..], ["usage: 7", "saying: end"]);
    assert!(deltas <= 8, "{deltas} delta events for 1005 provider events");
}

#[tokio::test]
async fn text_before_an_error_is_shown_before_it() {
    let answer = vec![
        Ok(ProviderEvent::Saying("a".into())),
        Ok(ProviderEvent::Saying("b".into())),
        Err(ProviderError::Network("cut".into())),
    ];
    let (mut agent, output) = support::agent(Arc::new(ReadyModel { answer: Mutex::new(answer) }));
    let outcome = agent.turn("go", CancellationToken::new()).await;
    assert_eq!((outcome.end, outcome.reply.as_str()), (TurnEnd::Failed, "Error: cut"));
    assert_eq!(shown(&output.events()), (vec!["saying: ab".to_string(), "error: cut".to_string()], 1));
}
