//! Running one hook: its JSON input written to its stdin through a pipe (no file: a
//! predictable name in the temp directory is one a contained command could plant first, as
//! a directory, a FIFO or a link), stdout and stderr read apart, and the exit status read
//! back as an `Outcome`. The command itself is started by the `CommandRunner` the
//! composition root hands in (`bash -c` in its own process group, secret variables removed,
//! output bounded, the whole process tree killed at the timeout or on interrupt). Hooks are
//! the user's own commands and are not sandboxed. A hook that cannot be started (no shell,
//! a working directory that is gone, its command not found or not executable: status 126
//! or 127) is `Outcome::NotStarted`, which a `PreToolUse` hook turns into a refusal.

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Bytes of a hook's stderr kept for its message.
const STDERR_LIMIT: usize = 16 * 1024;

/// A shell script to run, where, for how long at most, and the bytes on its stdin.
pub struct Script {
    pub text: String,
    pub cwd: PathBuf,
    pub timeout: Duration,
    pub stdin: Vec<u8>,
}

/// How a script ended, with its stdout (bounded) and the head of its stderr.
pub struct Ran {
    pub ended: Ended,
    pub stdout: String,
    pub stderr: String,
}

/// How a script ended.
pub enum Ended {
    /// It exited with this status.
    Exited(i32),
    /// It was stopped (timeout, interrupt, too much output): why, in a sentence.
    Stopped(String),
}

/// Runs a script (wired by `startup` to the tools' runner with input); an error means it
/// could not be started.
pub type CommandRunner =
    Arc<dyn Fn(Script, CancellationToken) -> BoxFuture<'static, anyhow::Result<Ran>> + Send + Sync>;

/// What a hook said.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Exit 0: go on; stdout, and its JSON object when it is one.
    Go { stdout: String, json: Option<Map<String, Value>> },
    /// Exit 2: block, with stderr as the reason.
    Block(String),
    /// Anything else: a warning for the user (the exit status or why it was stopped, and
    /// its stderr); the call goes on.
    Failed(String),
    /// It could not be started, or its command was not found (126, 127): why. A warning,
    /// except for `PreToolUse`, where it refuses the call.
    NotStarted(String),
}

impl Outcome {
    /// A field of `hookSpecificOutput`, else of the top level.
    pub fn field(&self, name: &str) -> Option<&Value> {
        let Outcome::Go { json: Some(json), .. } = self else { return None };
        json.get("hookSpecificOutput").and_then(|h| h.get(name)).or_else(|| json.get(name))
    }

    /// A string field (`field`).
    pub fn text(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }

    /// `decision: "block"` with its reason (`UserPromptSubmit`, `PostToolUse`, `Stop`), or
    /// exit 2's stderr.
    pub fn blocked(&self) -> Option<String> {
        match self {
            Outcome::Block(stderr) => Some(stderr.clone()),
            Outcome::Go { .. } if self.text("decision") == Some("block") => {
                Some(self.text("reason").unwrap_or("blocked by a hook").to_string())
            }
            _ => None,
        }
    }

    /// What the hook adds to the context: `additionalContext`, or (when `plain` is
    /// allowed) stdout that is not JSON.
    pub fn context(&self, plain: bool) -> Option<String> {
        if let Some(text) = self.text("additionalContext").filter(|t| !t.trim().is_empty()) {
            return Some(text.to_string());
        }
        match self {
            Outcome::Go { stdout, json: None } if plain && !stdout.trim().is_empty() => Some(stdout.trim().to_string()),
            _ => None,
        }
    }

    /// The outcome in a word or two, for the tool log line.
    pub fn label(&self) -> String {
        match self {
            Outcome::Block(_) => "blocked".into(),
            Outcome::Failed(why) => format!("failed: {}", why.lines().next().unwrap_or("")),
            Outcome::NotStarted(why) => format!("not started: {}", why.lines().next().unwrap_or("")),
            Outcome::Go { .. } => match (self.text("permissionDecision"), self.text("decision")) {
                (Some("deny"), _) | (_, Some("block")) => "denied".into(),
                (Some("allow"), _) | (_, Some("approve")) => "allowed".into(),
                (Some("ask"), _) => "ask".into(),
                _ if self.field("updatedInput").is_some() => "input changed".into(),
                _ => "ok".into(),
            },
        }
    }
}

/// Runs `command` with `input` on stdin, in `cwd` (where `CLAUDE_PROJECT_DIR` also points).
pub async fn run(
    runner: &CommandRunner,
    command: &str,
    timeout: Duration,
    input: &Value,
    cwd: &Path,
    cancel: CancellationToken,
) -> Outcome {
    let dir = quote(&cwd.to_string_lossy());
    let text = format!("export CLAUDE_PROJECT_DIR={dir} ELELEM_PROJECT_DIR={dir}\n{command}");
    let script = Script { text, cwd: cwd.to_path_buf(), timeout, stdin: input.to_string().into_bytes() };
    let ran = match runner(script, cancel).await {
        Ok(ran) => ran,
        Err(e) => return Outcome::NotStarted(format!("cannot start the hook: {e:#}")),
    };
    let stderr = bounded(&ran.stderr);
    match ran.ended {
        Ended::Stopped(why) => Outcome::Failed(with_stderr(why, &stderr)),
        Ended::Exited(0) => {
            let json = serde_json::from_str::<Value>(ran.stdout.trim()).ok().and_then(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            });
            Outcome::Go { stdout: ran.stdout, json }
        }
        Ended::Exited(2) => {
            Outcome::Block(if stderr.is_empty() { "blocked by a hook (no reason given)".into() } else { stderr })
        }
        Ended::Exited(status @ (126 | 127)) => {
            let what = if status == 127 { "not found" } else { "not executable" };
            Outcome::NotStarted(with_stderr(format!("exited with status {status} (its command {what})"), &stderr))
        }
        Ended::Exited(status) => Outcome::Failed(with_stderr(format!("exited with status {status}"), &stderr)),
    }
}

/// The head of a hook's stderr, trimmed.
fn bounded(stderr: &str) -> String {
    let mut end = stderr.len().min(STDERR_LIMIT);
    while !stderr.is_char_boundary(end) {
        end -= 1;
    }
    stderr[..end].trim().to_string()
}

fn with_stderr(why: String, stderr: &str) -> String {
    if stderr.is_empty() {
        why
    } else {
        format!("{why}: {stderr}")
    }
}

/// `text` in single quotes for bash.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn go(json: Value) -> Outcome {
        Outcome::Go { stdout: json.to_string(), json: json.as_object().cloned() }
    }

    #[test]
    fn reads_claude_codes_answers() {
        let deny = go(json!({"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}));
        assert_eq!((deny.text("permissionDecisionReason"), deny.label().as_str()), (Some("no"), "denied"));
        let block = go(json!({"decision": "block", "reason": "why"}));
        assert_eq!(block.blocked().as_deref(), Some("why"));
        let context = go(json!({"hookSpecificOutput": {"additionalContext": "more"}}));
        assert_eq!(context.context(false).as_deref(), Some("more"));
        let plain = Outcome::Go { stdout: "plain text\n".into(), json: None };
        assert_eq!((plain.context(true).as_deref(), plain.context(false)), (Some("plain text"), None));
        assert_eq!(quote("it's"), r"'it'\''s'");
    }
}
