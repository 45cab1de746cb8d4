//! The `Agent`: runs one turn. Calls the provider, runs the tools it asks for, sends the
//! results back, and repeats until the model asks for nothing (ARCHITECTURE.md, "A turn").
//!
//! Only the prompt and the final reply are kept in the conversation; tool traffic lives in
//! the turn's scratch list. A provider failure ends the turn with `Error: <message>`; a
//! cancelled turn drops the stream, cancels running tools and saves a trace (the reply shown
//! so far and which tool calls ran, `interrupted`). A turn makes at most `max_steps` model
//! calls: a model that keeps asking for tools is stopped there, like a provider failure.
//! Consecutive calls that may run concurrently run together (`batch.rs`), results in call
//! order; a tool that runs agents gets a `SubAgent` in its context, made by the agent's
//! `SubAgents` (composed by `startup`: `startup/sub_agents.rs`, which the agent does not name).
//!
//! The agent reads a provider's events as they come and shows them (`stream.rs`); a front
//! end that wants them in batches at its own rate gets a provider that hands its streams
//! over so, composed outside the kernel. One call runs through the toolbox in `tools.rs`.

mod stream;
mod tools;

use super::output::{AgentEvent, ContextSnapshot, Output, TurnEnd};
use super::tool::{FileAccess, SubAgent};
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use super::window::{self, Budget, Fit};
use crate::protocol::{Image, Message, Provider, ProviderError, ReplySchema, Request, Role, ThinkingBlock, ToolCall};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Model calls one turn may make unless set otherwise.
pub const DEFAULT_MAX_STEPS: usize = 100;

/// Tool calls one model response may ask for. A response asking for more is refused whole
/// (none of its calls run) and the turn ends with an error saying so.
pub const MAX_TOOL_CALLS: usize = 256;
/// While a response's tool calls run, the context (with the turn's traffic so far) is
/// published after the last call and otherwise at most this often: each snapshot copies
/// the conversation and the turn, so one per call of a long batch of quick calls made the
/// batch quadratic.
const CONTEXT_EVERY: Duration = Duration::from_millis(100);

/// Makes the `SubAgent` a call of a tool that runs agents gets in its context, from the
/// agent running the call (its provider, toolbox, system prompt, output and step limit).
/// `startup` composes one (`startup::sub_agents::Children`); an agent without one gives such a tool
/// none.
pub trait SubAgents: Send + Sync {
    fn for_call(&self, parent: &Agent, call_id: &str) -> Arc<dyn SubAgent>;
}

/// What a turn returned.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnOutcome {
    /// The saved reply (empty when interrupted: the trace saved then is not a reply).
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
    /// The tool traffic of the last turn, which the user may still keep.
    last_turn: Vec<Message>,
    max_steps: usize,
    /// Where the file tools read and write, when a front end routes it (`FileAccess`).
    files: Option<Arc<dyn FileAccess>>,
    /// Who makes a sub-agent for a call of a tool that runs agents.
    sub_agents: Option<Arc<dyn SubAgents>>,
    /// The JSON Schema a turn's replies must fit, sent with each of its model calls
    /// (`ask --json-schema`); not with a summary's, nor given to a sub-agent.
    reply_schema: Option<Arc<ReplySchema>>,
}

impl Agent {
    pub fn new(provider: Arc<dyn Provider>, toolbox: Toolbox, output: Arc<dyn Output>, transcript: Transcript) -> Self {
        Agent {
            provider,
            toolbox,
            output,
            transcript,
            last_turn: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            files: None,
            sub_agents: None,
            reply_schema: None,
        }
    }

    /// The tool traffic of the last finished turn (assistant tool calls and results).
    pub fn last_turn(&self) -> &[Message] {
        &self.last_turn
    }

    /// Keeps a call of the last turn and its result in the conversation, before that turn's
    /// reply. `false` when there is no such call.
    pub fn keep(&mut self, call_id: &str) -> bool {
        let Some(kept) = super::kept_calls::keep(&self.last_turn, call_id) else { return false };
        let conversation = &mut self.transcript.conversation;
        let at = match conversation.last() {
            Some(last) if last.role == Role::Assistant => conversation.len() - 1,
            _ => conversation.len(),
        };
        conversation.insert_at(at, kept);
        self.last_turn.retain(|m| m.tool_call_id.as_deref() != Some(call_id));
        for message in &mut self.last_turn {
            message.tool_calls.retain(|c| c.id != call_id);
        }
        true
    }

    /// Model calls one turn may make (at least one).
    pub fn max_steps(&self) -> usize {
        self.max_steps
    }
    pub fn set_max_steps(&mut self, steps: usize) {
        self.max_steps = steps.max(1);
    }

    /// Asks the provider for replies that fit `schema` from now on (`None`: free replies).
    pub fn set_reply_schema(&mut self, schema: Option<Arc<ReplySchema>>) {
        self.reply_schema = schema;
    }

