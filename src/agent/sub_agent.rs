//! Sub-agents: a tool that declares `runs_agents` gets a `SubAgent` in its `ToolContext`,
//! with which it runs a child turn — the same provider, stream adapter and step limit, the
//! parent's toolbox (its hooks, so permissions, sandbox and hooks apply) minus the tools
//! that run agents (no recursion), a fresh transcript with the same system prompt after a
//! short preamble (`PREAMBLE`: it is a sub-agent, only its final reply goes back), and the
//! call's cancellation token (an interrupt stops the child with the turn).
//!
//! Only the child's final reply goes back (`SubReport`); its tool traffic stays in its own
//! transcript. What the front ends see of it is tagged with the parent call's id
//! (`AgentEvent::SubAgent`): its tool calls, usage, warnings and errors — not its text,
//! context or turn events, which belong to the parent's panes.

use super::agent::{Agent, StreamAdapter};
use super::output::{AgentEvent, Output, TurnEnd};
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::protocol::{Provider, Usage};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// What a child is told first in its system prompt: that it works for another agent and
/// only its final reply goes back.
pub const PREAMBLE: &str = "You are a sub-agent: another agent handed you the task in the user's message. \
Only your final reply is returned to it; it sees none of your tool calls or their output. \
Make that final reply a complete, self-contained report: what you found or did, the files and \
details it will need, and anything you could not do.";

/// What a tool needs to run a child turn (`ToolContext::sub_agent`).
#[derive(Clone)]
pub struct SubAgent {
    pub(super) provider: Arc<dyn Provider>,
    pub(super) toolbox: Toolbox,
    pub(super) transcript: Transcript,
    pub(super) adapter: Option<StreamAdapter>,
    pub(super) max_steps: usize,
    pub(super) output: Option<Arc<dyn Output>>,
    /// The parent call's id, which tags the child's events.
    pub(super) call_id: String,
}

/// What a child turn came to.
#[derive(Clone, Debug, PartialEq)]
pub struct SubReport {
    /// The child's final reply (empty when interrupted).
    pub reply: String,
    pub end: TurnEnd,
    /// Tokens of every model call the child made.
    pub usage: Usage,
}

impl SubAgent {
    /// The sub-agent a call of a tool that runs agents gets: `toolbox` without the tools
    /// that run agents, the transcript's system prompt after `PREAMBLE` and nothing of its
    /// conversation.
    pub(super) fn for_call(agent: &Agent, call_id: &str, max_steps: usize, adapter: Option<StreamAdapter>) -> Self {
        let mut toolbox = agent.toolbox().clone();
        let nesting: Vec<String> =
            toolbox.tools().iter().filter(|t| t.spawns_agents()).map(|t| t.name.clone()).collect();
        toolbox.remove_all(&nesting);
        SubAgent {
            provider: agent.provider().clone(),
            toolbox,
            transcript: Transcript::new(agent.transcript().system_prompt.clone().with_preamble(PREAMBLE)),
            adapter,
            max_steps,
            output: Some(agent.output().clone()),
            call_id: call_id.to_string(),
        }
    }

    /// The names of the tools the child may call.
    pub fn tool_names(&self) -> Vec<&str> {
        self.toolbox.names()
    }

    /// Runs one child turn for `prompt` until it replies, fails, reaches the step limit or
    /// `cancel` fires.
    pub async fn run(&self, prompt: &str, cancel: CancellationToken) -> SubReport {
        let tagged =
            Arc::new(Tagged { parent: self.output.clone(), call_id: self.call_id.clone(), usage: Mutex::default() });
        let mut agent =
            Agent::new(self.provider.clone(), self.toolbox.clone(), tagged.clone(), self.transcript.clone());
        agent.set_max_steps(self.max_steps);
        if let Some(adapter) = &self.adapter {
            agent.set_stream_adapter(adapter.clone());
        }
        let outcome = agent.turn(prompt, cancel).await;
        let usage = tagged.usage.lock().map(|u| *u).unwrap_or_default();
        SubReport { reply: outcome.reply, end: outcome.end, usage }
    }
}

/// The child's output: forwards what the front ends show of a sub-agent, tagged with the
/// parent call's id, and totals its usage.
struct Tagged {
    parent: Option<Arc<dyn Output>>,
    call_id: String,
    usage: Mutex<Usage>,
}

impl Output for Tagged {
    fn emit(&self, event: AgentEvent) {
        let shown = match &event {
            AgentEvent::Usage(usage) => {
                if let Ok(mut total) = self.usage.lock() {
                    total.add(usage);
                }
                true
            }
            AgentEvent::ToolStarted { .. }
            | AgentEvent::ToolFinished { .. }
            | AgentEvent::Warning(_)
            | AgentEvent::Error(_) => true,
            _ => false,
        };
        if let (true, Some(parent)) = (shown, &self.parent) {
            parent.emit(AgentEvent::SubAgent { call_id: self.call_id.clone(), event: Box::new(event) });
        }
    }
}
