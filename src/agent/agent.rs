//! The `Agent`: runs one turn. Calls the provider, runs the tools it asks for, sends the
//! results back, and repeats until the model asks for nothing (DESIGN §1).
//!
//! Only the prompt and the final reply are kept in the conversation; tool traffic lives in
//! the turn's scratch list. A provider failure ends the turn with `Error: <message>`; a
//! cancelled turn drops the stream, cancels running tools and saves no reply.

use super::output::{AgentEvent, ContextSnapshot, Delta, Output, TurnEnd};
use super::tool::ToolContext;
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::protocol::{Message, Provider, ProviderError, ProviderEvent, Request, ThinkingBlock, ToolCall, ToolResult};
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a cancelled tool gets to clean up (kill its processes) before it is dropped.
const TOOL_CANCEL_GRACE: Duration = Duration::from_secs(3);

/// What a turn returned.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnOutcome {
    /// The saved reply (empty when interrupted).
    pub reply: String,
    pub end: TurnEnd,
}

/// One model response, collected from the stream.
#[derive(Default)]
struct Response {
    text: String,
    thinking: Vec<ThinkingBlock>,
    calls: Vec<ToolCall>,
}

pub struct Agent {
    provider: Arc<dyn Provider>,
    toolbox: Toolbox,
    output: Arc<dyn Output>,
    transcript: Transcript,
}

impl Agent {
    pub fn new(provider: Arc<dyn Provider>, toolbox: Toolbox, output: Arc<dyn Output>, transcript: Transcript) -> Self {
        Agent { provider, toolbox, output, transcript }
    }

    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.provider
    }
    pub fn set_provider(&mut self, provider: Arc<dyn Provider>) {
        self.provider = provider;
    }
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }
    pub fn toolbox_mut(&mut self) -> &mut Toolbox {
        &mut self.toolbox
    }
    pub fn output(&self) -> &Arc<dyn Output> {
        &self.output
    }
    pub fn set_output(&mut self, output: Arc<dyn Output>) {
        self.output = output;
    }
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }
    pub fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    /// Exactly what the model would get if called now.
    pub fn context(&self) -> ContextSnapshot {
        ContextSnapshot {
            system_prompt: self.transcript.system_prompt.render(),
            messages: self.transcript.conversation.messages().to_vec(),
            tools: self.toolbox.specs(),
        }
    }

    /// Tells the output what the model will see next.
    pub fn publish_context(&self) {
        self.output.emit(AgentEvent::Context(self.context()));
    }

    /// Runs one turn for `prompt`.
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.output.emit(AgentEvent::TurnStarted { prompt: prompt.to_string() });
        // The conversation only rejects system messages, so this cannot fail.
        let _ = self.transcript.conversation.push(Message::user(prompt));
        self.publish_context();
        let mut scratch: Vec<Message> = Vec::new();
        let outcome = loop {
            let request = Request { messages: self.transcript.messages(&scratch), tools: self.toolbox.specs() };
            let response = tokio::select! {
                biased;
                _ = cancel.cancelled() => break self.interrupted(),
                response = self.call_provider(request) => response,
            };
            let response = match response {
                Ok(response) => response,
                Err(error) => break self.failed(&error),
            };
            if response.calls.is_empty() {
                break self.finish(response.text);
            }
            let mut assistant = Message::assistant(response.text);
            assistant.thinking = response.thinking;
            assistant.tool_calls = response.calls.clone();
            scratch.push(assistant);
            for call in response.calls {
                let result = self.run_tool(&call, &cancel).await;
                scratch.push(Message::tool_result(&call, result));
                if cancel.is_cancelled() {
                    break;
                }
            }
            if cancel.is_cancelled() {
                break self.interrupted();
            }
        };
        // The context first, so whoever sees the turn end sees the reply in it.
        self.publish_context();
        self.output.emit(AgentEvent::TurnFinished { reply: outcome.reply.clone(), end: outcome.end });
        outcome
    }

    /// Streams one model response, showing it as it arrives.
    async fn call_provider(&self, request: Request) -> Result<Response, ProviderError> {
        let mut stream = self.provider.fetch(request);
        let mut response = Response::default();
        while let Some(event) = stream.next().await {
            match event? {
                ProviderEvent::Saying(text) => {
                    response.text.push_str(&text);
                    self.output.emit(AgentEvent::Delta(Delta::Saying(text)));
                }
                ProviderEvent::Thinking(text) => {
                    match response.thinking.last_mut() {
                        Some(block) if block.signature.is_none() && block.redacted.is_none() => {
                            block.text.push_str(&text)
                        }
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
                ProviderEvent::Retrying { attempt, max, delay, reason } => {
                    self.output.emit(AgentEvent::Retrying { attempt, max, delay, reason })
                }
            }
        }
        Ok(response)
    }

    /// Runs one tool call through the toolbox, showing its start and result.
    async fn run_tool(&self, call: &ToolCall, cancel: &CancellationToken) -> ToolResult {
        let shown = ToolCall { name: self.toolbox.resolve(&call.name), ..call.clone() };
        let summary = self.toolbox.summarize(&call.name, &call.arguments);
        self.output.emit(AgentEvent::ToolStarted { call: shown.clone(), summary });
        let context = ToolContext::new(call.id.clone(), cancel.child_token(), Some(self.output.clone()));
        let run = self.toolbox.run(&call.name, call.arguments.clone(), context);
        tokio::pin!(run);
        let result = tokio::select! {
            result = &mut run => result,
            _ = cancel.cancelled() => {
                // The tool sees the same cancellation and gets a moment to clean up.
                match tokio::time::timeout(TOOL_CANCEL_GRACE, &mut run).await {
                    Ok(result) => result,
                    Err(_) => ToolResult::failure("interrupted"),
                }
            }
        };
        self.output.emit(AgentEvent::ToolFinished { call: shown, result: result.clone() });
        result
    }

    fn finish(&mut self, reply: String) -> TurnOutcome {
        let _ = self.transcript.conversation.push(Message::assistant(reply.clone()));
        TurnOutcome { reply, end: TurnEnd::Done }
    }

    fn failed(&mut self, error: &ProviderError) -> TurnOutcome {
        let message = error.to_string();
        self.output.emit(AgentEvent::Warning(format!("provider {} failed: {message}", self.provider.name())));
        self.output.emit(AgentEvent::Error(message.clone()));
        let reply = format!("Error: {message}");
        let _ = self.transcript.conversation.push(Message::assistant(reply.clone()));
        TurnOutcome { reply, end: TurnEnd::Failed }
    }

    fn interrupted(&self) -> TurnOutcome {
        TurnOutcome { reply: String::new(), end: TurnEnd::Interrupted }
    }
}
