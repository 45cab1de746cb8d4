//! What elelem knows about each configured MCP server right now: its state (starting,
//! ready with its tools, failed with the reason), its connection, the last lines of its
//! stderr, and a generation that moves whenever its tools change. Connection tasks write
//! here; the toolbox refresh, the tool bridge and `/mcp` read it.

use rmcp::model::Tool as McpTool;
use rmcp::service::{Peer, RoleClient};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// How many stderr lines are kept per server.
const STDERR_LINES: usize = 20;
/// How many of them a failure message shows.
const STDERR_SHOWN: usize = 5;

#[derive(Clone, Debug)]
pub enum State {
    Starting,
    Ready,
    Failed(String),
}

/// One server as it is now.
#[derive(Clone)]
pub struct Server {
    pub name: String,
    /// `stdio: node srv.js` or `http: https://…`.
    pub endpoint: String,
    pub state: State,
    pub tools: Vec<McpTool>,
    pub peer: Option<Peer<RoleClient>>,
    /// Moves whenever `tools` change.
    pub generation: u64,
    /// How long a tool call may wait for its answer.
    pub call_timeout: Duration,
    /// The toolbox names its tools got (unique names may carry a suffix), for `/mcp`.
    pub names: Vec<String>,
}

/// Every configured server, shared between the connection tasks and the session.
pub struct Servers {
    servers: Mutex<Vec<Server>>,
    stderr: Mutex<Vec<(String, VecDeque<String>)>>,
    changed: watch::Sender<u64>,
}

impl Servers {
    pub fn new() -> Arc<Self> {
        Arc::new(Servers {
            servers: Mutex::new(Vec::new()),
            stderr: Mutex::new(Vec::new()),
            changed: watch::channel(0).0,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Server>> {
        self.servers.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a server in the `Starting` state.
    pub fn add(&self, name: &str, endpoint: String, call_timeout: Duration) {
        self.lock().push(Server {
            name: name.to_string(),
            endpoint,
            state: State::Starting,
            tools: Vec::new(),
            peer: None,
            generation: 0,
            call_timeout,
            names: Vec::new(),
        });
        self.bump();
    }

    /// A copy of every server.
    pub fn snapshot(&self) -> Vec<Server> {
        self.lock().clone()
    }

    /// The servers' names.
    pub fn names(&self) -> Vec<String> {
        self.lock().iter().map(|s| s.name.clone()).collect()
    }

    /// A copy of one server.
    pub fn get(&self, name: &str) -> Option<Server> {
        self.lock().iter().find(|s| s.name == name).cloned()
    }

    /// Changes one server and tells whoever waits.
    pub fn update(&self, name: &str, change: impl FnOnce(&mut Server)) {
        if let Some(server) = self.lock().iter_mut().find(|s| s.name == name) {
            change(server);
        }
        self.bump();
    }

    /// The server is up with these tools.
    pub fn ready(&self, name: &str, peer: Peer<RoleClient>, tools: Vec<McpTool>) {
        self.update(name, |s| {
            s.state = State::Ready;
            s.peer = Some(peer);
            s.tools = tools;
            s.generation += 1;
        });
    }

    /// The server's tool list changed.
    pub fn set_tools(&self, name: &str, tools: Vec<McpTool>) {
        self.update(name, |s| {
            s.tools = tools;
            s.generation += 1;
        });
    }

    /// The names its tools got in the toolbox (nobody waits on this).
    pub fn set_names(&self, name: &str, names: Vec<String>) {
        if let Some(server) = self.lock().iter_mut().find(|s| s.name == name) {
            server.names = names;
        }
    }

    /// The server failed (or died); its tools stay listed and fail cleanly.
    pub fn fail(&self, name: &str, reason: String) {
        self.update(name, |s| {
            s.state = State::Failed(reason);
            s.peer = None;
        });
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Whether any server is still starting.
    pub fn any_starting(&self) -> bool {
        self.lock().iter().any(|s| matches!(s.state, State::Starting))
    }

    /// Waits until no server is starting.
    pub async fn settled(&self) {
        let mut changes = self.changed.subscribe();
        while self.any_starting() {
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Waits until server `name` is marked failed: its connection task has said so.
    pub async fn failed(&self, name: &str) {
        let mut changes = self.changed.subscribe();
        while !self.get(name).is_some_and(|s| matches!(s.state, State::Failed(_))) {
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Keeps a line the server wrote on stderr.
    pub fn stderr_line(&self, name: &str, line: String) {
        let mut all = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let lines = match all.iter().position(|(n, _)| n == name) {
            Some(i) => &mut all[i].1,
            None => {
                all.push((name.to_string(), VecDeque::new()));
                let last = all.len() - 1;
                &mut all[last].1
            }
        };
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The last lines of a server's stderr, indented for a message ("" when none).
    pub fn stderr_tail(&self, name: &str) -> String {
        let all = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let Some((_, lines)) = all.iter().find(|(n, _)| n == name) else { return String::new() };
        let shown: Vec<&str> =
            lines.iter().skip(lines.len().saturating_sub(STDERR_SHOWN)).map(String::as_str).collect();
        if shown.is_empty() {
            return String::new();
        }
        format!("\n  stderr:\n    {}", shown.join("\n    "))
    }

    /// The `/mcp` listing.
    pub fn describe(&self) -> String {
        let servers = self.snapshot();
        if servers.is_empty() {
            return "No MCP servers configured (~/.agents/mcp.json, .agents/mcp.json).".to_string();
        }
        let mut text = String::from("MCP servers:");
        for server in servers {
            let state = match &server.state {
                State::Starting => "starting".to_string(),
                State::Ready => format!("ready, {} tools", server.tools.len()),
                State::Failed(reason) => format!("failed: {reason}"),
            };
            text.push_str(&format!("\n  {} ({}) — {state}", server.name, server.endpoint));
            if matches!(server.state, State::Ready) && !server.names.is_empty() {
                text.push_str(&format!("\n    {}", server.names.join(", ")));
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_stderr_lines_and_lists_states() {
        let servers = Servers::new();
        servers.add("a", "stdio: a".into(), Duration::from_secs(1));
        servers.add("b", "stdio: b".into(), Duration::from_secs(1));
        for i in 0..30 {
            servers.stderr_line("b", format!("line {i}"));
        }
        servers.fail("b", "exited".into());
        assert!(servers.any_starting());
        assert!(servers.stderr_tail("b").ends_with("line 25\n    line 26\n    line 27\n    line 28\n    line 29"));
        assert_eq!(servers.stderr_tail("a"), "");
        let listing = servers.describe();
        assert!(listing.contains("a (stdio: a) — starting"), "{listing}");
        assert!(listing.contains("b (stdio: b) — failed: exited"), "{listing}");
    }
}
