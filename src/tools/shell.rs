//! The user's `!command` (the session's `ShellRunner`, set by `BuiltinTools`): run as
//! `execute` runs a command (`run_command`: without secret variables, output kept capped,
//! stopped past the output limit or the timeout, its whole process tree killed on
//! interrupt and its background jobs at exit), with the values of secret variables masked
//! in what is kept, since that goes to the model with the next prompt.

use super::run_command::{self, Limits};
use super::secret_env::{mask, SecretPolicy};
use crate::agent::shell_escape::ShellRunner;
use crate::agent::ToolContext;
use serde_json::Value;
use std::sync::Arc;

/// The runner for `Session::set_shell_runner`.
pub fn runner() -> ShellRunner {
    Arc::new(|command, ctx| Box::pin(async move { run(&command, &ctx).await }))
}

/// Runs `command`; the result's `content` has secret values masked.
pub async fn run(command: &str, ctx: &ToolContext) -> anyhow::Result<Value> {
    let limits = Limits::default();
    let mut finished = run_command::run(command, None, &limits, ctx, false).await?;
    finished.content = mask(finished.content, &SecretPolicy::from_env().secret_values());
    Ok(finished.to_json(&limits))
}
