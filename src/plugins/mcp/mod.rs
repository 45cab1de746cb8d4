//! MCP servers as a plugin. Setup reads the configuration (`config`), starts one
//! background connection task per server (`connection`) and returns at once: nothing at
//! startup waits for a server. Before each turn and each slash command the session runs
//! this plugin's `before_line` hook, which adds the tools of servers that became ready
//! since (and replaces those whose list changed) — so a server that is ready while the user
//! types has its tools in the next turn. A headless run (`ask`) first waits there for every
//! server to settle (ready or failed, bounded by the handshake time limit) before its turn.
//! `/mcp` lists the servers and their state; `stop_all` ends every server process.

mod bounded;
mod bridge;
pub mod config;
mod connection;
mod listing;
mod naming;
mod processes;
mod servers;

use crate::agent::{AgentEvent, Flow, NextLine, Plugin, Session};
use crate::plugins::trust::ProjectTrust;
use futures::future::BoxFuture;
use servers::Servers;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub use processes::stop_all;

/// How long a server gets for its handshake and first `tools/list`, unless `MCP_TIMEOUT`
/// (milliseconds, as in Claude Code) says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The MCP plugin's settings.
#[derive(Clone, Debug)]
pub struct McpSettings {
    /// Whether the project's `.agents/mcp.json` may start servers (asked at each setup:
    /// trusting the project during a run starts them on `/reload`).
    pub trust: ProjectTrust,
    /// Wait for servers to settle before a turn (no one is watching them start).
    pub headless: bool,
    /// `~`, where `.agents/mcp.json` is read first.
    pub home: Option<PathBuf>,
    /// The project, where `.agents/mcp.json` is read second.
    pub project: PathBuf,
    /// Servers a front end adds (an ACP client's, `session/new`), started after the files'
    /// (a name the files already use keeps the file's server).
    pub extra: Vec<config::ServerConfig>,
}

pub struct McpPlugin {
    settings: McpSettings,
    /// Started once; `/reload` re-registers the tools of the same servers.
    servers: OnceLock<Arc<Servers>>,
    /// Whether the project's servers were started (the project was trusted at a setup).
    project_started: AtomicBool,
    /// Which generation of each server's tools the toolbox holds, and their names (emptied
    /// at each setup, which starts from an empty toolbox).
    installed: Mutex<HashMap<String, (u64, Vec<String>)>>,
}

impl McpPlugin {
    pub fn new(settings: McpSettings) -> Self {
        McpPlugin {
            settings,
            servers: OnceLock::new(),
            project_started: AtomicBool::new(false),
            installed: Mutex::new(HashMap::new()),
        }
    }

    /// Starts the servers of the user's file and, when `trusted`, the project's.
    fn start(&self, session: &Session, trusted: bool) -> Arc<Servers> {
        let servers = Servers::new();
        let mut loaded = config::load(self.settings.home.as_deref(), &self.settings.project, trusted);
        for server in &self.settings.extra {
            if loaded.servers.iter().all(|known| known.name != server.name) {
                loaded.servers.push(server.clone());
            }
        }
        self.launch(session, &servers, loaded);
        servers
    }

    /// Starts the project's servers once the project became trusted after the first setup
    /// (a server the user's file already started under the same name keeps running).
    fn start_project(&self, session: &Session, servers: &Arc<Servers>) {
        let mut loaded = config::load(None, &self.settings.project, true);
        let running = servers.names();
        loaded.servers.retain(|server| !running.contains(&server.name));
        self.launch(session, servers, loaded);
    }

    fn launch(&self, session: &Session, servers: &Arc<Servers>, loaded: config::Loaded) {
        let output = session.output();
        for notice in loaded.notices {
            output.emit(AgentEvent::Warning(notice));
        }
        if loaded.servers.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            output.emit(AgentEvent::Warning("MCP: no async runtime; servers not started".into()));
            return;
        };
        let timeout = std::env::var("MCP_TIMEOUT")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT);
        for server in loaded.servers {
            let endpoint = connection::endpoint(&server);
            output.emit(AgentEvent::Info(format!("MCP server {} starting ({endpoint})", server.name)));
            servers.add(&server.name, endpoint, server.call_timeout);
            runtime.spawn(connection::run(server, servers.clone(), output.clone(), timeout));
        }
    }
}

impl Plugin for McpPlugin {
    fn name(&self) -> &str {
        "mcp"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let trusted = self.settings.trust.is_trusted();
        let servers = self
            .servers
            .get_or_init(|| {
                self.project_started.store(trusted, Ordering::SeqCst);
                self.start(session, trusted)
            })
            .clone();
        if trusted && !self.project_started.swap(true, Ordering::SeqCst) {
            self.start_project(session, &servers);
        }
        let listing = servers.clone();
        session.commands_mut().add("mcp", "", "List MCP servers, their state and tools", move |session, _| {
            session.show(listing.describe());
            Ok(Flow::Continue)
        });
        self.installed.lock().unwrap_or_else(|p| p.into_inner()).clear();
        Ok(())
    }

    fn before_line<'a>(&'a self, session: &'a mut Session, next: NextLine) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some(servers) = self.servers.get().cloned() else { return };
            if self.settings.headless && next == NextLine::Turn {
                servers.settled().await;
            }
            self.install(session, &servers);
        })
    }
}

impl McpPlugin {
    /// Adds the tools of servers that became ready since the last look, and replaces those
    /// whose list changed.
    fn install(&self, session: &mut Session, servers: &Arc<Servers>) {
        let mut installed = self.installed.lock().unwrap_or_else(|p| p.into_inner());
        for server in servers.snapshot() {
            let current = installed.get(&server.name).map(|(generation, _)| *generation);
            if server.generation == 0 || current == Some(server.generation) {
                continue;
            }
            let old = installed.remove(&server.name).map(|(_, names)| names).unwrap_or_default();
            session.toolbox_mut().remove_all(&old);
            let (tools, warnings) = naming::kernel_tools(servers, &server, session.toolbox());
            for warning in warnings {
                session.output().emit(AgentEvent::Warning(warning));
            }
            let names: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
            session.toolbox_mut().add_all(tools);
            servers.set_names(&server.name, names.clone());
            installed.insert(server.name.clone(), (server.generation, names));
        }
    }
}
