//! The session's language servers, one per configured name, started at the first edit of
//! a file they serve (a program not on PATH is looked for once), and what one edit gets:
//! the server started and initialized, the file's text sent, then the wait for its
//! diagnostics — until the server publishes them for this version (or, without versions,
//! `SETTLE` after it publishes), until it has been silent for the configured wait (not on
//! a server's first edit, whose analysis may be silent for longer), or at the hard cap,
//! whichever comes first, and at once when the call is cancelled. A server
//! that cannot start, fails or floods is reported with the edit that finds it so, once,
//! and not used again this session.

use super::config::{Config, ServerSpec};
use super::diagnostics::Diag;
use super::server::{Contain, Server};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::time::Instant as TokioInstant;
use tokio_util::sync::CancellationToken;

/// How long an edit waits for a newer publication after one without a version.
const SETTLE: Duration = Duration::from_millis(100);

/// What an edit gets.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The file's errors and warnings (cut), and how many there were.
    Diagnostics { diags: Vec<Diag>, total: usize },
    /// A note for the model and no diagnostics.
    Note(String),
    /// Nothing to say (no server, one reported before, the call cancelled).
    Quiet,
}

enum Slot {
    Running(Arc<Server>),
    /// Not on PATH, failed, or reported: not tried again.
    Off,
}

/// The servers of one session (one plugin setup).
pub struct Servers {
    config: Config,
    root: PathBuf,
    contain: Contain,
    slots: Mutex<HashMap<String, Slot>>,
}

impl Servers {
    pub fn new(config: Config, root: PathBuf, contain: Contain) -> Self {
        Servers { config, root, contain, slots: Mutex::default() }
    }

    /// The server for `path` and the file's language, when one is configured and on.
    pub fn applies(&self, path: &Path) -> Option<(&ServerSpec, &str)> {
        if self.config.disabled {
            return None;
        }
        self.config.server_for(&super::uri::extension(path)?)
    }

    /// Stops every server (`/clear`); the next edit starts them again.
    pub fn stop_all(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Turns `name` off; the note to give, once.
    fn off(&self, name: &str, note: String) -> Outcome {
        match self.lock().insert(name.to_string(), Slot::Off) {
            Some(Slot::Off) => Outcome::Quiet,
            _ => Outcome::Note(note),
        }
    }

    /// The running server for `spec`, started now if it is not yet; the outcome to give
    /// instead when there is none.
    fn server(&self, spec: &ServerSpec) -> Result<Arc<Server>, Outcome> {
        match self.lock().get(&spec.name) {
            Some(Slot::Running(server)) => return Ok(server.clone()),
            Some(Slot::Off) => return Err(Outcome::Quiet),
            None => {}
        }
        let Some(program) = spec.command.first().and_then(|p| find_program(p, &self.root)) else {
            let note = spec.source.as_ref().map(|source| {
                format!(
                    "no diagnostics: the language server {:?} named in {} is not on PATH",
                    spec.command.first().map(String::as_str).unwrap_or_default(),
                    source.display()
                )
            });
            self.lock().insert(spec.name.clone(), Slot::Off);
            return Err(note.map_or(Outcome::Quiet, Outcome::Note));
        };
        let command: Vec<String> =
            std::iter::once(program.to_string_lossy().into_owned()).chain(spec.command[1..].iter().cloned()).collect();
        match Server::start(&spec.name, &command, &self.root, &self.contain) {
            Ok(server) => {
                let server = Arc::new(server);
                let mut slots = self.lock();
                // Another edit may have started it meanwhile: keep the first.
                let slot = slots.entry(spec.name.clone()).or_insert_with(|| Slot::Running(server));
                match slot {
                    Slot::Running(server) => Ok(server.clone()),
                    Slot::Off => Err(Outcome::Quiet),
                }
            }
            Err(e) => Err(self.off(&spec.name, format!("no diagnostics: language server {} {e:#}", spec.name))),
        }
    }

    /// Sends `text`, the new content of `path`, to its server and waits for the file's
    /// diagnostics, within the configured bounds.
    pub async fn after_edit(&self, path: &Path, text: &str, cancel: &CancellationToken) -> Outcome {
        let Some((spec, language)) = self.applies(path) else { return Outcome::Quiet };
        let start = TokioInstant::now();
        let hard = start + self.config.cap;
        let server = match self.server(spec) {
            Ok(server) => server,
            Err(outcome) => return outcome,
        };
        let mut ticks = server.ticks();
        // The handshake, within the cap.
        loop {
            let (ready, failure) = server.state(|s| (s.ready, s.failure()));
            if let Some(failure) = failure {
                return self.failed(spec, &failure);
            }
            if ready {
                break;
            }
            if TokioInstant::now() >= hard {
                let secs = self.config.cap.as_secs_f32();
                server.fail(format!("did not answer `initialize` within {secs:.1} s"));
                return self.failed(spec, &server.state(|s| s.failure()).unwrap_or_default());
            }
            tokio::select! {
                _ = ticks.changed() => {}
                () = tokio::time::sleep_until(hard) => {}
                () = cancel.cancelled() => return Outcome::Quiet,
            }
        }
        let version = server.sync(path, language, text);
        let sent = Instant::now();
        // A server's first analysis may be silent for longer than the wait: only the cap
        // bounds the first edit's wait.
        let wait = if server.first_wait() { self.config.cap } else { self.config.wait };
        let mut first_match: Option<TokioInstant> = None;
        loop {
            let (found, last_message, failure) = server.state(|s| {
                let found = s.published(path).filter(|p| p.at >= sent && p.version.is_none_or(|v| v >= version));
                (found.cloned(), s.last_message, s.failure())
            });
            if let Some(failure) = failure {
                return self.failed(spec, &failure);
            }
            let now = TokioInstant::now();
            if let Some(published) = &found {
                if published.version == Some(version) {
                    return Outcome::Diagnostics { diags: published.diags.clone(), total: published.total };
                }
                first_match.get_or_insert(now);
            }
            let heard = TokioInstant::from_std(last_message.max(sent));
            let mut deadline = hard.min(heard + wait);
            if let Some(first) = first_match {
                deadline = deadline.min(first + SETTLE);
            }
            if now >= deadline {
                return match found {
                    Some(p) => Outcome::Diagnostics { diags: p.diags, total: p.total },
                    None => Outcome::Note(format!(
                        "no diagnostics: {} sent none for this file within {:.1} s",
                        spec.name,
                        (now - start).as_secs_f32()
                    )),
                };
            }
            tokio::select! {
                _ = ticks.changed() => {}
                () = tokio::time::sleep_until(deadline) => {}
                () = cancel.cancelled() => return Outcome::Quiet,
            }
        }
    }

    fn failed(&self, spec: &ServerSpec, failure: &str) -> Outcome {
        let extensions: Vec<String> = spec.languages.iter().map(|(e, _)| format!(".{e}")).collect();
        let note = format!(
            "no diagnostics: language server {} {failure}; it is off for {} files this session",
            spec.name,
            extensions.join(" ")
        );
        self.off(&spec.name, note)
    }
}

/// Where `program` is: a path with a slash (relative to the project root), else the first
/// executable file of that name on PATH.
fn find_program(program: &str, root: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        let path = root.join(program);
        return runnable(&path).then_some(path);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join(program)).find(|p| p.is_absolute() && runnable(p))
}

