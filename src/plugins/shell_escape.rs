//! `!command`: the user runs a shell command directly — no model call, no approval (the
//! user typed it). Its output streams live like a tool's (a `!` row in the tool log), and
//! the command with its output is handed to the next prompt (a session note), so the model
//! sees what the user saw. A built-in plugin: it takes the `!` lines before the session
//! dispatches them (`Plugin::take_line`). What starts the command is handed in by
//! `startup`: the built-in tools' runner (`tools/shell.rs`: the environment, limits, output
//! kept and what is masked of a tool's command).

use crate::agent::output::{AgentEvent, Output};
use crate::agent::tool::{ToolContext, ToolFuture};
use crate::agent::{Plugin, Session};
use crate::protocol::{ToolCall, ToolResult};
use futures::future::BoxFuture;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Runs a `!command` line: streams its output through the context's `progress` and
/// returns `{"exit_status": N, "content": …}`, or `{"error": …, "content": …}` when it was
/// stopped. `content` is what the next prompt carries.
pub type ShellRunner = Arc<dyn Fn(String, ToolContext) -> ToolFuture + Send + Sync>;

/// The plugin: takes each line that starts with `!` (a `!` alone, or followed by blanks
/// only, runs nothing).
pub struct ShellEscape {
    runner: ShellRunner,
    /// `!command` runs so far, to number them.
    runs: AtomicUsize,
}

impl ShellEscape {
    pub fn new(runner: ShellRunner) -> Self {
        ShellEscape { runner, runs: AtomicUsize::new(0) }
    }
}

impl Plugin for ShellEscape {
    fn name(&self) -> &str {
        "shell escape"
    }

    fn setup(&self, _session: &mut Session) -> anyhow::Result<()> {
        Ok(())
    }

    fn take_line<'a>(
        &'a self,
        session: &'a mut Session,
        line: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let Some(command) = line.strip_prefix('!') else { return false };
            let command = command.trim();
            if command.is_empty() {
                return true;
            }
            let id = format!("shell_{}", self.runs.fetch_add(1, Ordering::Relaxed) + 1);
            let note = run(command, id, &session.output(), cancel, &self.runner).await;
            session.add_note(note);
            true
        })
    }
}

/// Runs `command` through `runner`, showing it like a tool call. Returns the note for the
/// next prompt.
async fn run(
    command: &str,
    id: String,
    output: &Arc<dyn Output>,
    cancel: &CancellationToken,
    runner: &ShellRunner,
) -> String {
    let call = ToolCall { id: id.clone(), name: "!".into(), arguments: json!({ "command": command }) };
    output.emit(AgentEvent::ToolStarted { call: call.clone(), summary: command.to_string() });
    let context = ToolContext::new(id, cancel.clone(), Some(output.clone()));
    let result = match crate::panics::catch(runner(command.to_string(), context)).await {
        Ok(Ok(value)) => ToolResult::from_value(value),
        Ok(Err(error)) => ToolResult::failure(format!("cannot run the command: {error:#}")),
        Err(panic) => ToolResult::failure(format!("cannot run the command: {panic}")),
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
