//! Runs one `bash -c` command for a tool (`execute`) or the user (`!command`): in a
//! process group of its own (a contained command: a session of its own, without a
//! terminal), without secret-bearing variables (`secret_env`; a contained one without the
//! variables that lead to the session's sockets either), its merged stdout and stderr
//! streamed live and kept capped (head and tail, `capped`). The command
//! and its whole process tree (`process_groups`) are killed on timeout, on cancel, past an
//! output limit, or if the call is dropped, so no process is left behind. A contained
//! command is started by the sandbox (`sandbox::start`), whose PID namespace ends its tree.
//! `spawn` starts one connected as a background job needs (`Connection`: its stdin a pipe,
//! or a pseudo-terminal of its own), for `jobs`.

use super::capped::CappedText;
use super::process_groups::GroupGuard;
use super::secret_env::SecretPolicy;
use crate::agent::ToolContext;
use crate::process_tree::{self, Own};
#[cfg(unix)]
use std::os::fd::OwnedFd;
// A pipe's end: a handle on Windows, where a command's output is read on a blocking thread.
#[cfg(windows)]
use std::os::windows::io::OwnedHandle as OwnedFd;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;

pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Bytes of output kept (head and tail).
pub const OUTPUT_CAP: usize = 32 * 1024;
/// Bytes of output past which the command is stopped: `yes` would otherwise stream
/// gigabytes to the screen until its timeout.
pub const OUTPUT_LIMIT: usize = 16 * 1024 * 1024;
/// How long to keep reading after the command exits (background jobs may hold the pipe).
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// When a command is stopped and how much of its output is kept.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub timeout: Duration,
    pub keep: usize,
    pub max_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS), keep: OUTPUT_CAP, max_output: OUTPUT_LIMIT }
    }
}

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself with this status (128 + N when killed by signal N).
    Exited(i32),
    TimedOut,
    Cancelled,
    /// It wrote more than `Limits::max_output` bytes.
    TooMuchOutput,
}

/// A command's ending and its kept output.
pub struct Finished {
    pub ending: Ending,
    pub content: String,
    /// What the sandbox undid after a contained command (`sandbox::Started::settle`).
    pub sandbox: Option<String>,
}

impl Finished {
    /// The status, or the sentence that says why the command was stopped.
    pub fn to_json(&self, limits: &Limits) -> serde_json::Value {
        let error = match self.ending {
            Ending::Exited(status) => return serde_json::json!({"exit_status": status, "content": self.content}),
            Ending::TimedOut => {
                format!("timed out after {}s; the command and its children were killed", limits.timeout.as_secs())
            }
            Ending::Cancelled => "interrupted by the user; the command was killed".to_string(),
            Ending::TooMuchOutput => format!(
                "stopped after {} MiB of output (the limit); the command and its children were killed",
                limits.max_output / (1024 * 1024)
            ),
        };
        serde_json::json!({"error": error, "content": self.content})
    }
}

/// The running command: a `Command`'s child in its own process group (killed with its tree
/// by the guard; `Own` when it is a session of its own, contained without namespaces), or a
/// contained one (`sandbox::start`: killed with its PID namespace).
// On Windows `Contained` cannot exist (no sandbox): the variants' sizes do not matter there.
#[cfg_attr(windows, allow(clippy::large_enum_variant))]
pub enum Running {
    Plain(tokio::process::Child, GroupGuard, Option<Own>),
    Contained(super::sandbox::Started),
}

/// How a command's stdin, stdout and stderr are connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connection {
    /// stdin `/dev/null`, stdout and stderr one pipe (a call that waits for it).
    Call,
    /// stdin a pipe elelem writes to, stdout and stderr one pipe (a background job).
    Piped,
    /// A pseudo-terminal of its own, whose master elelem holds, for all three (a job that
    /// wants a terminal): its controlling terminal, `TERM=dumb`.
    Terminal,
}

/// A started command: what runs, where its output comes out (a pipe's read end, or the
/// terminal's master), and where its input goes (a pipe's write end, or the master again).
pub struct Spawned {
    pub running: Running,
    pub output: OwnedFd,
    pub input: Option<OwnedFd>,
}

/// `bash`'s arguments before the command: a job's command runs in a second `bash`, so
/// that the first process of its PID namespace (which ignores the signals it has no
/// handler for) is never the program a Ctrl+C is meant for.
const JOB_ARGV: [&str; 4] = ["bash", "-c", "bash -c \"$1\"; exit $?", "bash"];
const CALL_ARGV: [&str; 2] = ["bash", "-c"];

impl Running {
    /// The command's pid as elelem sees it.
    pub fn pid(&self) -> Option<i32> {
        match self {
            Running::Plain(child, ..) => child.id().and_then(|id| i32::try_from(id).ok()),
            Running::Contained(started) => Some(started.pid()),
        }
    }

    /// Kills a contained command from anywhere (`None` for one that is not contained).
    pub fn killer(&self) -> Option<super::sandbox::Killer> {
        match self {
            Running::Contained(started) => started.killer().ok(),
            Running::Plain(..) => None,
        }
    }

