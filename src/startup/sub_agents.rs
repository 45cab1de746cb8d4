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
//! A call may name an agent defined in a file (`Persona`, `SubAgent::run_as`): the child
//! then has that file's text in place of the prompt's guidance (the environment's facts
//! kept), only the tools it names (the same hooks and gate), and its model, built by the
//! `Models` startup gave `Children` from the parent's provider.
//!
//! Only the child's final reply goes back (`SubReport`); its tool traffic stays in its own
//! transcript. What the front ends see of it is tagged with the parent call's id
//! (`AgentEvent::SubAgent`): its tool calls, usage, warnings and errors — not its text,
//! context or turn events, which belong to the parent's panes.

use crate::agent::output::{AgentEvent, Output};
use crate::agent::system_prompt::SystemPrompt;
use crate::agent::tool::{Persona, SubAgent, SubReport};
use crate::agent::toolbox::Toolbox;
use crate::agent::transcript::Transcript;
use crate::agent::{Agent, SubAgents};
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
#[derive(Clone, Default)]
pub struct Children {
    models: Option<Models>,
}

/// Builds the parent's provider with another model (an agent file's `model`); the error
/// says why it cannot.
pub type Models = Arc<dyn Fn(&Arc<dyn Provider>, &str) -> Result<Arc<dyn Provider>, String> + Send + Sync>;

impl Children {
    /// Children whose agents may name a model of their own, built by `models`.
    pub fn with_models(models: Models) -> Self {
        Children { models: Some(models) }
    }
}

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
            system_prompt: parent.transcript().system_prompt.clone(),
            models: self.models.clone(),
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
    /// The parent's system prompt, from which a persona's is made.
    system_prompt: SystemPrompt,
    models: Option<Models>,
    max_steps: usize,
    output: Arc<dyn Output>,
    /// The parent call's id, which tags the child's events.
    call_id: String,
}

impl SubAgent for Child {
    fn run<'a>(&'a self, prompt: &'a str, cancel: CancellationToken) -> BoxFuture<'a, SubReport> {
        self.turn(self.provider.clone(), self.toolbox.clone(), self.transcript.clone(), prompt, cancel)
    }

    fn run_as<'a>(
        &'a self,
        persona: &'a Persona,
        prompt: &'a str,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, SubReport> {
        let provider = match (&persona.model, &self.models) {
            (None, _) => self.provider.clone(),
            (Some(model), Some(models)) => match models(&self.provider, model) {
                Ok(provider) => provider,
                Err(error) => {
                    return async move { failed(format!("agent {}: model {model}: {error}", persona.name)) }.boxed()
                }
            },
            (Some(model), None) => {
                return async move {
                    failed(format!("agent {}: model {model}: no other model can be built here", persona.name))
                }
                .boxed()
            }
        };
        let mut toolbox = self.toolbox.clone();
        if let Some(names) = &persona.tools {
            let named: std::collections::HashSet<String> =
                names.iter().filter_map(|n| toolbox.get(n).map(|t| t.name.clone())).collect();
            let others: Vec<String> =
                toolbox.names().into_iter().filter(|n| !named.contains(*n)).map(str::to_string).collect();
            toolbox.remove_all(&others);
        }
        let system_prompt = self.system_prompt.clone().with_guidance(&persona.prompt).with_preamble(PREAMBLE);
        self.turn(provider, toolbox, Transcript::new(system_prompt), prompt, cancel)
    }
}

/// A child turn that could not start, as the agent would have ended it.
fn failed(message: String) -> SubReport {
    SubReport {
        reply: format!("Error: {message}"),
        end: crate::agent::output::TurnEnd::Failed,
        usage: Usage::default(),
    }
}

impl Child {
    fn turn<'a>(
        &'a self,
        provider: Arc<dyn Provider>,
        toolbox: Toolbox,
        transcript: Transcript,
        prompt: &'a str,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, SubReport> {
        async move {
            let tagged = Arc::new(Tagged {
                parent: Some(self.output.clone()),
                call_id: self.call_id.clone(),
                usage: Mutex::default(),
            });
            let mut agent = Agent::new(provider, toolbox, tagged.clone(), transcript);
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
