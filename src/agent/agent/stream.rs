//! How the `Agent` reads one model response: the provider's stream taken a batch at a
//! time, the text of events already waiting merged and shown as deltas,
//! its thinking, tool calls and usage collected into a `Response`, the model the server
//! says answered passed on as `ProviderChanged`, and a response asking for more than
//! `MAX_TOOL_CALLS` refused whole.

use super::{Agent, Response, MAX_TOOL_CALLS};
use crate::agent::output::{AgentEvent, Delta};
use crate::protocol::readiness::{ready_next, Ready};
use crate::protocol::{ProviderError, ProviderEvent, Request, ThinkingBlock};
use futures::StreamExt;

/// Provider events already waiting that are taken together before their text is shown
/// (bounded, so a fast stream still shows progress and lets an interrupt in).
const EVENT_BATCH: usize = 256;

impl Agent {
    /// Streams one model response, showing it as it arrives. Every event already waiting,
    /// or a task away (`ready_next`: an HTTP body comes one chunk per hand-over), is taken
    /// in one go (up to `EVENT_BATCH`), and consecutive text of one kind is shown as one
    /// delta: a fast stream costs one output call per batch, not one per event. Nothing is
    /// held for later (a provider that batches its stream does so itself). The response is
    /// collected into `response`, whose text an interrupt keeps.
    pub(super) async fn call_provider(&self, request: Request, response: &mut Response) -> Result<(), ProviderError> {
        let mut stream = self.provider.fetch(request);
        let mut shown: Option<Delta> = None;
        while let Some(event) = stream.next().await {
            self.take_event(event, response, &mut shown)?;
            let mut ended = false;
            for _ in 1..EVENT_BATCH {
                match ready_next(&mut stream).await {
                    Ready::Item(event) => self.take_event(event, response, &mut shown)?,
                    Ready::Ended => {
                        ended = true;
                        break;
                    }
                    Ready::Pending => break,
                }
            }
            self.show(None, &mut shown);
            if ended {
                break;
            }
        }
        Ok(())
    }

    /// One event of a response: text is merged into `shown`, an error ends the response
    /// after the text shown before it.
    pub(super) fn take_event(
        &self,
        event: Result<ProviderEvent, ProviderError>,
        response: &mut Response,
        shown: &mut Option<Delta>,
    ) -> Result<(), ProviderError> {
        match event {
            Ok(ProviderEvent::Doing(_)) if response.calls.len() >= MAX_TOOL_CALLS => {
                self.show(None, shown);
                Err(ProviderError::Protocol(format!(
                    "the model asked for more than {MAX_TOOL_CALLS} tool calls in one response; \
                     none of them ran"
                )))
            }
            Ok(event) => {
                self.take(event, response, shown);
                Ok(())
            }
            Err(error) => {
                self.show(None, shown);
                Err(error)
            }
        }
    }

    /// Adds one provider event to the response; text goes to `shown` (merged), anything
    /// else is emitted after the text before it.
    pub(super) fn take(&self, event: ProviderEvent, response: &mut Response, shown: &mut Option<Delta>) {
        match event {
            ProviderEvent::Saying(text) => {
                response.text.push_str(&text);
                self.show(Some(Delta::Saying(text)), shown);
            }
            ProviderEvent::Thinking(text) => {
                match response.thinking.last_mut() {
                    Some(block) if block.signature.is_none() && block.redacted.is_none() => block.text.push_str(&text),
                    _ => response.thinking.push(ThinkingBlock { text: text.clone(), ..Default::default() }),
                }
                self.show(Some(Delta::Thinking(text)), shown);
            }
            ProviderEvent::ThinkingSignature(signature) => match response.thinking.last_mut() {
                Some(block) if block.signature.is_none() && block.redacted.is_none() => {
                    block.signature = Some(signature)
                }
                _ => response.thinking.push(ThinkingBlock { signature: Some(signature), ..Default::default() }),
            },
            ProviderEvent::RedactedThinking(data) => {
                response.thinking.push(ThinkingBlock { redacted: Some(data), ..Default::default() })
            }
            ProviderEvent::Doing(call) => response.calls.push(call),
            ProviderEvent::Usage(usage) => {
                self.show(None, shown);
                self.output.emit(AgentEvent::Usage(usage))
            }
            ProviderEvent::ServerTool { call, summary, result } => {
                self.show(None, shown);
                self.output.emit(AgentEvent::ToolStarted { call: call.clone(), summary });
                self.output.emit(AgentEvent::ToolFinished { call, result });
            }
            ProviderEvent::Retrying { attempt, max, delay, reason } => {
                self.show(None, shown);
                self.output.emit(AgentEvent::Retrying { attempt, max, delay, reason })
            }
            ProviderEvent::Model(model) => {
                // The front ends show the model that answers, and `/cost` bills it.
                self.show(None, shown);
                let provider = self.provider.name().to_string();
                self.output.emit(AgentEvent::ProviderChanged { provider, model })
            }
        }
    }

    /// Merges `delta` into the text waiting in `shown`, emitting what cannot merge; `None`
    /// emits what is waiting.
    pub(super) fn show(&self, delta: Option<Delta>, shown: &mut Option<Delta>) {
        let ready = match (shown.as_mut(), delta) {
            (Some(waiting), Some(delta)) => waiting.merge(delta).err().and_then(|next| shown.replace(next)),
            (None, Some(delta)) => shown.replace(delta),
            (_, None) => shown.take(),
        };
        if let Some(delta) = ready {
            self.output.emit(AgentEvent::Delta(delta));
        }
    }
}
