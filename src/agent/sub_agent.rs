//! Sub-agents: a tool that declares `runs_agents` gets a `SubAgent` in its `ToolContext`,
//! with which it runs a child turn — the same provider (its streams read as the parent's
//! are) and step limit, the parent's toolbox (its hooks, so permissions, sandbox and hooks
//! apply) minus the tools that run agents (no recursion), a fresh transcript with the same
//! system prompt after a short preamble (`PREAMBLE`: it is a sub-agent, only its final
//! reply goes back), and the call's cancellation token (an interrupt stops the child with
//! the turn).
//!
//! `Children` is the `SubAgents` that `startup` gives the agent; the agent asks it for a
//! `Child` per call and knows no more of it (the kernel's tool context names only the
//! `SubAgent` trait).
//!
//! Only the child's final reply goes back (`SubReport`); its tool traffic stays in its own
//! transcript. What the front ends see of it is tagged with the parent call's id
//! (`AgentEvent::SubAgent`): its tool calls, usage, warnings and errors — not its text,
//! context or turn events, which belong to the parent's panes.

use super::agent::{Agent, SubAgents};
use super::output::{AgentEvent, Output};
use super::tool::{SubAgent, SubReport};
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::protocol::{Provider, Usage};
use futures::future::BoxFuture;
use futures::FutureExt;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// What a child is told first in its system prompt: that it works for another agent and
/// only its final reply goes back.
pub const PREAMBLE: &str = "You are a sub-agent: another agent handed you the task in the user's message. \
Only your final reply is returned to it; it sees none of your tool calls or their output. \
Make that final reply a complete, self-contained report: what you found or did, the files and \
details it will need, and anything you could not do.";

/// The sub-agents `startup` composes into the agent: a `Child` per call of a tool that
/// runs agents.
pub struct Children;

impl SubAgents for Children {
    /// The child a call gets: the parent's toolbox without the tools that run agents, the
    /// transcript's system prompt after `PREAMBLE` and nothing of its conversation.
    fn for_call(&self, parent: &Agent, call_id: &str) -> Arc<dyn SubAgent> {
        let mut toolbox = parent.toolbox().clone();
        let nesting: Vec<String> =
            toolbox.tools().iter().filter(|t| t.spawns_agents()).map(|t| t.name.clone()).collect();
        toolbox.remove_all(&nesting);
        Arc::new(Child {
            provider: parent.provider().clone(),
            toolbox,
            transcript: Transcript::new(parent.transcript().system_prompt.clone().with_preamble(PREAMBLE)),
            max_steps: parent.max_steps(),
            output: parent.output().clone(),
            call_id: call_id.to_string(),
        })
    }
}

/// What one call runs its child turn with.
struct Child {
    provider: Arc<dyn Provider>,
    toolbox: Toolbox,
    transcript: Transcript,
    max_steps: usize,
    output: Arc<dyn Output>,
    /// The parent call's id, which tags the child's events.
    call_id: String,
}

impl SubAgent for Child {
    fn run<'a>(&'a self, prompt: &'a str, cancel: CancellationToken) -> BoxFuture<'a, SubReport> {
        async move {
            let tagged = Arc::new(Tagged {
                parent: Some(self.output.clone()),
                call_id: self.call_id.clone(),
                usage: Mutex::default(),
            });
            let mut agent =
                Agent::new(self.provider.clone(), self.toolbox.clone(), tagged.clone(), self.transcript.clone());
            agent.set_max_steps(self.max_steps);
            let outcome = agent.turn(prompt, cancel).await;
            let usage = tagged.usage.lock().map(|u| *u).unwrap_or_default();
            SubReport { reply: outcome.reply, end: outcome.end, usage }
        }
        .boxed()
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