    /// Once it has ended: what the sandbox undid (`sandbox::Started::settle`).
    pub fn settle(&mut self) -> Option<String> {
        match self {
            Running::Contained(started) => started.settle(),
            Running::Plain(..) => None,
        }
    }

    pub async fn wait(&mut self) -> std::io::Result<i32> {
        match self {
            Running::Plain(child, _, own) => {
                let status = child.wait().await;
                if status.is_ok() {
                    own.take(); // reaped: no longer this process's child
                }
                status.map(process_tree::exit_code)
            }
            Running::Contained(started) => started.wait().await,
        }
    }

    /// Kills the command's whole tree and waits for the command.
    pub async fn kill(&mut self) {
        match self {
            Running::Plain(child, killer, _) => {
                killer.kill();
                let _ = child.wait().await;
            }
            Running::Contained(started) => {
                started.kill();
                let _ = started.wait().await;
            }
        }
    }
}

/// Runs `command` with `bash -c` (in `cwd` when given) until it ends or a limit stops it.
/// `contained`: run it in the sandbox (`sandbox::mode`): `execute` is while the sandbox is
/// active, `!command` never is.
pub async fn run(
    command: &str,
    cwd: Option<&str>,
    limits: &Limits,
    ctx: &ToolContext,
    contained: bool,
) -> anyhow::Result<Finished> {
    let Spawned { mut running, output: reader, .. } = spawn(command, cwd, contained, Connection::Call)?;
    let mut pipe = pipe_reader(reader)?;

    let mut output = CappedText::new(limits.keep);
    let mut decoder = Utf8Stream::default();
    let mut buf = vec![0u8; 16 * 1024];
    let mut pipe_open = true;
    let deadline = tokio::time::sleep(limits.timeout);
    tokio::pin!(deadline);

    let ending = loop {
        tokio::select! {
            read = pipe.read(&mut buf), if pipe_open => match read {
                Ok(0) | Err(_) => pipe_open = false,
                Ok(n) => {
                    output.push(&buf[..n]);
                    ctx.progress(&decoder.decode(&buf[..n]));
                    if output.total() > limits.max_output {
                        break Ending::TooMuchOutput;
                    }
                }
            },
            status = running.wait() => break Ending::Exited(status?),
            _ = &mut deadline => break Ending::TimedOut,
            _ = ctx.cancel.cancelled() => break Ending::Cancelled,
        }
    };
    if !matches!(ending, Ending::Exited(_)) {
        running.kill().await;
    }
    // Collect what is still in the pipe, without waiting on background jobs for long (nor
    // past the output limit).
    let drain = async {
        while pipe_open && output.total() <= limits.max_output {
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
    let sandbox = match running {
        Running::Plain(_, killer, _) if matches!(ending, Ending::Exited(_)) && !contained => {
            // The command finished; background jobs it started may keep running until
            // elelem exits. A contained command's jobs end with it: they live in its
            // namespaces, where the protected paths would no longer be kept if someone
            // replaced them outside.
            killer.detach();
            None
        }
        // Dropped: the tree is killed.
        Running::Plain(..) => None,
        // Its PID namespace ended with it: nothing of it runs any more.
        Running::Contained(mut started) => started.settle(),
    };
    Ok(Finished { ending, content: output.finish(), sandbox })
}

/// A pipe's read end, read on the runtime.
#[cfg(unix)]
fn pipe_reader(reader: OwnedFd) -> std::io::Result<impl tokio::io::AsyncRead + Unpin> {
    tokio::net::unix::pipe::Receiver::from_owned_fd(reader)
}

/// A pipe's read end, read by a thread of its own (`pipe_thread`: an anonymous pipe on
/// Windows cannot be waited on).
#[cfg(windows)]
fn pipe_reader(reader: OwnedFd) -> std::io::Result<impl tokio::io::AsyncRead + Unpin> {
    super::pipe_thread::Reader::new(reader)
}

/// Starts `bash -c command` (in `cwd` when given) connected as `connection` says;
/// `contained`: in the sandbox (`sandbox::start`, else `sandbox::contain`).
pub fn spawn(command: &str, cwd: Option<&str>, contained: bool, connection: Connection) -> anyhow::Result<Spawned> {
    let policy = SecretPolicy::from_env();
    let removed = if contained { policy.removed_names_contained() } else { policy.removed_names() };
    // Where the command's output goes (`out`, its end) and comes out (`output`, ours), and
    // its input (`into`, its end; `input`, ours).
    let (output, out, input, into) = match connection {
        Connection::Call | Connection::Piped => {
            let (reader, writer) = std::io::pipe()?;
            let (input, into) = match connection {
                Connection::Piped => {
                    let (reader, writer) = std::io::pipe()?;
                    (Some(OwnedFd::from(writer)), Some(OwnedFd::from(reader)))
                }
                _ => (None, None),
            };
            (OwnedFd::from(reader), OwnedFd::from(writer), input, into)
        }
        Connection::Terminal => {
            let (master, slave) = super::pty::open().map_err(|e| anyhow::anyhow!("cannot open a terminal: {e}"))?;
            let input = master.try_clone()?;
            let into = slave.try_clone()?;
            (master, slave, Some(input), Some(into))
        }
    };
    let terminal = connection == Connection::Terminal;
    let env: &[(&str, &str)] = if terminal { &[("TERM", "dumb")] } else { &[] };
    let argv: &[&str] = if connection == Connection::Call { &CALL_ARGV } else { &JOB_ARGV };
    let mut running = None;
    if contained {
        let project = std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the working directory: {e}"))?;
        let io = super::sandbox::Io { output: &out, input: into.as_ref(), terminal, env, argv };
        running = super::sandbox::start(command, &project, cwd, &removed, &io)?.map(Running::Contained);
    }
    let running = match running {
        Some(running) => running,
        None => {
            spawn_plain(command, cwd, &removed, (out.try_clone()?, into.as_ref()), contained, (terminal, env, argv))?
        }
    };
    // Our copies of the command's ends are dropped here, so end of file (or, for a
    // terminal, EIO) can arrive.
    drop((out, into));
    Ok(Spawned { running, output, input })
}

/// Starts `bash -c command` as a `Command`'s child in a process group of its own
/// (contained by `sandbox::contain` when the machine gives no user namespaces: then a
/// session of its own, which `setsid` in the child makes; with a terminal, likewise, and
/// the terminal its controlling one).
fn spawn_plain(
    command: &str,
    cwd: Option<&str>,
    removed: &[std::ffi::OsString],
    (out, into): (OwnedFd, Option<&OwnedFd>),
    contained: bool,
    (terminal, env, argv): (bool, &[(&str, &str)], &[&str]),
) -> anyhow::Result<Running> {
    let mut cmd = super::shell_program::command(argv, command);
    let stdin = match into {
        Some(into) => Stdio::from(into.try_clone()?),
        None => Stdio::null(),
    };
    cmd.stdin(stdin).stdout(out.try_clone()?).stderr(out).kill_on_drop(true);
    let own_session = contained || terminal;
    if !own_session {
        process_tree::own_group(&mut cmd);
    }
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    for name in removed {
        cmd.env_remove(name);
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    if contained {
        let project = std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the working directory: {e}"))?;
        super::sandbox::contain(&mut cmd, &project, cwd)?;
    }
    if terminal {
        super::pty::make_controlling(&mut cmd, !contained);
    }
    let spawned = match own_session {
        true => process_tree::own(|| cmd.spawn(), |child| child.id().and_then(|id| i32::try_from(id).ok()))
            .map(|(child, own)| (child, Some(own))),
        false => cmd.spawn().map(|child| (child, None)),
    };
    drop(cmd); // closes our copies of the pipe's write end, so EOF can arrive
    let shell = super::shell_program::name();
    let (child, own) = spawned.map_err(|e| match contained {
        true => anyhow::anyhow!("cannot start {shell} in the sandbox: {e}"),
        false => anyhow::anyhow!("cannot start {shell}: {e}"),
    })?;
    let killer = GroupGuard::new(child.id().and_then(|id| i32::try_from(id).ok()));
    Ok(Running::Plain(child, killer, own))
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

#[cfg(all(test, unix))]
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
    async fn endless_output_is_stopped_at_the_limit_and_kept_capped() {
        let limits = Limits { max_output: 1024 * 1024, ..Limits::default() };
        let started = std::time::Instant::now();
        let finished = run("yes", None, &limits, &ToolContext::detached(), false).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(finished.ending, Ending::TooMuchOutput);
        assert!(finished.content.len() < 2 * OUTPUT_CAP, "{}", finished.content.len());
        let json = finished.to_json(&limits);
        assert_eq!(
            json["error"],
            "stopped after 1 MiB of output (the limit); the command and its children were killed"
        );
    }

    /// An interrupt kills the command's whole tree: a `setsid` child of it too.
    #[tokio::test]
    async fn cancel_kills_a_setsid_child() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let command =
            format!("setsid sh -c 'echo $$ > {}; exec sleep 30' >/dev/null 2>&1 & sleep 30", pid_file.display());
        let ctx = ToolContext::detached();
        let cancel = ctx.cancel.clone();
        let watcher = pid_file.clone();
        tokio::spawn(async move {
            while std::fs::read_to_string(&watcher).map_or(true, |t| t.trim().is_empty()) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            cancel.cancel();
        });
        let finished =
            tokio::time::timeout(Duration::from_secs(20), run(&command, None, &Limits::default(), &ctx, false))
                .await
                .unwrap()
                .unwrap();
        assert_eq!(finished.ending, Ending::Cancelled);
        let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let gone = (0..200).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            crate::process_tree::read(pid).is_none_or(|p| p.zombie)
        });
        assert!(gone, "the setsid child of an interrupted command survived");
    }
}
