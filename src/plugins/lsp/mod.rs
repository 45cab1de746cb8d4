//! Diagnostics after edits (issue 40): after a successful call of a tool that edits files
//! (`Tool::edits_files`), when a language server serves the file's extension, its errors
//! and warnings for the file come back in the result, `diagnostics: [{line, severity,
//! message}]` (at most `max_diagnostics`, with `diagnostics_omitted` when more), or a
//! `diagnostics_note` saying why there are none (a server that cannot start, fails,
//! floods or stays silent; a broken server is reported once and then left off). An edit
//! of a file no server serves costs a lookup in a small table.
//!
//! `config.rs`: which server serves what, the limits, `lsp.json`; `servers.rs`: the
//! session's servers and the bounded wait of one edit; `server.rs`: one server process
//! and its protocol tasks; `framing.rs`: `Content-Length` framing; `diagnostics.rs`:
//! what of a diagnostic is kept; `uri.rs`: file URIs. Servers are killed with the
//! session: when its toolbox goes (`/reload` too), at `/clear`, and by `stop_all` on the
//! way out.

pub mod config;
pub mod diagnostics;
pub mod framing;
pub mod server;
pub mod servers;
pub mod uri;

pub use server::{stop_all, Contain};

use super::trust::{project_root, ProjectTrust};
use crate::agent::{AgentEvent, HookCall, Plugin, Session};
use serde_json::{json, Value};
use servers::{Outcome, Servers};
use std::path::PathBuf;
use std::sync::Arc;

/// Bytes of an edited file sent to its server at most (a larger file gets no diagnostics).
const MAX_TEXT: u64 = 4 * 1024 * 1024;

/// The plugin: reads the configuration at each setup and keeps the session's servers in
/// its hooks.
pub struct LspPlugin {
    home: Option<PathBuf>,
    cwd: PathBuf,
    trust: ProjectTrust,
    contain: Contain,
}

impl LspPlugin {
    /// `contain` prepares each server's command (`startup`: the sandbox when it is on).
    pub fn new(home: Option<PathBuf>, cwd: PathBuf, trust: ProjectTrust, contain: Contain) -> Self {
        LspPlugin { home, cwd, trust, contain }
    }
}

impl Plugin for LspPlugin {
    fn name(&self) -> &str {
        "lsp"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        // TRUST: a project's lsp.json names programs to run: read only when trusted.
        let config = config::load(self.home.as_deref(), &self.cwd, self.trust.is_trusted());
        for notice in &config.notices {
            session.output().emit(AgentEvent::Warning(notice.clone()));
        }
        let max = config.max_diagnostics;
        let servers = Arc::new(Servers::new(config, project_root(&self.cwd), self.contain.clone()));
        let cleared = servers.clone();
        session.observe_only(|event| matches!(event, AgentEvent::Cleared), Arc::new(move |_| cleared.stop_all()));
        session.toolbox_mut().after(None, move |call: HookCall, result: Value| {
            let servers = servers.clone();
            async move {
                if !call.tool.edits_files || result.get("error").is_some() || !result.is_object() {
                    return Ok(result);
                }
                let Some(path) = call.context.resolved_paths().first().map(|p| p.real.clone()) else {
                    return Ok(result);
                };
                if servers.applies(&path).is_none() {
                    return Ok(result);
                }
                let text = match call.context.read_routed(&path).await {
                    Some(text) => text.ok(),
                    None => {
                        let read = path.clone();
                        let reading = move || crate::safe_file::Reading::capped(MAX_TEXT).text(&read).ok();
                        call.context.blocking(reading).await.ok().flatten()
                    }
                };
                let Some(text) = text else { return Ok(result) };
                let outcome = servers.after_edit(&path, &text, &call.context.cancel).await;
                Ok(with_outcome(result, outcome, max))
            }
        });
        Ok(())
    }
}

/// `result` with what the server said.
fn with_outcome(mut result: Value, outcome: Outcome, max: usize) -> Value {
    match outcome {
        Outcome::Diagnostics { mut diags, total } => {
            diags.truncate(max);
            result["diagnostics"] = Value::Array(diags.iter().map(|d| d.to_json()).collect());
            if total > diags.len() {
                result["diagnostics_omitted"] = json!(total - diags.len());
            }
        }
        Outcome::Note(note) => result["diagnostics_note"] = json!(note),
        Outcome::Quiet => {}
    }
    result
}
