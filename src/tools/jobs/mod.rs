//! The session's background jobs (issue 40): commands `execute` started with
//! `"background": true`, numbered 1, 2, … like a shell's `%1`, that run across calls and
//! turns while the model reads their output (`job_output`), types into them (`job_input`,
//! text and named keys, `keys.rs`) and stops them (`job_stop`); the tools are in `tools.rs`.
//! A job runs as any command does (`run_command::spawn`: contained when `execute` would
//! be, in the session's shared network namespace), its stdin a pipe, or all three of its
//! streams a pseudo-terminal of its own (`"pty": true`, `tools/pty.rs`). A task per job
//! reads its output into a fixed-size buffer (`buffer.rs`: the newest `KEPT` bytes, the
//! oldest dropped and counted) and waits for its end.
//!
//! The table belongs to the session (`BuiltinTools` holds it): at most `MAX_RUNNING` jobs
//! run at once; `stop_all` kills every one (with its whole process tree: a contained job's
//! PID namespace, a plain one's group and descendants), which the session does at `/clear`
//! and when it is dropped (resuming another session, the end of `ask`); elelem's own way
//! out (`startup::shutdown`, on exit and on signals) kills every process below it anyway.

mod buffer;
mod fd;
mod keys;
pub mod tools;

use super::capped::CappedText;
use super::run_command::{self, Connection, Running};
use super::sandbox::Killer;
use crate::protocol::events::JobRow;
use buffer::Ring;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Jobs that may run at once.
pub const MAX_RUNNING: usize = 16;
/// Ended jobs kept (their last output and status) besides the running ones.
const MAX_ENDED: usize = 16;
/// Bytes of output kept per job (the newest).
pub const KEPT: usize = 256 * 1024;
/// Bytes one read returns at most (head and tail, as `execute`'s output).
pub const READ_CAP: usize = run_command::OUTPUT_CAP;
/// The longest a read waits for output.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// How long a started job's first output is waited for.
pub const FIRST_WAIT: Duration = Duration::from_millis(1000);
/// Output that came is read once nothing more came for this long...
const QUIET: Duration = Duration::from_millis(150);
/// ...or once it has been coming for this long (a job that never pauses).
const BURST: Duration = Duration::from_millis(500);
/// How long to keep reading once a job ended (its children may hold the pipe).
const DRAIN_GRACE: Duration = Duration::from_millis(200);
/// How long input waits for a job that does not read it.
const INPUT_LIMIT: Duration = Duration::from_secs(5);

/// The session's jobs.
#[derive(Default)]
pub struct Jobs {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    jobs: BTreeMap<u32, Arc<Job>>,
    last: u32,
}

/// One job.
pub struct Job {
    pub id: u32,
    pub command: String,
    /// It runs in a pseudo-terminal of its own.
    pub terminal: bool,
    /// It runs in the sandbox.
    pub contained: bool,
    state: Mutex<State>,
    /// Bumped at each change (output, the end), for readers that wait.
    changed: watch::Sender<u64>,
    stop: CancellationToken,
    /// Where its input goes (none once closed, or when it ended).
    input: tokio::sync::Mutex<Option<fd::Fd>>,
    killer: Option<Killer>,
    /// Its first process (and process group), as elelem sees it.
    pid: Option<i32>,
}

struct State {
    output: Ring,
    status: Option<Status>,
    /// What the sandbox undid once it ended.
    note: Option<String>,
}

/// How a job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It exited by itself with this status (128 + N when killed by signal N).
    Exited(i32),
    /// It was stopped (`job_stop`, `/jobs stop`, the session's end).
    Stopped,
}

