//! The `execute` tool: runs `bash -c COMMAND` in its own process group, streams the merged
//! stdout/stderr live, keeps a capped copy for the model, and kills the whole group on
//! timeout, on cancel, or if the call is dropped, so no process is left behind. The
//! command starts without secret-bearing environment variables (`secret_env`).

use super::capped::CappedText;
use super::secret_env::SecretPolicy;
use crate::agent::{Preview, PreviewKind, Tool, ToolContext};
use serde_json::{json, Value};
use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;

pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Bytes of output kept for the model (head and tail).
pub const OUTPUT_CAP: usize = 32 * 1024;
/// How long to keep reading after the command exits (background jobs may hold the pipe).
const DRAIN_GRACE: Duration = Duration::from_millis(200);

pub fn tool() -> Tool {
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
                "cwd": {"type": "string", "description": "directory to run in (default: the working directory)"}
            },
            "required": ["command"],
            "additionalProperties": false
        }),
        execute,
    )
    .with_aliases(&["bash", "sh", "exec", "shell"]).runs_commands("command").with_preview(|args| async move {
            let command = args["command"].as_str().unwrap_or_default().to_string();
            let text = match args["cwd"].as_str() {
                Some(cwd) => format!("{command}\n(in {cwd})"),
                None => command,
            };
            Ok(Preview { kind: PreviewKind::Command, text })
        })
}

enum Ending {
    Exited(std::process::ExitStatus),
    TimedOut,
    Cancelled,
}

async fn execute(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let command = super::str_arg(&args, "command")?.to_string();
    let timeout = Duration::from_secs(args["timeout_secs"].as_u64().unwrap_or(DEFAULT_TIMEOUT_SECS));
    let (reader, writer) = std::io::pipe()?;
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c")
        .arg(&command)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = args["cwd"].as_str() {
        cmd.current_dir(cwd);
    }
    for name in SecretPolicy::from_env().removed_names() {
        cmd.env_remove(name);
    }
    let spawned = cmd.spawn();
    drop(cmd); // closes our copies of the pipe's write end, so EOF can arrive
    let mut child = spawned.map_err(|e| anyhow::anyhow!("cannot start bash: {e}"))?;
    let mut killer = super::process_groups::GroupGuard::new(child.id().and_then(|id| i32::try_from(id).ok()));
    let mut pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;

    let mut output = CappedText::new(OUTPUT_CAP);
    let mut decoder = Utf8Stream::default();
    let mut buf = vec![0u8; 16 * 1024];
    let mut pipe_open = true;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);

    let ending = loop {
        tokio::select! {
            read = pipe.read(&mut buf), if pipe_open => match read {
                Ok(0) | Err(_) => pipe_open = false,
                Ok(n) => {
                    output.push(&buf[..n]);
                    ctx.progress(&decoder.decode(&buf[..n]));
                }
            },
            status = child.wait() => break Ending::Exited(status?),
            _ = &mut deadline => break Ending::TimedOut,
            _ = ctx.cancel.cancelled() => break Ending::Cancelled,
        }
    };
    if !matches!(ending, Ending::Exited(_)) {
        killer.kill();
        let _ = child.wait().await;
    }
    // Collect what is still in the pipe, without waiting on background jobs for long.
    let drain = async {
        while pipe_open {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => pipe_open = false,
                Ok(n) => {
                    output.push(&buf[..n]);
                    ctx.progress(&decoder.decode(&buf[..n]));
                }
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_GRACE, drain).await;
    let content = output.finish();
    Ok(match ending {
        Ending::Exited(status) => {
            // The command finished; background jobs it started may keep running until
            // elelem exits.
            killer.detach();
            json!({"exit_status": exit_code(status), "content": content})
        }
        Ending::TimedOut => json!({
            "error": format!("timed out after {}s; the command and its children were killed", timeout.as_secs()),
            "content": content,
        }),
        Ending::Cancelled => json!({"error": "interrupted by the user; the command was killed", "content": content}),
    })
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(-1)
}

/// Decodes a byte stream as UTF-8 across chunk boundaries (invalid bytes become U+FFFD).
#[derive(Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub fn decode(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.pending.len(),
        };
        let text = String::from_utf8_lossy(&self.pending[..valid]).into_owned();
        self.pending.drain(..valid);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_across_chunks_is_kept_whole() {
        let mut d = Utf8Stream::default();
        let bytes = "é".as_bytes();
        assert_eq!(d.decode(&bytes[..1]), "");
        assert_eq!(d.decode(&bytes[1..]), "é");
    }

    #[tokio::test]
    async fn merges_stdout_and_stderr_and_reports_the_status() {
        let result =
            execute(json!({"command": "echo out; echo err >&2; exit 3"}), ToolContext::detached()).await.unwrap();
        assert_eq!(result, json!({"exit_status": 3, "content": "out\nerr\n"}));
    }

    #[tokio::test]
    async fn timeout_kills_the_command() {
        let started = std::time::Instant::now();
        let result = execute(json!({"command": "echo start; sleep 30", "timeout_secs": 1}), ToolContext::detached())
            .await
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(result["content"], "start\n");
        assert!(result["error"].as_str().unwrap().starts_with("timed out after 1s"));
    }
}
