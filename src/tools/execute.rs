//! The `execute` tool: its schema and self-description; the command runs through
//! `run_command` (its own process group, no secret variables, output streamed live and
//! capped, the whole process tree killed on timeout, on cancel, past the output limit or
//! if the call is dropped). With `background` (or `pty`) it starts a job of the session's
//! (`jobs`) and returns at once with its number and first output.

use super::jobs::{self, Jobs};
use super::run_command::{self, Limits, DEFAULT_TIMEOUT_SECS};
use super::sandbox;
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// `execute` with a job table of its own (see `tool_with`).
pub fn tool() -> Tool {
    tool_with(Jobs::new())
}

/// `execute`, its background jobs kept in `jobs` (the session's).
pub fn tool_with(jobs: Arc<Jobs>) -> Tool {
    Tool::builtin(
        "execute",
        "Run a shell command with bash and return its combined stdout and stderr and its exit \
         status. A non-zero exit status is a normal result. Use it to build, test, run git, and \
         inspect the system. Long output is cut in the middle.",
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "the bash command line to run"},
                "timeout_secs": {"type": "integer", "minimum": 1, "description": "kill the command after this many seconds (default 120)"},
                "cwd": {"type": "string", "description": "directory to run in (default: the working directory)"},
                "sandbox": {"type": "boolean", "description": "false: run this one command outside the sandbox, with the user's rights (the user is always asked; only when the sandbox refused something the command needs)"},
                "background": {"type": "boolean", "description": "true: run as a job, return at once with its id (servers, watchers)"},
                "pty": {"type": "boolean", "description": "true: a job in a terminal of its own (REPLs, prompts)"}
            },
            "required": ["command"],
            "additionalProperties": false
        }),
        move |args, ctx| {
            let jobs = Arc::clone(&jobs);
            async move { execute(args, ctx, &jobs).await }
        },
    )
    .with_aliases(&["bash", "sh", "exec", "shell"]).runs_commands("command").with_preview(|args, _| async move {
            let command = args["command"].as_str().unwrap_or_default().to_string();
            let text = match args["cwd"].as_str() {
                Some(cwd) => format!("{command}\n(in {cwd})"),
                None => command,
            };
            Ok(Preview { kind: PreviewKind::Command, text })
        })
}

async fn execute(args: Value, ctx: ToolContext, jobs: &Jobs) -> anyhow::Result<Value> {
    let command = super::str_arg(&args, "command")?;
    let contained = sandbox::active() && args[sandbox::OPT_OUT_ARGUMENT].as_bool() != Some(false);
    let terminal = args["pty"].as_bool() == Some(true);
    if terminal || args["background"].as_bool() == Some(true) {
        let job = match jobs.start(command, args["cwd"].as_str(), contained, terminal) {
            Ok(job) => job,
            Err(error) => return Ok(json!({"error": format!("{error:#}")})),
        };
        let first = job.read(jobs::FIRST_WAIT, &ctx.cancel).await;
        return Ok(jobs::tools::taken_json(job.id, first));
    }
    let limits = Limits {
        timeout: Duration::from_secs(args["timeout_secs"].as_u64().unwrap_or(DEFAULT_TIMEOUT_SECS)),
        ..Limits::default()
    };
    // `"sandbox": false`: the user was asked (the permissions gate) to run it uncontained.
    // Without an active sandbox nothing is contained (and background jobs outlive the command).
    let finished = run_command::run(command, args["cwd"].as_str(), &limits, &ctx, contained).await?;
    let mut json = finished.to_json(&limits);
    let status = match finished.ending {
        run_command::Ending::Exited(status) => Some(status),
        _ => None,
    };
    // What the clean-up after a contained command removed, or could not, the user hears too.
    if let (Some(note), Some(output)) = (&finished.sandbox, ctx.output()) {
        output.emit(crate::agent::AgentEvent::Warning(note.clone()));
    }
    // A failure the sandbox's rules explain: the note says the rule, the field names it for
    // the front ends, which tag the call's row.
    let refused = match contained {
        true => {
            let project = std::env::current_dir().unwrap_or_default();
            sandbox::refused(status, &finished.content, &project, args["cwd"].as_str())
        }
        false => None,
    };
    let notes: Vec<String> =
        finished.sandbox.iter().cloned().chain(refused.iter().map(|(_, note)| note.clone())).collect();
    if !notes.is_empty() {
        json["sandbox"] = Value::String(notes.join(" "));
    }
    if let Some((refusal, _)) = &refused {
        json[sandbox::REFUSED_FIELD] = Value::String(refusal.word().to_string());
    }
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn merges_stdout_and_stderr_and_reports_the_status() {
        let result =
            execute(json!({"command": "echo out; echo err >&2; exit 3"}), ToolContext::detached(), &Jobs::default())
                .await
                .unwrap();
        assert_eq!(result, json!({"exit_status": 3, "content": "out\nerr\n"}));
    }

    #[tokio::test]
    async fn timeout_kills_the_command() {
        let started = std::time::Instant::now();
        let result = execute(
            json!({"command": "echo start; sleep 30", "timeout_secs": 1}),
            ToolContext::detached(),
            &Jobs::default(),
        )
        .await
        .unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(result["content"], "start\n");
        assert!(result["error"].as_str().unwrap().starts_with("timed out after 1s"));
    }

    #[tokio::test]
    async fn background_returns_at_once_with_the_job_and_its_first_output() {
        let jobs = Jobs::default();
        let started = std::time::Instant::now();
        let args = json!({"command": "echo ready; sleep 30", "background": true});
        let result = execute(args, ToolContext::detached(), &jobs).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(result, json!({"job": 1, "content": "ready\n", "running": true}));
        jobs.stop_all();
    }
}
