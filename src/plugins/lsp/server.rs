//! One running language server: the child process (started through the `Contain` that
//! `startup` hands over: in the sandbox, like a command, when the sandbox is on), the
//! `initialize` handshake, and three tasks — a writer fed through a bounded outbox, a
//! reader that answers the server's requests and keeps the newest diagnostics of the files
//! elelem opened, and a watcher of its stderr (a bounded tail) and its exit. What the
//! tasks learn is in `State`, and every change ticks a `watch` the waiting edit follows.
//! A server that exits, breaks the framing, floods (`FLOOD_BYTES` in `FLOOD_WINDOW`) or
//! stops reading its input is marked failed and killed (its process group).

use super::diagnostics::{self, Diag};
use super::framing::{self, FrameError, Reader};
use super::uri;
use lsp_types::{
    ClientCapabilities, InitializeParams, PublishDiagnosticsClientCapabilities, PublishDiagnosticsParams,
    TextDocumentClientCapabilities, WorkspaceFolder,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// Prepares a server's command before it starts (`startup`: secret variables removed, and
/// contained in the sandbox when it is on, else a process group of its own); the second
/// argument is the project root.
pub type Contain = Arc<dyn Fn(&mut tokio::process::Command, &Path) -> anyhow::Result<()> + Send + Sync>;

/// Bytes a server may send within `FLOOD_WINDOW` before it counts as flooding.
pub const FLOOD_BYTES: usize = 64 * 1024 * 1024;
pub const FLOOD_WINDOW: Duration = Duration::from_secs(10);
/// Bytes queued for a server that does not read them, at most.
const MAX_PENDING: usize = 32 * 1024 * 1024;
/// Bytes of stderr kept (the end), for the failure note.
const STDERR_TAIL: usize = 2048;
/// How long a server that closed its output is given to exit, so the note says how it
/// ended.
const EXIT_GRACE: Duration = Duration::from_millis(300);
/// The id of the `initialize` request.
const INITIALIZE: i64 = 1;

/// What a server published for one file.
#[derive(Clone, Debug)]
pub struct Published {
    pub version: Option<i32>,
    pub at: Instant,
    pub diags: Vec<Diag>,
    /// Errors and warnings in all, before any cut.
    pub total: usize,
}

/// What the tasks know of the server.
#[derive(Debug)]
pub struct State {
    /// `initialize` answered.
    pub ready: bool,
    /// Why it is no longer used.
    pub failed: Option<String>,
    /// When its last message came.
    pub last_message: Instant,
    published: HashMap<PathBuf, Published>,
    /// The files elelem opened (only their diagnostics are kept).
    open: HashSet<PathBuf>,
    stderr: Vec<u8>,
    window: (Instant, usize),
}

impl State {
    fn new() -> State {
        let now = Instant::now();
        State {
            ready: false,
            failed: None,
            last_message: now,
            published: HashMap::new(),
            open: HashSet::new(),
            stderr: Vec::new(),
            window: (now, 0),
        }
    }

    pub fn published(&self, path: &Path) -> Option<&Published> {
        self.published.get(path)
    }

    /// The failure with a line of the server's stderr: the last that names an error (a
    /// backtrace may follow it), else the last.
    pub fn failure(&self) -> Option<String> {
        let failed = self.failed.as_ref()?;
        let stderr = String::from_utf8_lossy(&self.stderr);
        let lines = || stderr.lines().rev().map(diagnostics::clean).filter(|l| !l.is_empty());
        let last = lines().find(|l| l.to_ascii_lowercase().contains("error")).or_else(|| lines().next());
        Some(match last {
            Some(line) => format!("{failed} (stderr: {})", line.chars().take(200).collect::<String>()),
            None => failed.clone(),
        })
    }
}

struct Shared {
    state: Mutex<State>,
    tick: watch::Sender<u64>,
    pid: Option<i32>,
}

impl Shared {
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let r = f(&mut self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        self.tick.send_modify(|n| *n = n.wrapping_add(1));
        r
    }

    /// Marks the server failed (the first reason stays) and kills it.
    fn fail(&self, reason: impl Into<String>) {
        let reason = reason.into();
        self.with(|s| s.failed.get_or_insert(reason).clone());
        self.kill();
    }

    fn kill(&self) {
        if let Some(pid) = self.pid {
            // The group is the server's own (it leads it).
            crate::process_tree::kill_group(pid);
        }
    }
}

/// Messages on their way to the server's stdin.
#[derive(Clone)]
struct Outbox {
    tx: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<AtomicUsize>,
    shared: Arc<Shared>,
}

impl Outbox {
    fn send(&self, message: &Value) {
        let framed = framing::frame(message.to_string().as_bytes());
        if self.pending.fetch_add(framed.len(), Ordering::SeqCst) + framed.len() > MAX_PENDING {
            return self.shared.fail("does not read its input");
        }
        let _ = self.tx.send(framed);
    }
}

/// A started server.
pub struct Server {
    pub name: String,
    outbox: Outbox,
    /// Each open file's version.
    versions: Mutex<HashMap<PathBuf, i32>>,
    /// An edit has waited on it once (its first analysis, done or not).
    warm: std::sync::atomic::AtomicBool,
    tasks: Vec<JoinHandle<()>>,
    _own: crate::process_tree::Own,
}

impl Server {
    /// Starts `command` in `root` and sends `initialize`; an error when it cannot start.
    pub fn start(name: &str, command: &[String], root: &Path, contain: &Contain) -> anyhow::Result<Server> {
        let (program, args) = command.split_first().ok_or_else(|| anyhow::anyhow!("no command"))?;
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        contain(&mut cmd, root)?;
        let (mut child, own) = crate::process_tree::own(|| cmd.spawn(), |c| c.id().and_then(|p| i32::try_from(p).ok()))
            .map_err(|e| anyhow::anyhow!("cannot start {program}: {e}"))?;
        let pid = child.id().and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0);
        if let Some(pid) = pid {
            registry(|pids| pids.insert(pid));
        }
        let shared = Arc::new(Shared { state: Mutex::new(State::new()), tick: watch::channel(0).0, pid });
        let (tx, rx) = mpsc::unbounded_channel();
        let outbox = Outbox { tx, pending: Arc::default(), shared: shared.clone() };
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let mut tasks = Vec::new();
        if let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) {
            tasks.push(tokio::spawn(write(stdin, rx, outbox.clone())));
            tasks.push(tokio::spawn(read(stdout, outbox.clone(), root.to_path_buf())));
            tasks.push(tokio::spawn(watch_exit(child, stderr, shared.clone())));
        } else {
            shared.fail("has no pipes");
        }
        outbox.send(&json!({"jsonrpc": "2.0", "id": INITIALIZE, "method": "initialize", "params": initialize(root)}));
        Ok(Server {
            name: name.to_string(),
            outbox,
            versions: Mutex::default(),
            warm: Default::default(),
            tasks,
            _own: own,
        })
    }

    /// Runs `f` on the state.
    pub fn state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.outbox.shared.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    /// A receiver that wakes at every change of the state.
    pub fn ticks(&self) -> watch::Receiver<u64> {
        self.outbox.shared.tick.subscribe()
    }

    /// Tells the server the file's new text (opening it the first time); the version sent.
    pub fn sync(&self, path: &Path, language: &str, text: &str) -> i32 {
        let uri = uri::from_path(path);
        let mut versions = self.versions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let message = match versions.get_mut(path) {
            Some(version) => {
                *version += 1;
                json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": *version}, "contentChanges": [{"text": text}]}})
            }
            None => {
                versions.insert(path.to_path_buf(), 1);
                self.outbox.shared.with(|s| s.open.insert(path.to_path_buf()));
                json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                    "textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}})
            }
        };
        self.outbox.send(&message);
        versions.get(path).copied().unwrap_or(1)
    }

    /// Whether this is the first wait on it (and marks it warm): a server's first analysis
    /// (indexing a project) may be silent for longer than the usual wait.
    pub fn first_wait(&self) -> bool {
        !self.warm.swap(true, Ordering::SeqCst)
    }

    /// Its process id (the leader of its process group).
    pub fn pid(&self) -> Option<i32> {
        self.outbox.shared.pid
    }

    /// Gives up on the server: marks it failed and kills it.
    pub fn fail(&self, reason: impl Into<String>) {
        self.outbox.shared.fail(reason);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.outbox.shared.kill();
        if let Some(pid) = self.outbox.shared.pid {
            registry(|pids| pids.remove(&pid));
        }
    }
}

