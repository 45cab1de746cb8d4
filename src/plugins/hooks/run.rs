//! Running one hook: its JSON input on stdin (through a 0600 temp file), stderr kept apart
//! (another temp file), stdout and the exit status read back as an `Outcome`. The command
//! itself is started by the `CommandRunner` the composition root hands in (the tools'
//! command runner: `bash -c` in its own process group, secret variables removed, output
//! bounded, the whole process tree killed at the timeout or on interrupt). Hooks are the
//! user's own commands and are not sandboxed.

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Bytes of a hook's stderr read back.
const STDERR_LIMIT: u64 = 16 * 1024;

/// A shell script to run, where, and for how long at most.
pub struct Script {
    pub text: String,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// How a script ended.
pub enum Ran {
    /// It exited with this status; its stdout (bounded).
    Exited { status: i32, stdout: String },
    /// It was stopped (timeout, interrupt, too much output): why, in a sentence.
    Stopped(String),
}

/// Runs a script (wired by `startup` to the tools' command runner).
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
    let files = match TempFiles::new(input) {
        Ok(files) => files,
        Err(e) => return Outcome::Failed(format!("cannot write the hook's input: {e}")),
    };
    let dir = quote(&cwd.to_string_lossy());
    let text = format!(
        "export CLAUDE_PROJECT_DIR={dir} ELELEM_PROJECT_DIR={dir}\nexec <{} 2>{}\n{command}",
        quote(&files.input.to_string_lossy()),
        quote(&files.stderr.to_string_lossy())
    );
    let ran = runner(Script { text, cwd: cwd.to_path_buf(), timeout }, cancel).await;
    let stderr = files.stderr_text();
    match ran {
        Err(e) => Outcome::Failed(format!("cannot run the hook: {e:#}")),
        Ok(Ran::Stopped(why)) => Outcome::Failed(with_stderr(why, &stderr)),
        Ok(Ran::Exited { status: 0, stdout }) => {
            let json = serde_json::from_str::<Value>(stdout.trim()).ok().and_then(|v| match v {
                Value::Object(map) => Some(map),
                _ => None,
            });
            Outcome::Go { stdout, json }
        }
        Ok(Ran::Exited { status: 2, .. }) => {
            Outcome::Block(if stderr.is_empty() { "blocked by a hook (no reason given)".into() } else { stderr })
        }
        Ok(Ran::Exited { status, .. }) => Outcome::Failed(with_stderr(format!("exited with status {status}"), &stderr)),
    }
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

/// The hook's stdin and stderr files, removed when dropped.
struct TempFiles {
    input: PathBuf,
    stderr: PathBuf,
}

impl TempFiles {
    fn new(input: &Value) -> std::io::Result<Self> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("elelem-hook-{}-{n}", std::process::id()));
        let files = TempFiles { input: base.with_extension("in"), stderr: base.with_extension("err") };
        let create = |path: &Path| {
            let _ = std::fs::remove_file(path);
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
        };
        create(&files.input)?.write_all(input.to_string().as_bytes())?;
        create(&files.stderr)?;
        Ok(files)
    }

    fn stderr_text(&self) -> String {
        let mut bytes = Vec::new();
        if let Ok(file) = std::fs::File::open(&self.stderr) {
            let _ = file.take(STDERR_LIMIT).read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).trim().to_string()
    }
}

impl Drop for TempFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.input);
        let _ = std::fs::remove_file(&self.stderr);
    }
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
