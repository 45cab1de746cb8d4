//! How the `Agent` runs one tool call: through the toolbox's prepare hooks, its row opened
//! with the arguments that run, the handler (a sub-agent in its context, made by the
//! agent's `SubAgents`, when the tool runs agents), cancellation with a grace period, and
//! the result shown and shortened when it repeats one the model still sees (`repeated_results`).

use super::Agent;
use crate::agent::output::AgentEvent;
use crate::agent::repeated_results;
use crate::agent::tool::ToolContext;
use crate::protocol::{Image, Message, ToolCall, ToolResult};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a cancelled tool gets to clean up (kill its processes) before it is dropped.
const TOOL_CANCEL_GRACE: Duration = Duration::from_secs(3);

impl Agent {
    /// Runs one tool call through the toolbox, showing its start and result (a repeat of a
    /// result the model still sees shortened to a note, `repeated_results`).
    /// The result comes with the images the tool attached (`ToolContext::attach_image`).
    pub(super) async fn run_tool(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
        scratch: &[Message],
    ) -> (ToolResult, Vec<Image>) {
        let mut shown = ToolCall { name: self.toolbox.resolve(&call.name), ..call.clone() };
        let mut context = ToolContext::new(call.id.clone(), cancel.child_token(), Some(self.output.clone()))
            .with_images_accepted(self.provider.accepts_images())
            .with_files(self.files.clone());
        let runs_agents = self.toolbox.get(&call.name).is_some_and(|tool| tool.spawns_agents());
        if let Some(sub_agents) = self.sub_agents.as_ref().filter(|_| runs_agents) {
            context = context.with_sub_agent(sub_agents.for_call(self, &call.id));
        }
        let images = context.clone();
        let started = std::sync::atomic::AtomicBool::new(false);
        let result = {
            // The row shows the arguments that run: a prepare hook may have replaced the model's.
            let shown = &mut shown;
            let run = async {
                let prepared = self.toolbox.prepare_call(&call.name, call.arguments.clone(), context).await;
                if let Ok(ready) = &prepared {
                    shown.arguments = ready.args().clone();
                }
                let summary = self.toolbox.summarize(&call.name, &shown.arguments);
                self.output.emit(AgentEvent::ToolStarted { call: shown.clone(), summary });
                started.store(true, std::sync::atomic::Ordering::Relaxed);
                match prepared {
                    Ok(ready) => self.toolbox.run_prepared(ready).await,
                    Err(result) => result,
                }
            };
            tokio::pin!(run);
            tokio::select! {
                result = &mut run => result,
                _ = cancel.cancelled() => {
                    // The tool sees the same cancellation and gets a moment to clean up.
                    match tokio::time::timeout(TOOL_CANCEL_GRACE, &mut run).await {
                        Ok(result) => result,
                        Err(_) => ToolResult::failure("interrupted"),
                    }
                }
            }
        };
        if !started.load(std::sync::atomic::Ordering::Relaxed) {
            // Interrupted while its prepare hooks ran: the row still opens and closes.
            let summary = self.toolbox.summarize(&call.name, &shown.arguments);
            self.output.emit(AgentEvent::ToolStarted { call: shown.clone(), summary });
        }
        let read_only = self.toolbox.get(&call.name).is_some_and(|tool| tool.read_only);
        let conversation = self.transcript.conversation.messages();
        let result = repeated_results::shorten(&shown.name, read_only, result, conversation, scratch, |n| {
            self.toolbox.resolve(n)
        });
        self.output.emit(AgentEvent::ToolFinished { call: shown, result: result.clone() });
        // A result shortened to a note (`same_as`) leaves its image with the earlier one.
        let images = match result.get(repeated_results::SAME_AS) {
            Some(_) => Vec::new(),
            None => images.take_images(),
        };
        (result, images)
    }
}