/// What a read found.
pub struct Taken {
    pub text: String,
    pub dropped: u64,
    pub status: Option<Status>,
    pub note: Option<String>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Jobs {
    pub fn new() -> Arc<Jobs> {
        Arc::new(Jobs::default())
    }

    /// Starts `command` as a job (in `cwd`; `contained`: in the sandbox; `terminal`: in a
    /// pseudo-terminal of its own). Fails past `MAX_RUNNING` running jobs, or when it
    /// cannot be started.
    pub fn start(&self, command: &str, cwd: Option<&str>, contained: bool, terminal: bool) -> anyhow::Result<Arc<Job>> {
        let mut table = lock(&self.table);
        let running: Vec<String> = table.jobs.values().filter(|j| j.running()).map(|j| j.id.to_string()).collect();
        if running.len() >= MAX_RUNNING {
            anyhow::bail!(
                "at most {MAX_RUNNING} jobs run at once; stop one with job_stop first (running: {})",
                running.join(", ")
            );
        }
        let connection = if terminal { Connection::Terminal } else { Connection::Piped };
        let spawned = run_command::spawn(command, cwd, contained, connection)?;
        let output = fd::Fd::new(spawned.output)?;
        let input = spawned.input.map(fd::Fd::new).transpose()?;
        let id = table.last + 1;
        table.last = id;
        let job = Arc::new(Job {
            id,
            command: command.to_string(),
            terminal,
            contained,
            state: Mutex::new(State { output: Ring::new(KEPT), status: None, note: None }),
            changed: watch::Sender::new(0),
            stop: CancellationToken::new(),
            input: tokio::sync::Mutex::new(input),
            killer: spawned.running.killer(),
            pid: spawned.running.pid(),
        });
        table.jobs.insert(id, Arc::clone(&job));
        let ended: Vec<u32> = table.jobs.values().filter(|j| !j.running()).map(|j| j.id).collect();
        for id in ended.iter().take(ended.len().saturating_sub(MAX_ENDED)) {
            table.jobs.remove(id);
        }
        tokio::spawn(follow(Arc::clone(&job), spawned.running, output));
        Ok(job)
    }

    /// The job numbered `id`, or the message for the model.
    pub fn get(&self, id: u64) -> Result<Arc<Job>, String> {
        let table = lock(&self.table);
        let found = u32::try_from(id).ok().and_then(|id| table.jobs.get(&id).cloned());
        found.ok_or_else(|| {
            let ids: Vec<String> = table.jobs.keys().map(u32::to_string).collect();
            match ids.is_empty() {
                true => format!("no job {id}: there are no jobs"),
                false => format!("no job {id} (jobs: {})", ids.join(", ")),
            }
        })
    }

    /// Every job kept, by number.
    pub fn list(&self) -> Vec<Arc<Job>> {
        lock(&self.table).jobs.values().cloned().collect()
    }

    /// Kills job `id` and its processes now (`/jobs stop N`); what to tell the user.
    pub fn stop_now(&self, id: u64) -> Result<String, String> {
        let job = self.get(id)?;
        if !job.running() {
            return Ok(format!("Job {} had already ended.", job.id));
        }
        job.kill();
        Ok(format!("Job {} stopped: {}", job.id, job.command.replace('\n', " ")))
    }

    /// Kills every running job and its processes (the session ends, or is cleared).
    pub fn stop_all(&self) {
        for job in self.list() {
            job.kill();
        }
    }

    /// The jobs as `/jobs` shows them: number, state, output size, command.
    pub fn describe(&self) -> String {
        let rows = self.rows();
        if rows.is_empty() {
            return "No jobs.".to_string();
        }
        let lines: Vec<String> = rows
            .iter()
            .map(|row| {
                let tty = if row.terminal { " pty" } else { "" };
                format!("%{:<3} {:<10} {:>9}{tty}  {}", row.id, row.state, row.output, row.command)
            })
            .collect();
        lines.join("\n")
    }

    /// The jobs as rows (`AgentEvent::Jobs`, the TUI's jobs popup), oldest first.
    pub fn rows(&self) -> Vec<JobRow> {
        self.list()
            .iter()
            .map(|job| {
                let state = lock(&job.state);
                let status = match state.status {
                    None => "running".to_string(),
                    Some(Status::Exited(code)) => format!("exited {code}"),
                    Some(Status::Stopped) => "stopped".to_string(),
                };
                JobRow {
                    id: job.id,
                    command: job.command.replace('\n', " "),
                    running: state.status.is_none(),
                    state: status,
                    output: size(state.output.written()),
                    terminal: job.terminal,
                }
            })
            .collect()
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// `bytes` in a few characters: `512 B`, `3.2 KiB`, `1.0 GiB`.
fn size(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.1} {}", units[unit]),
    }
}

/// The job's task: reads its output until it ends or is stopped, then its status.
async fn follow(job: Arc<Job>, mut running: Running, output: fd::Fd) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut open = true;
    let status = loop {
        tokio::select! {
            read = output.read(&mut buf), if open => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => job.push(&buf[..n]),
            },
            status = running.wait() => break Status::Exited(status.unwrap_or(-1)),
            () = job.stop.cancelled() => {
                running.kill().await;
                break Status::Stopped;
            }
        }
    };
    let drain = async {
        while open {
            match output.read(&mut buf).await {
                Ok(0) | Err(_) => open = false,
                Ok(n) => job.push(&buf[..n]),
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_GRACE, drain).await;
    let note = running.settle();
    // Whatever is left of it (a plain job's children) is killed with it.
    drop(running);
    job.input.lock().await.take();
    {
        let mut state = lock(&job.state);
        state.status = Some(status);
        state.note = note;
    }
    job.changed.send_modify(|v| *v += 1);
}

impl Job {
    pub fn running(&self) -> bool {
        lock(&self.state).status.is_none()
    }

    pub fn status(&self) -> Option<Status> {
        lock(&self.state).status
    }

    fn push(&self, bytes: &[u8]) {
        lock(&self.state).output.push(bytes);
        self.changed.send_modify(|v| *v += 1);
    }

    /// Kills the job now (its task sees it and records it stopped).
    fn kill(&self) {
        if let Some(killer) = &self.killer {
            killer.kill();
        }
        self.stop.cancel();
    }

    /// Stops the job and waits (a little) for its end; its status.
    pub async fn stop(&self) -> Option<Status> {
        self.kill();
        self.wait_for_change(Duration::from_secs(5), &CancellationToken::new(), |job| !job.running()).await;
        self.status()
    }

    /// Waits up to `limit` (or until `cancel`) for `done`.
    async fn wait_for_change(&self, limit: Duration, cancel: &CancellationToken, done: impl Fn(&Job) -> bool) {
        let deadline = Instant::now() + limit;
        let mut changes = self.changed.subscribe();
        while !done(self) {
            tokio::select! {
                changed = tokio::time::timeout_at(deadline, changes.changed()) => match changed {
                    Ok(Ok(())) => {}
                    _ => return,
                },
                () = cancel.cancelled() => return,
            }
        }
    }

    /// What arrived since the last read, waiting up to `wait` for something new (then for
    /// the output to pause, `QUIET`), or until the job ends or `cancel` fires.
    pub async fn read(&self, wait: Duration, cancel: &CancellationToken) -> Taken {
        let deadline = Instant::now() + wait.min(MAX_WAIT);
        let something = |job: &Job| {
            let state = lock(&job.state);
            state.status.is_some() || state.output.has_unread()
        };
        self.wait_for_change(wait.min(MAX_WAIT), cancel, something).await;
        // Let a burst finish: a prompt's answer comes in a few writes.
        if something(self) {
            let deadline = deadline.min(Instant::now() + BURST);
            let mut changes = self.changed.subscribe();
            while self.running() && Instant::now() < deadline && !cancel.is_cancelled() {
                let pause = QUIET.min(deadline.saturating_duration_since(Instant::now()));
                match tokio::time::timeout(pause, changes.changed()).await {
                    Ok(Ok(())) => {}
                    _ => break,
                }
            }
        }
        self.take()
    }

    /// What arrived since the last read, capped (`READ_CAP`, head and tail).
    pub fn take(&self) -> Taken {
        let mut state = lock(&self.state);
        let ended = state.status.is_some();
        let unread = state.output.take(ended);
        let mut capped = CappedText::new(READ_CAP);
        capped.push(&unread.bytes);
        let mut text = capped.finish();
        if self.terminal {
            text = text.replace("\r\n", "\n");
        }
        Taken { text, dropped: unread.dropped, status: state.status, note: state.note.clone() }
    }

    /// Sends `text`, then the named `keys`, to the job. On a job without a terminal,
    /// `Ctrl+C` is SIGINT to its processes and `Ctrl+D` closes its input. The bytes written.
    pub async fn send(&self, text: &str, keys: &[String]) -> Result<usize, String> {
        let keys: Vec<Vec<u8>> = keys.iter().map(|name| keys::bytes(name)).collect::<Result<_, _>>()?;
        if !self.running() {
            return Err(format!("job {} has ended; its input is closed", self.id));
        }
        let mut pieces: Vec<Vec<u8>> = keys;
        if !text.is_empty() {
            pieces.insert(0, text.as_bytes().to_vec());
        }
        let mut input = self.input.lock().await;
        let mut sent = 0;
        for piece in pieces {
            if !self.terminal && piece == [3] {
                self.interrupt();
                continue;
            }
            if !self.terminal && piece == [4] {
                input.take();
                continue;
            }
            let Some(fd) = input.as_ref() else {
                return Err(format!("job {}'s input is closed (Ctrl+D closed it)", self.id));
            };
            let written =
                fd.write_all(&piece, INPUT_LIMIT).await.map_err(|e| format!("cannot write to job {}: {e}", self.id))?;
            sent += written;
            if written < piece.len() {
                return Err(format!(
                    "job {} did not read its input: {sent} bytes were written in {}s",
                    self.id,
                    INPUT_LIMIT.as_secs()
                ));
            }
        }
        Ok(sent)
    }

    /// SIGINT to the job's process group (a job without a terminal; Ctrl+Break on Windows).
    fn interrupt(&self) {
        if let (Some(pid), true) = (self.pid, self.running()) {
            // The job has not been reaped (it runs), so the number is still its.
            crate::process_tree::interrupt_group(pid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_job_runs_past_the_call_and_its_output_is_read_in_pieces() {
        let jobs = Jobs::new();
        let job = jobs.start("echo one; read line; echo got $line; sleep 30", None, false, false).unwrap();
        let first = job.read(Duration::from_secs(5), &CancellationToken::new()).await;
        assert_eq!(first.text, "one\n");
        assert_eq!(first.status, None);
        job.send("two\n", &[]).await.unwrap();
        let second = job.read(Duration::from_secs(5), &CancellationToken::new()).await;
        assert_eq!(second.text, "got two\n");
        assert_eq!(job.stop().await, Some(Status::Stopped));
        assert!(jobs.describe().contains("stopped"), "{}", jobs.describe());
    }

    #[tokio::test]
    async fn ctrl_d_closes_the_input_and_the_status_is_kept() {
        let jobs = Jobs::new();
        let job = jobs.start("cat; exit 3", None, false, false).unwrap();
        job.send("hi\n", &["Ctrl+D".to_string()]).await.unwrap();
        job.wait_for_change(Duration::from_secs(5), &CancellationToken::new(), |j| !j.running()).await;
        let read = job.take();
        assert_eq!((read.text.as_str(), read.status), ("hi\n", Some(Status::Exited(3))));
        assert!(job.send("more", &[]).await.unwrap_err().contains("ended"));
    }

    #[tokio::test]
    async fn past_the_limit_a_job_is_refused() {
        let jobs = Jobs::new();
        for _ in 0..MAX_RUNNING {
            jobs.start("sleep 30", None, false, false).unwrap();
        }
        let error = jobs.start("sleep 30", None, false, false).err().unwrap().to_string();
        assert!(error.contains("at most 16 jobs"), "{error}");
        jobs.stop_all();
    }

    #[tokio::test]
    async fn a_terminal_job_is_a_terminal() {
        let jobs = Jobs::new();
        let job = jobs.start("test -t 0 && test -t 1 && echo tty; echo $TERM", None, false, true).unwrap();
        job.wait_for_change(Duration::from_secs(5), &CancellationToken::new(), |j| !j.running()).await;
        assert_eq!(job.take().text, "tty\ndumb\n");
    }
}
