//! `!command`: the user runs a shell command directly — no model call, no approval (the
//! user typed it). Its output streams live like a tool's (a `!` row in the tool log), and
//! the command with its output is handed to the next prompt, so the model sees what the
//! user saw.

use super::output::{AgentEvent, Delta, Output};
use crate::protocol::{ToolCall, ToolResult};
use serde_json::json;
use std::process::Stdio;
use std::sync::Arc;
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

/// Output kept for the next prompt: the head and the tail of this many bytes in all.
const KEEP: usize = 32 * 1024;

/// Runs `command` with `bash -c` in its own process group, streaming its output to
/// `output`. Returns the note for the next prompt.
pub async fn run(command: &str, id: String, output: &Arc<dyn Output>, cancel: &CancellationToken) -> String {
    let call = ToolCall { id: id.clone(), name: "!".into(), arguments: json!({ "command": command }) };
    output.emit(AgentEvent::ToolStarted { call: call.clone(), summary: command.to_string() });
    let (text, result) = match spawn_and_collect(command, &id, output, cancel).await {
        Ok((text, status)) => {
            let result = match status {
                Some(0) => ToolResult::from_value(json!({"exit_status": 0, "content": text})),
                Some(code) => ToolResult::from_value(json!({"exit_status": code, "content": text})),
                None => {
                    ToolResult::from_value(json!({"error": "interrupted; the command was killed", "content": text}))
                }
            };
            (text, result)
        }
        Err(error) => (String::new(), ToolResult::failure(format!("cannot run the command: {error}"))),
    };
    let status = match (result.get("exit_status").and_then(|v| v.as_i64()), result.error()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(error)) => error.to_string(),
        _ => String::new(),
    };
    output.emit(AgentEvent::ToolFinished { call, result });
    format!("I ran `{command}` in the shell ({status}). Its output:\n```\n{}\n```", keep(&text).trim_end())
}

async fn spawn_and_collect(
    command: &str,
    id: &str,
    output: &Arc<dyn Output>,
    cancel: &CancellationToken,
) -> std::io::Result<(String, Option<i32>)> {
    let mut child = tokio::process::Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let mut stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
    let mut text = String::new();
    let mut buf = vec![0u8; 8192];
    loop {
        tokio::select! {
            read = stdout.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let chunk = String::from_utf8_lossy(&buf[..n]).into_owned();
                    output.emit(AgentEvent::Delta(Delta::ToolOutput { id: id.to_string(), chunk: chunk.clone() }));
                    text.push_str(&chunk);
                }
            },
            _ = cancel.cancelled() => {
                kill_group(&child);
                let _ = child.wait().await;
                return Ok((text, None));
            }
        }
    }
    let status = child.wait().await?;
    Ok((text, Some(status.code().unwrap_or(-1))))
}

fn kill_group(child: &tokio::process::Child) {
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        // SAFETY: kill(2) with a negative pid signals the process group we created.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// The head and tail of `text` within `KEEP` bytes.
fn keep(text: &str) -> String {
    if text.len() <= KEEP {
        return text.to_string();
    }
    let mut head = KEEP / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - KEEP / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}\n[… {} bytes left out …]\n{}", &text[..head], tail - head, &text[tail..])
}
