//! The kernel: the agent loop and its objects (ARCHITECTURE.md, "The objects"). No terminal code lives here;
//! front ends talk to it through `Output`, `Input` and `Approver`. It imports only the
//! shared vocabulary in `protocol`, never a plugin, tool, provider or front end.

#[allow(clippy::module_inception)]
pub mod agent;
pub mod batch;
pub mod commands;
pub mod compaction;
pub mod conversation;
pub mod input;
pub mod interrupter;
pub mod kept_calls;
pub mod observers;
pub mod output;
pub mod plugin;
pub mod repeated_results;
pub mod session;
pub mod system_prompt;
pub mod tool;
pub mod toolbox;
pub mod transcript;
pub mod window;

pub use agent::{Agent, SubAgents, TurnOutcome};
pub use commands::Flow;
pub use conversation::Conversation;
pub use input::{Approval, ApprovalRequest, Approver, Input, TextEditor};
pub use interrupter::Interrupter;
pub use observers::Observer;
pub use output::{AgentEvent, ContextSnapshot, Delta, Output, TurnEnd};
pub use plugin::{Plugin, SetupBlock};
pub use session::{Commands, NextLine, Prompt, PromptCheck, Session};
pub use tool::{
    FileAccess, Persona, PreApproval, Preview, PreviewKind, SubAgent, SubReport, Tool, ToolContext, ToolboxError,
};
pub use toolbox::{HookCall, HookStop, Prepared, ReadyCall, Toolbox};
pub use transcript::Transcript;