    /// Routes the file tools' reads and writes through `files` from now on.
    pub fn set_file_access(&mut self, files: Arc<dyn FileAccess>) {
        self.files = Some(files);
    }

    /// Gives the calls of tools that run agents a sub-agent made by `sub_agents` from now on.
    pub fn set_sub_agents(&mut self, sub_agents: Arc<dyn SubAgents>) {
        self.sub_agents = Some(sub_agents);
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
            window: crate::protocol::models::context_window(self.provider.model()),
            turn: Vec::new(),
        }
    }

    /// What the model would get now, with this turn's tool traffic so far.
    pub fn context_with(&self, scratch: &[Message]) -> ContextSnapshot {
        ContextSnapshot { turn: scratch.to_vec(), ..self.context() }
    }

    /// Tells the output what the model will see next.
    pub fn publish_context(&self) {
        self.output.emit(AgentEvent::Context(self.context()));
    }

    /// Runs one turn for `prompt`.
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.turn_with_images(prompt, Vec::new(), cancel).await
    }

    /// Runs one turn for `prompt` with `images` attached to it (`@shot.png`).
    pub async fn turn_with_images(
        &mut self,
        prompt: &str,
        images: Vec<Image>,
        cancel: CancellationToken,
    ) -> TurnOutcome {
        let tools = self.toolbox.specs();
        let (provider, output) = (self.provider.as_ref(), self.output.as_ref());
        if super::compaction::before_turn(&mut self.transcript, provider, &tools, output, prompt, &cancel).await {
            self.publish_context();
        }
        self.output.emit(AgentEvent::TurnStarted { prompt: prompt.to_string() });
        let mut message = Message::user(prompt);
        message.images = images;
        // The conversation only rejects system messages, so this cannot fail.
        let _ = self.transcript.conversation.push(message);
        self.publish_context();
        let mut scratch: Vec<Message> = Vec::new();
        let mut steps = 0;
        let end = loop {
            steps += 1;
            let mut request = Request {
                messages: self.transcript.messages(&scratch),
                tools: self.toolbox.specs(),
                reply_schema: self.reply_schema.clone(),
            };
            if let Err(end) = self.fit_window(&mut request, &mut scratch) {
                break end;
            }
            // Filled as the stream comes, so an interrupt keeps the reply shown so far.
            let mut response = Response::default();
            let called = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                called = self.call_provider(request, &mut response) => Some(called),
            };
            let Some(called) = called else { break self.interrupted(&response.text, &scratch) };
            if let Err(error) = called {
                break self.failed(&error);
            }
            if response.calls.is_empty() {
                break self.finish(response.text);
            }
            if steps >= self.max_steps {
                break self.stopped_at_step_limit();
            }
            let mut assistant = Message::assistant(response.text);
            assistant.thinking = response.thinking;
            assistant.tool_calls = response.calls.clone();
            scratch.push(assistant);
            let calls = response.calls;
            let mut published: Option<std::time::Instant> = None;
            for batch in super::batch::batches(&calls, &self.toolbox) {
                let last = batch.end == calls.len();
                let runs = calls[batch.clone()].iter().map(|call| self.run_tool(call, &cancel, &scratch));
                let results = futures::future::join_all(runs).await;
                for (call, (result, images)) in calls[batch].iter().zip(results) {
                    let mut message = Message::tool_result(call, result);
                    message.images = images;
                    scratch.push(message);
                }
                if last || published.is_none_or(|at| at.elapsed() >= CONTEXT_EVERY) {
                    self.output.emit(AgentEvent::Context(self.context_with(&scratch)));
                    published = Some(std::time::Instant::now());
                }
                if cancel.is_cancelled() {
                    break;
                }
            }
            if cancel.is_cancelled() {
                break self.interrupted("", &scratch);
            }
        };
        self.last_turn = scratch;
        // The context first, so whoever sees the turn end sees the reply in it.
        self.publish_context();
        // The reply lives in the conversation; the event and the outcome get copies one
        // after the other, so a long reply is held at most twice at any moment.
        self.output.emit(AgentEvent::TurnFinished { reply: self.saved_reply(end), end });
        TurnOutcome { reply: self.saved_reply(end), end }
    }

    /// The reply a turn that ended so saved: the conversation's last message (empty when
    /// interrupted, whose trace is not a reply).
    fn saved_reply(&self, end: TurnEnd) -> String {
        match (end, self.transcript.conversation.last()) {
            (TurnEnd::Interrupted, _) | (_, None) => String::new(),
            (_, Some(last)) => last.content.clone(),
        }
    }

    /// Keeps `request` inside the model's window (`window::fit`): older results of this turn
    /// cut (and said so), or the turn ended when it cannot fit.
    fn fit_window(&mut self, request: &mut Request, scratch: &mut [Message]) -> Result<(), TurnEnd> {
        let Some(budget) = Budget::for_model(self.provider.model()) else { return Ok(()) };
        match window::fit(request, scratch, budget) {
            Fit::Fits => Ok(()),
            Fit::Cut { results, bytes } => {
                self.output.emit(AgentEvent::Warning(format!(
                    "cut {results} older tool result(s) of this turn ({} KB) to stay within {}'s ~{}-token \
                     context window",
                    bytes.div_ceil(1024),
                    self.provider.model(),
                    budget.window
                )));
                request.messages = self.transcript.messages(scratch);
                self.output.emit(AgentEvent::Context(self.context_with(scratch)));
                Ok(())
            }
            Fit::TooBig { tokens, window } => Err(self.end_with_error(format!(
                "not sent: this request would be ~{tokens} tokens, more than {}'s ~{window}-token context \
                 window even with this turn's older tool results cut; /compact or /context delete make room",
                self.provider.model()
            ))),
        }
    }

    /// Asks the model, without tools, for a summary of the conversation. `Err` says why
    /// there is none (a provider error, an interrupt).
    pub async fn summarize(&self, instructions: &str, cancel: CancellationToken) -> Result<String, String> {
        let mut ask = String::from(
            "Summarise our conversation so far for your own later use: the goal, what was decided, \
             what was done (files changed, commands run and their outcome), and what is left. Be \
             complete but brief; this summary will replace the conversation.",
        );
        if !instructions.trim().is_empty() {
            ask.push_str(&format!("\n\nAlso: {}", instructions.trim()));
        }
        let mut messages = self.transcript.messages(&[]);
        messages.push(Message::user(ask));
        super::compaction::collect_text(self.provider.fetch(Request { messages, ..Request::default() }), &cancel).await
    }

    /// Saves the reply (moved, not copied: it can be long).
    fn finish(&mut self, reply: String) -> TurnEnd {
        let _ = self.transcript.conversation.push(Message::assistant(reply));
        TurnEnd::Done
    }

    fn failed(&mut self, error: &ProviderError) -> TurnEnd {
        let message = error.to_string();
        self.output.emit(AgentEvent::Warning(format!("provider {} failed: {message}", self.provider.name())));
        self.end_with_error(message)
    }

    /// The model asked for more tools after `max_steps` calls: the turn ends like a
    /// provider failure, and the tools of that last response do not run.
    fn stopped_at_step_limit(&mut self) -> TurnEnd {
        let message = format!(
            "stopped after {} model calls in one turn, the step limit; the model was still asking \
             for tools (raise the limit with --max-steps or ELELEM_MAX_STEPS)",
            self.max_steps
        );
        self.end_with_error(message)
    }

    /// Shows `message` as an error and saves `Error: <message>` as the reply.
    fn end_with_error(&mut self, message: String) -> TurnEnd {
        let reply = format!("Error: {message}");
        self.output.emit(AgentEvent::Error(message));
        let _ = self.transcript.conversation.push(Message::assistant(reply));
        TurnEnd::Failed
    }

    /// Keeps a trace of an interrupted turn: the reply shown so far (or of the last step),
    /// a marker that the user interrupted, and which tool calls ran, so the model knows, say,
    /// that a file was written before the interrupt.
    fn interrupted(&mut self, shown: &str, scratch: &[Message]) -> TurnEnd {
        let mut trace = shown.trim_end().to_string();
        if trace.is_empty() {
            trace = scratch
                .iter()
                .rev()
                .find(|m| m.role == Role::Assistant)
                .map(|m| m.content.trim_end().to_string())
                .unwrap_or_default();
        }
        let ran: Vec<String> = scratch
            .iter()
            .filter_map(|m| m.result.as_ref().map(|r| (m, r)))
            .map(|(m, result)| {
                let name = m.name.as_deref().unwrap_or("?");
                let how =
                    if result.is_ok() { "ok".to_string() } else { result.error().unwrap_or("failed").to_string() };
                let args = scratch
                    .iter()
                    .flat_map(|a| a.tool_calls.iter())
                    .find(|c| Some(&c.id) == m.tool_call_id.as_ref())
                    .map(|c| self.toolbox.summarize(&c.name, &c.arguments))
                    .unwrap_or_default();
                format!("{name} {args} ({how})").replace("  ", " ")
            })
            .collect();
        let mut marker = String::from("[The user interrupted this turn.");
        if !ran.is_empty() {
            marker.push_str(&format!(" Tool calls that ran before the interrupt: {}.", ran.join("; ")));
        }
        marker.push(']');
        let text = if trace.is_empty() { marker } else { format!("{trace}\n\n{marker}") };
        let _ = self.transcript.conversation.push(Message::assistant(text));
        TurnEnd::Interrupted
    }
}