/// The pids of running servers (for `stop_all`).
fn registry<R>(f: impl FnOnce(&mut HashSet<i32>) -> R) -> R {
    static PIDS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);
    let mut pids = PIDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(pids.get_or_insert_with(HashSet::new))
}

/// Kills every server still running (on the way out, signals included).
pub fn stop_all() {
    for pid in registry(std::mem::take) {
        crate::process_tree::kill_group(pid);
    }
}

/// The `initialize` parameters: the project as the workspace, diagnostics with versions.
fn initialize(root: &Path) -> Value {
    let root_uri = uri::from_path(root).parse::<lsp_types::Uri>().ok();
    let name = root.file_name().map_or("project".into(), |n| n.to_string_lossy().into_owned());
    #[allow(deprecated)] // rootUri: older servers read only it.
    let params = InitializeParams {
        // None: a contained server in a user namespace of its own may not signal elelem, and
        // servers built on vscode-languageserver take a failed `kill(pid, 0)` for their
        // parent's death and exit; elelem stops its servers itself.
        process_id: None,
        root_uri: root_uri.clone(),
        workspace_folders: root_uri.map(|uri| vec![WorkspaceFolder { uri, name }]),
        capabilities: ClientCapabilities {
            text_document: Some(TextDocumentClientCapabilities {
                publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                    version_support: Some(true),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    serde_json::to_value(params).unwrap_or(Value::Null)
}

async fn write(mut stdin: tokio::process::ChildStdin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>, outbox: Outbox) {
    while let Some(bytes) = rx.recv().await {
        let written = stdin.write_all(&bytes).await.and(stdin.flush().await);
        outbox.pending.fetch_sub(bytes.len(), Ordering::SeqCst);
        if let Err(e) = written {
            return outbox.shared.fail(format!("stopped reading its input ({e})"));
        }
    }
}

async fn read(stdout: tokio::process::ChildStdout, outbox: Outbox, root: PathBuf) {
    let mut reader = Reader::new(stdout);
    loop {
        let body = match reader.next().await {
            Ok(body) => body,
            Err(e) => {
                if matches!(e, FrameError::Closed | FrameError::Truncated) {
                    // It is probably exiting: its status (and stderr) say more, when they come.
                    tokio::time::sleep(EXIT_GRACE).await;
                }
                return outbox.shared.fail(e.to_string());
            }
        };
        let flooded = outbox.shared.with(|s| {
            s.last_message = Instant::now();
            if s.window.0.elapsed() > FLOOD_WINDOW {
                s.window = (Instant::now(), 0);
            }
            s.window.1 += body.len();
            s.window.1 > FLOOD_BYTES
        });
        if flooded {
            let mib = FLOOD_BYTES >> 20;
            return outbox.shared.fail(format!("flooded elelem (over {mib} MiB in {} s)", FLOOD_WINDOW.as_secs()));
        }
        let Ok(message) = serde_json::from_slice::<Value>(&body) else { continue };
        handle(message, &outbox, &root);
    }
}

/// One message from the server.
fn handle(message: Value, outbox: &Outbox, root: &Path) {
    let method = message.get("method").and_then(Value::as_str);
    match (method, message.get("id")) {
        // A request: answer it, or the server may wait for us.
        (Some(method), Some(id)) => {
            let result = match method {
                "workspace/configuration" => {
                    let items = message["params"]["items"].as_array().map_or(0, Vec::len);
                    Some(Value::Array(vec![Value::Null; items.min(1024)]))
                }
                "workspace/workspaceFolders" => Some(json!([{"uri": uri::from_path(root), "name": "project"}])),
                "client/registerCapability" | "client/unregisterCapability" | "window/workDoneProgress/create" => {
                    Some(Value::Null)
                }
                _ => None,
            };
            let answer = match result {
                Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                None => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "not supported"}}),
            };
            outbox.send(&answer);
        }
        (Some("textDocument/publishDiagnostics"), None) => {
            let Ok(params) = serde_json::from_value::<PublishDiagnosticsParams>(message["params"].clone()) else {
                return;
            };
            let Some(path) = uri::to_path(params.uri.as_str()) else { return };
            let (diags, total) = diagnostics::kept(&params.diagnostics);
            outbox.shared.with(|s| {
                if s.open.contains(&path) {
                    let published = Published { version: params.version, at: Instant::now(), diags, total };
                    s.published.insert(path, published);
                }
            });
        }
        (None, Some(id)) if id.as_i64() == Some(INITIALIZE) => match message.get("error") {
            Some(error) => {
                let text = diagnostics::clean(error["message"].as_str().unwrap_or("no message"));
                outbox.shared.fail(format!("refused to initialize: {text}"));
            }
            None => {
                outbox.send(&json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
                outbox.shared.with(|s| s.ready = true);
            }
        },
        _ => {}
    }
}

/// Keeps the end of the server's stderr and marks it failed when it exits.
async fn watch_exit(mut child: tokio::process::Child, mut stderr: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let tail = async {
        let mut buf = vec![0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut buf).await {
            shared.with(|s| {
                s.stderr.extend_from_slice(&buf[..n]);
                let extra = s.stderr.len().saturating_sub(STDERR_TAIL);
                s.stderr.drain(..extra);
            });
        }
    };
    tokio::pin!(tail);
    // A descendant may hold stderr open after the server exited: its tail is waited for
    // only briefly then.
    let status = tokio::select! {
        status = child.wait() => {
            let _ = tokio::time::timeout(Duration::from_millis(100), &mut tail).await;
            status
        }
        () = &mut tail => child.wait().await,
    };
    let how = match status {
        Ok(status) => match (status.code(), crate::process_tree::killed_by(&status)) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            _ => "exited".to_string(),
        },
        Err(e) => format!("could not be waited for ({e})"),
    };
    shared.fail(how);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_stderr_line_that_says_error_else_the_last() {
        let mut state = State::new();
        assert_eq!(state.failure(), None);
        state.failed = Some("exited with status 1".into());
        state.stderr = b"error: Unknown binary 'rust-analyzer'\n\nStack backtrace:\n  0: main\n".to_vec();
        let said = "exited with status 1 (stderr: error: Unknown binary 'rust-analyzer')";
        assert_eq!(state.failure().as_deref(), Some(said));
        state.stderr = b"starting\nno project model here\x1b[0m\n".to_vec();
        let said = "exited with status 1 (stderr: no project model here[0m)";
        assert_eq!(state.failure().as_deref(), Some(said));
    }
}
