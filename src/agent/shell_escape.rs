//! `!command`: the user runs a shell command directly — no model call, no approval (the
//! user typed it). Its output streams live like a tool's (a `!` row in the tool log), and
//! the command with its output is handed to the next prompt, so the model sees what the
//! user saw. Running the command is not the kernel's business: a plugin (the built-in
//! tools) sets the session's `ShellRunner`, which starts it the way tools start commands
//! (environment, limits, output kept, what is masked).

use super::output::{AgentEvent, Output};
use super::tool::{ToolContext, ToolFuture};
use crate::protocol::{ToolCall, ToolResult};
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Runs a `!command` line: streams its output through the context's `progress` and
/// returns `{"exit_status": N, "content": …}`, or `{"error": …, "content": …}` when it was
/// stopped. `content` is what the next prompt carries.
pub type ShellRunner = Arc<dyn Fn(String, ToolContext) -> ToolFuture + Send + Sync>;

/// Runs `command` through `runner`, showing it like a tool call. Returns the note for the
/// next prompt.
pub async fn run(
    command: &str,
    id: String,
    output: &Arc<dyn Output>,
    cancel: &CancellationToken,
    runner: Option<ShellRunner>,
) -> String {
    let call = ToolCall { id: id.clone(), name: "!".into(), arguments: json!({ "command": command }) };
    output.emit(AgentEvent::ToolStarted { call: call.clone(), summary: command.to_string() });
    let context = ToolContext::new(id, cancel.clone(), Some(output.clone()));
    let result = match runner {
        None => ToolResult::failure("cannot run the command: no shell is set up"),
        Some(runner) => match crate::panics::catch(runner(command.to_string(), context)).await {
            Ok(Ok(value)) => ToolResult::from_value(value),
            Ok(Err(error)) => ToolResult::failure(format!("cannot run the command: {error:#}")),
            Err(panic) => ToolResult::failure(format!("cannot run the command: {panic}")),
        },
    };
    let text = result.get("content").and_then(|v| v.as_str()).unwrap_or_default().to_string();
    let status = match (result.get("exit_status").and_then(|v| v.as_i64()), result.error()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(error)) => error.to_string(),
        _ => String::new(),
    };
    output.emit(AgentEvent::ToolFinished { call, result });
    format!("I ran `{command}` in the shell ({status}). Its output:\n```\n{}\n```", text.trim_end())
}
