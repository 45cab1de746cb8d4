//! The kernel: the agent loop and its objects (DESIGN §2). No terminal code lives here;
//! front ends talk to it through `Output`, `Input` and `Approver`.

#[allow(clippy::module_inception)]
pub mod agent;
pub mod commands;
pub mod conversation;
pub mod input;
pub mod output;
pub mod session;
pub mod system_prompt;
pub mod toolbox;
pub mod transcript;

pub use agent::{Agent, TurnOutcome};
pub use commands::{Commands, Flow};
pub use conversation::{Conversation, Message, Role, ToolCall};
pub use input::{Approval, ApprovalRequest, Approver, Input};
pub use output::{AgentEvent, ContextSnapshot, Output, TurnEnd, Usage};
pub use session::{Interrupter, Session};
pub use toolbox::{Tool, ToolContext, ToolSpec, Toolbox};
pub use transcript::Transcript;
