//! Tool permissions: the plugin that loads the permission files (`~/.agents/permissions.json`,
//! the user's; `.agents/permissions.json`, the project's, which only tightens until the
//! project is trusted) and installs the `Gate` as a global before hook, so a refusal is an
//! ordinary tool result; and `/permissions`, which shows the policy in force. Its setup
//! also tells the user which of the project's settings folders are refused
//! (`trust::refused_folders`).
//!
//! - `rules.rs`: the files, and how the user's and the project's rules combine;
//! - `shell.rs` + `wrappers.rs`: a shell command parsed into the simple commands it runs;
//! - `matcher.rs`: command prefix rules against a parsed command;
//! - `paths.rs`: where a tool's path arguments point (inside the project or not);
//! - `sandbox.rs`: the files' `"sandbox"` entry and the link to the sandbox for commands;
//! - `gate.rs`: the decision for one call, and the user's answer.
//!
//! Nothing here names a tool: which tools only read, run shell commands or touch paths is
//! asked of each tool.

mod gate;
mod matcher;
mod paths;
mod rules;
mod sandbox;
mod shell;
mod wrappers;

pub use gate::Gate;
pub use matcher::{CommandRules, Judgement};
pub use paths::{resolve, PathRules, Place, Places};
pub use rules::{Permissions, PermissionsError, Policy, Rule, RuleSet, Subject};
pub use sandbox::{SandboxEntry, SandboxLink, SandboxState, OPT_OUT_ARGUMENT};
pub use shell::{ParsedCommand, SimpleCommand};
pub use wrappers::{Reading, Word};

use super::trust::{project_agents, project_root, refused_folders, refused_notice, Trust, TrustStore};
use crate::agent::output::AgentEvent;
use crate::agent::{Flow, Plugin, Session};
use crate::protocol::mode::Mode;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Installs the `Gate` as a global before hook. Reads the files (and the trust store)
/// again on `/reload`; the "always" answers last for the whole session.
pub struct PermissionsPlugin {
    home: Option<PathBuf>,
    project: PathBuf,
    flags: PermissionFlags,
    store: TrustStore,
    always: Arc<Mutex<HashSet<String>>>,
}

/// What the command line says about permissions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PermissionFlags {
    /// Tools allowed without asking (`--allow TOOL`), by any of their names.
    pub allow: Vec<String>,
    /// Every call that is not denied runs without asking (`--yolo`).
    pub yolo: bool,
    /// Nobody can be asked (`ask`): calls whose policy is `ask` are refused.
    pub headless: bool,
    /// Trust the project's own settings for this run (`--trust`).
    pub trust: bool,
    /// The sandbox for commands (wired by `startup`): it says which tools run contained
    /// (allowed without asking unless a rule denies them or a path argument is outside the
    /// project) once it has the user's `"sandbox"` entry and the path rules.
    pub sandbox: SandboxLink,
}

impl PermissionsPlugin {
    /// Files from `$HOME` and the working directory; trust from the user's data directory.
    pub fn new(flags: PermissionFlags) -> Self {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Self::with_dirs(home, project, flags).with_store(TrustStore::from_env())
    }

    /// Files from the given directories; nothing is trusted but by `flags.trust` (see
    /// `with_store`).
    pub fn with_dirs(home: Option<PathBuf>, project: PathBuf, flags: PermissionFlags) -> Self {
        PermissionsPlugin { home, project, flags, store: TrustStore::none(), always: Arc::default() }
    }

    /// Where trusted projects are remembered.
    pub fn with_store(mut self, store: TrustStore) -> Self {
        self.store = store;
        self
    }

