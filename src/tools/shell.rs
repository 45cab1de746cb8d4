//! The user's `!command` (the runner `startup` hands the shell escape plugin): run as
//! `execute` runs a command (`run_command`: without secret variables, output kept capped,
//! stopped past the output limit or the timeout, its whole process tree killed on
//! interrupt and its background jobs at exit), with the values of secret variables masked
//! in what is kept, since that goes to the model with the next prompt.

use super::run_command::{self, Limits};
use super::secret_env::{mask, SecretPolicy};
use crate::agent::tool::ToolFuture;
use crate::agent::ToolContext;
use serde_json::Value;
use std::sync::Arc;

/// The runner of `!command` lines (`plugins/shell_escape.rs`'s `ShellRunner`).
pub fn runner() -> Arc<dyn Fn(String, ToolContext) -> ToolFuture + Send + Sync> {
    Arc::new(|command, ctx| Box::pin(async move { run(&command, &ctx).await }))
}

/// Runs `command`; the result's `content` has secret values masked.
pub async fn run(command: &str, ctx: &ToolContext) -> anyhow::Result<Value> {
    let limits = Limits::default();
    let mut finished = run_command::run(command, None, &limits, ctx, false).await?;
    finished.content = mask(finished.content, &SecretPolicy::from_env().secret_values());
    Ok(finished.to_json(&limits))
}
