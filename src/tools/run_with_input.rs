//! Runs one `bash -c` script that is not contained (a hook: the user's own command) with
//! bytes on its stdin through a pipe and its stdout and stderr read apart, in a process
//! group of its own without secret-bearing variables (`secret_env`). Nothing goes through a
//! file: a name in the temp directory is one a contained command could plant first (issue
//! 37). The script and its whole process tree (`process_groups`) are killed on timeout, on
//! cancel, past the output limit, or if the call is dropped.

use super::capped::CappedText;
use super::process_groups::GroupGuard;
use super::run_command::{Ending, Limits};
use super::secret_env::SecretPolicy;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Bytes of stderr kept (the head); the rest is read and dropped.
pub const STDERR_KEPT: usize = 16 * 1024;
/// How long to keep reading after the script exits (background jobs may hold the pipes).
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// How the script ended, its stdout (capped, head and tail) and the head of its stderr.
pub struct Piped {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `script` with `bash -c` in `cwd`, `input` written to its stdin (then closed), until
/// it ends or a limit stops it. An error means it could not be started.
pub async fn run(
    script: &str,
    cwd: &Path,
    input: Vec<u8>,
    limits: &Limits,
    cancel: &CancellationToken,
) -> anyhow::Result<Piped> {
    let mut cmd = super::shell_program::command(&["bash", "-c"], script);
    cmd.current_dir(cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    crate::process_tree::own_group(&mut cmd);
    for name in SecretPolicy::from_env().removed_names() {
        cmd.env_remove(name);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {} in {}: {e}", super::shell_program::name(), cwd.display()))?;
    let mut killer = GroupGuard::new(child.id().and_then(|id| i32::try_from(id).ok()));
    let (Some(mut stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        anyhow::bail!("bash started without its pipes");
    };

    let mut out = Stream::new(stdout, CappedText::new(limits.keep));
    let mut err = Stream::new(stderr, Head::default());
    // The input is written while the script runs (it may be larger than a pipe holds); a
    // script that does not read it closes the pipe, which is not an error.
    let write = async move {
        let _ = stdin.write_all(&input).await;
    };
    tokio::pin!(write);
    let mut written = false;
    let deadline = tokio::time::sleep(limits.timeout);
    tokio::pin!(deadline);
    let too_much = |out: &Stream<CappedText>, err: &Stream<Head>| out.sink.total() + err.sink.total > limits.max_output;

    let ending = loop {
        tokio::select! {
            () = &mut write, if !written => written = true,
            () = out.step(), if out.open => if too_much(&out, &err) { break Ending::TooMuchOutput },
            () = err.step(), if err.open => if too_much(&out, &err) { break Ending::TooMuchOutput },
            status = child.wait() => break Ending::Exited(crate::process_tree::exit_code(status?)),
            () = &mut deadline => break Ending::TimedOut,
            () = cancel.cancelled() => break Ending::Cancelled,
        }
    };
    if !matches!(ending, Ending::Exited(_)) {
        killer.kill();
        let _ = child.wait().await;
    }
    let drain = async {
        while (out.open || err.open) && !too_much(&out, &err) {
            tokio::select! {
                () = out.step(), if out.open => {}
                () = err.step(), if err.open => {}
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_GRACE, drain).await;
    if matches!(ending, Ending::Exited(_)) {
        // As for `!command`: jobs the script put in the background run on until elelem exits.
        killer.detach();
    }
    Ok(Piped { ending, stdout: out.sink.finish(), stderr: err.sink.finish() })
}

/// Why a script that did not exit by itself was stopped, in a sentence.
pub fn stopped(ending: Ending, limits: &Limits) -> String {
    match ending {
        Ending::Exited(status) => format!("exited with status {status}"),
        Ending::TimedOut => {
            format!("timed out after {}s; the command and its children were killed", limits.timeout.as_secs())
        }
        Ending::Cancelled => "interrupted by the user; the command was killed".to_string(),
        Ending::TooMuchOutput => format!(
            "stopped after {} KiB of output (the limit); the command and its children were killed",
            limits.max_output / 1024
        ),
    }
}

/// Where a stream's bytes go.
trait Sink {
    fn push(&mut self, bytes: &[u8]);
}

impl Sink for CappedText {
    fn push(&mut self, bytes: &[u8]) {
        CappedText::push(self, bytes);
    }
}

/// The first `STDERR_KEPT` bytes, and how many came in all.
#[derive(Default)]
struct Head {
    kept: Vec<u8>,
    total: usize,
}

impl Sink for Head {
    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let room = STDERR_KEPT.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

impl Head {
    fn finish(self) -> String {
        String::from_utf8_lossy(&self.kept).into_owned()
    }
}

/// One of the script's output pipes and where its bytes go.
struct Stream<S> {
    pipe: Box<dyn AsyncRead + Unpin + Send>,
    sink: S,
    open: bool,
    buf: Vec<u8>,
}

impl<S: Sink> Stream<S> {
    fn new(pipe: impl AsyncRead + Unpin + Send + 'static, sink: S) -> Self {
        Stream { pipe: Box::new(pipe), sink, open: true, buf: vec![0; 16 * 1024] }
    }

    /// Reads once: the bytes go to the sink; end of file or an error closes the stream.
    async fn step(&mut self) {
        match self.pipe.read(&mut self.buf).await {
            Ok(0) | Err(_) => self.open = false,
            Ok(n) => self.sink.push(&self.buf[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits { timeout: Duration::from_secs(20), keep: 64 * 1024, max_output: 1024 * 1024 }
    }

    #[tokio::test]
    async fn input_arrives_on_stdin_and_the_streams_stay_apart() {
        let dir = tempfile::tempdir().unwrap();
        let input = "x".repeat(300 * 1024); // more than a pipe holds
        let script = "wc -c; echo to-stderr >&2; exit 3";
        let ran = run(script, dir.path(), input.into_bytes(), &limits(), &CancellationToken::new()).await.unwrap();
        assert_eq!(ran.ending, Ending::Exited(3));
        assert_eq!(ran.stdout.trim(), "307200");
        assert_eq!(ran.stderr.trim(), "to-stderr");
    }

    #[tokio::test]
    async fn a_script_that_ignores_its_input_is_not_an_error_and_a_missing_cwd_is() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'x'; 1024 * 1024];
        let ran = run("echo ok", dir.path(), big, &limits(), &CancellationToken::new()).await.unwrap();
        assert_eq!((ran.ending, ran.stdout.trim()), (Ending::Exited(0), "ok"));
        let gone = dir.path().join("gone");
        let error = run("true", &gone, Vec::new(), &limits(), &CancellationToken::new()).await.err().unwrap();
        assert!(error.to_string().contains("cannot start bash"), "{error}");
    }

    #[tokio::test]
    async fn a_timeout_kills_the_script() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits { timeout: Duration::from_millis(300), ..limits() };
        let started = std::time::Instant::now();
        let ran = run("sleep 30", dir.path(), Vec::new(), &limits, &CancellationToken::new()).await.unwrap();
        assert_eq!(ran.ending, Ending::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