/// Whether `path` is a file this user may run.
#[cfg(unix)]
fn runnable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether `path` is a program: a file, as named or with `.exe`, `.cmd` or `.bat`.
#[cfg(windows)]
fn runnable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        || ["exe", "cmd", "bat"]
            .iter()
            .any(|ext| std::fs::metadata(path.with_extension(ext)).is_ok_and(|m| m.is_file()))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::plugins::lsp::config::Config;

    /// Answers `initialize`, then publishes nothing and reads until its input closes.
    const QUIET: &str = r#"
import json, sys
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
request = read()
body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"capabilities": {}}}).encode()
sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
sys.stdout.buffer.flush()
while True:
    read()
"#;

    fn servers(dir: &Path) -> Servers {
        let script = dir.join("quiet.py");
        std::fs::write(&script, QUIET).unwrap();
        let mut config = Config { wait: Duration::from_millis(200), cap: Duration::from_secs(1), ..Config::default() };
        let text = serde_json::json!({"servers": {"quiet": {"command": ["python3", script], "extensions": ["q"]}}});
        super::super::config::apply(&text.to_string(), &dir.join("lsp.json"), &mut config).unwrap();
        let contain: Contain = Arc::new(|cmd: &mut tokio::process::Command, _: &Path| {
            crate::process_tree::own_group(cmd);
            Ok(())
        });
        Servers::new(config, dir.to_path_buf(), contain)
    }

    fn pids(servers: &Servers) -> Vec<i32> {
        let slots = servers.lock();
        slots.values().filter_map(|slot| if let Slot::Running(s) = slot { s.pid() } else { None }).collect()
    }

    fn alive(pid: i32) -> bool {
        crate::process_tree::read(pid).is_some_and(|p| !p.zombie)
    }

    async fn gone(pid: i32) -> bool {
        for _ in 0..200 {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_silent_server_is_noted_and_stop_all_and_dropping_kill_the_servers() {
        let dir = tempfile::tempdir().unwrap();
        let servers = servers(dir.path());
        let file = dir.path().join("a.q");
        let cancel = CancellationToken::new();
        let outcome = servers.after_edit(&file, "x", &cancel).await;
        assert!(matches!(&outcome, Outcome::Note(n) if n.contains("quiet sent none for this file")), "{outcome:?}");
        let first = pids(&servers);
        assert_eq!(first.len(), 1);
        assert!(alive(first[0]));
        servers.stop_all();
        assert!(gone(first[0]).await, "/clear kills it");
        // The next edit starts it again; dropping the servers (the session's end) kills it.
        servers.after_edit(&file, "y", &cancel).await;
        let second = pids(&servers);
        assert!(second.len() == 1 && second != first, "{second:?}");
        drop(servers);
        assert!(gone(second[0]).await, "the session's end kills it");
    }
}