    fn load(&self, session: &Session) -> anyhow::Result<(Permissions, Places)> {
        let home = self.home.as_deref();
        let root = project_root(&self.project);
        let mut permissions = Permissions {
            user: match home {
                Some(home) => RuleSet::load(home, &root, Some(home))?,
                None => RuleSet::default(),
            },
            project: match project_agents(&self.project, home) {
                Some(_) => RuleSet::load(&self.project, &root, home)?,
                None => RuleSet::default(),
            },
            trusted: Trust::new(self.store.clone(), self.flags.trust).is_trusted(&root),
        };
        permissions.user.canonicalize(session.toolbox())?;
        permissions.project.canonicalize(session.toolbox())?;
        let cwd = std::fs::canonicalize(&self.project).unwrap_or_else(|_| self.project.clone());
        Ok((permissions, Places { root, cwd, home: self.home.clone() }))
    }

    /// One line saying what an untrusted project's file asked for that is not applied,
    /// and how to trust it.
    fn notice(&self, permissions: &Permissions, places: &Places, session: &Session) -> Option<String> {
        let ignored = permissions.ignored(session.toolbox());
        if ignored.is_empty() {
            return None;
        }
        // A declined project is not asked about again: say how to trust it after all.
        let how = if self.flags.headless {
            "run with --trust".to_string()
        } else {
            crate::plugins::trust::declined_how(&self.store, &places.root)
                .unwrap_or_else(|| "answer yes when asked, or start with --trust".to_string())
        };
        Some(format!(
            "Project {} is not trusted, so its .agents/permissions.json may only make your rules stricter; \
             ignored: {}. To trust it, {how}.",
            places.root.display(),
            ignored.join(", ")
        ))
    }
}

impl Plugin for PermissionsPlugin {
    fn name(&self) -> &str {
        "permissions"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let (permissions, places) = self.load(session)?;
        if let Some(notice) = self.notice(&permissions, &places, session) {
            session.show(notice);
        }
        // A project's settings folder a sandboxed command made and the clean-up could not
        // remove is not loaded by anyone (`trust::refusal`): the user hears why, each setup.
        for (folder, reason) in refused_folders(&self.project, &places.root) {
            session.output().emit(AgentEvent::Warning(refused_notice(&folder, &reason)));
        }
        let sandbox = self.flags.sandbox.apply(
            &permissions.user.sandbox,
            &permissions.allowed_dirs().into_iter().cloned().collect::<Vec<_>>(),
            &permissions.denied_dirs().into_iter().cloned().collect::<Vec<_>>(),
        );
        if let Some(notice) = &sandbox.notice {
            session.show(notice.clone());
        }
        let toolbox = session.toolbox();
        let allowed =
            self.flags.allow.iter().map(|name| toolbox.get(name).map_or(name.clone(), |t| t.name.clone())).collect();
        let gate = Arc::new(Gate {
            permissions,
            places,
            allowed,
            sandbox,
            yolo: self.flags.yolo,
            headless: self.flags.headless,
            always: self.always.clone(),
            approver: session.approver(),
            mode: session.mode(),
        });
        let hook_gate = gate.clone();
        session.toolbox_mut().before(None, move |call| {
            let gate = hook_gate.clone();
            async move { gate.check(call).await }
        });
        session.commands_mut().add(
            "mode",
            "[ask|edits|plan|next]",
            "ask before changes, accept edits inside the project, or plan (read-only) — Shift+Tab cycles",
            mode_command,
        );
        session.commands_mut().add("permissions", "", "the permission policy of each tool", move |session, _| {
            session.show(gate.describe(session.toolbox()));
            Ok(Flow::Continue)
        });
        Ok(())
    }
}

/// `/mode`: shows the mode; `/mode ask|edits|plan` switches to it, `/mode next` to the one
/// after.
fn mode_command(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let current = session.mode().get();
    let mode = match args.trim() {
        "" => {
            session.show(format!("Mode: {} (/mode ask|edits|plan; Shift+Tab cycles)", current.label()));
            return Ok(Flow::Continue);
        }
        "next" => current.next(),
        word => match Mode::parse(word) {
            Some(mode) => mode,
            None => anyhow::bail!("usage: /mode [ask|edits|plan], not {word:?}"),
        },
    };
    // The front end shows the change (`AgentEvent::Mode`).
    session.set_mode(mode);
    Ok(Flow::Continue)
}
