//! How the `Agent` reads one model response: each provider event shown as it comes (text
//! as a delta), its thinking, tool calls and usage collected into a `Response`, the model
//! the server says answered passed on as `ProviderChanged`, and a response asking for more
//! than `MAX_TOOL_CALLS` refused whole. Nothing here merges or holds text: a front end that
//! wants it in fewer pieces wraps its provider (composed by `startup`).

use super::{Agent, Response, MAX_TOOL_CALLS};
use crate::agent::output::{AgentEvent, Delta};
use crate::protocol::{ProviderError, ProviderEvent, Request, ThinkingBlock};
use futures::StreamExt;

impl Agent {
    /// Streams one model response, showing each event as it arrives. The response is
    /// collected into `response`, whose text an interrupt keeps.
    pub(super) async fn call_provider(&self, request: Request, response: &mut Response) -> Result<(), ProviderError> {
        let mut stream = self.provider.fetch(request);
        while let Some(event) = stream.next().await {
            self.take_event(event, response)?;
        }
        Ok(())
    }

    /// One event of a response: an error ends the response.
    pub(super) fn take_event(
        &self,
        event: Result<ProviderEvent, ProviderError>,
        response: &mut Response,
    ) -> Result<(), ProviderError> {
        let event = event?;
        if matches!(event, ProviderEvent::Doing(_)) && response.calls.len() >= MAX_TOOL_CALLS {
            return Err(ProviderError::Protocol(format!(
                "the model asked for more than {MAX_TOOL_CALLS} tool calls in one response; none of them ran"
            )));
        }
        self.take(event, response);
        Ok(())
    }

    /// Adds one provider event to the response and shows it.
    pub(super) fn take(&self, event: ProviderEvent, response: &mut Response) {
        match event {
            ProviderEvent::Saying(text) => {
                response.text.push_str(&text);
                self.output.emit(AgentEvent::Delta(Delta::Saying(text)));
            }
            ProviderEvent::Thinking(text) => {
                match response.thinking.last_mut() {
                    Some(block) if block.signature.is_none() && block.redacted.is_none() => block.text.push_str(&text),
                    _ => response.thinking.push(ThinkingBlock { text: text.clone(), ..Default::default() }),
                }
                self.output.emit(AgentEvent::Delta(Delta::Thinking(text)));
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
            ProviderEvent::Usage(usage) => self.output.emit(AgentEvent::Usage(usage)),
            ProviderEvent::ServerTool { call, summary, result } => {
                self.output.emit(AgentEvent::ToolStarted { call: call.clone(), summary });
                self.output.emit(AgentEvent::ToolFinished { call, result });
            }
            ProviderEvent::Retrying { attempt, max, delay, reason } => {
                self.output.emit(AgentEvent::Retrying { attempt, max, delay, reason })
            }
            ProviderEvent::Model(model) => {
                // The front ends show the model that answers, and `/cost` bills it.
                let provider = self.provider.name().to_string();
                self.output.emit(AgentEvent::ProviderChanged { provider, model })
            }
        }
    }
}
