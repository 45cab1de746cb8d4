//! Plugin files in Lua 5.4 (embedded with mlua, vendored): `~/.agents/plugins/*.lua` then
//! `.agents/plugins/*.lua` (project files only in a trusted project). `PluginFiles` is the
//! built-in plugin that finds them and adds one `LuaFile` plugin per file, so a file plugin
//! and a built-in are peers and `/reload` re-reads every file (and picks up new ones). It
//! also answers `/plugins`.
//!
//! Modules: `loader` (which files), `file` (one file as a kernel plugin), `api` (the Lua
//! API), `tools` (Lua tools and hooks as kernel ones), `providers` (declared providers),
//! `events` (observable events), `mirror` (what Lua may read of the session), `prelude`
//! (what a state may do: text chunks only, no `os.exit`), `sandbox` (one Lua state on its
//! own thread, its time limit and watchdog), `values` (JSON and errors across the
//! boundary), `listing` (`/plugins`).

pub mod api;
pub mod events;
pub mod file;
pub mod listing;
pub mod loader;
pub mod mirror;
pub mod prelude;
pub mod providers;
pub mod sandbox;
pub mod tools;
pub mod values;

pub use file::LuaFile;
pub use loader::Folders;
pub use providers::{Endpoint, Wire, Wires};

use crate::agent::{AgentEvent, Flow, Plugin, Session};
use listing::{render, skipped_notice};
use mirror::Mirror;
use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How plugin files are found and run; `startup` fills it from the options.
pub struct LuaSettings {
    pub folders: Folders,
    /// The working directory (`session.cwd`).
    pub cwd: PathBuf,
    /// Builds declared providers on the built-in wires.
    pub wires: Wires,
    /// The time limit of each call into Lua.
    pub limit: Duration,
    /// Also print load failures and notices on stderr (headless runs whose output is not
    /// read by a person).
    pub stderr_notices: bool,
}

/// What every plugin file shares.
pub struct Host {
    limit: Duration,
    wires: Wires,
    mirror: Arc<Mirror>,
    stderr_notices: bool,
    /// Provider names declared by plugin files (they may be declared again on reload).
    declared: Mutex<BTreeSet<String>>,
}

impl Host {
    /// Shows a notice through the session's output (and on stderr when asked).
    fn notice(&self, session: &Session, event: AgentEvent) {
        if self.stderr_notices {
            if let AgentEvent::Error(text) | AgentEvent::Warning(text) = &event {
                let text: String = text.chars().filter(|c| !c.is_control() || *c == '\n').collect();
                eprintln!("elelem: {text}");
            }
        }
        session.output().emit(event);
    }
}

/// The built-in plugin that loads plugin files.
pub struct PluginFiles {
    folders: Folders,
    host: Arc<Host>,
    files: Arc<Mutex<Vec<Arc<LuaFile>>>>,
    skipped: Arc<Mutex<Vec<PathBuf>>>,
    noticed: AtomicBool,
}

impl PluginFiles {
    pub fn new(settings: LuaSettings) -> Self {
        let host = Host {
            limit: settings.limit,
            wires: settings.wires,
            mirror: Arc::new(Mirror::new(settings.cwd)),
            stderr_notices: settings.stderr_notices,
            declared: Mutex::default(),
        };
        PluginFiles {
            folders: settings.folders,
            host: Arc::new(host),
            files: Arc::default(),
            skipped: Arc::default(),
            noticed: AtomicBool::new(false),
        }
    }
}

impl Plugin for PluginFiles {
    fn name(&self) -> &str {
        "plugin files"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let (files, skipped, project) = (self.files.clone(), self.skipped.clone(), self.folders.project.clone());
        session.commands_mut().add("plugins", "", "plugin files and what each registered", move |session, _| {
            let listed: Vec<(String, listing::Status)> =
                files.lock().iter().map(|f| (f.path().display().to_string(), f.status())).collect();
            let count = skipped.lock().len();
            session.show(render(&listed, (count > 0).then_some((project.as_path(), count))));
            Ok(Flow::Continue)
        });
        let found = self.folders.scan();
        if !found.skipped.is_empty() && !self.noticed.swap(true, Ordering::SeqCst) {
            let notice = skipped_notice(&self.folders.project, found.skipped.len());
            self.host.notice(session, AgentEvent::Warning(notice));
        }
        *self.skipped.lock() = found.skipped;
        // Only plugin code reads the mirror: without files, no copy of each context.
        if !found.files.is_empty() {
            let mirror = self.host.mirror.clone();
            let mirrored =
                |event: &AgentEvent| matches!(event, AgentEvent::Context(_) | AgentEvent::ProviderChanged { .. });
            session.observe_only(mirrored, Arc::new(move |event| mirror.observe(event)));
        }
        for path in found.files {
            if self.files.lock().iter().any(|f| f.path() == path) {
                continue; // set up again by the session's own reload
            }
            // A project's file may not lead out of the project (its root holds `.agents/plugins`).
            let within = path
                .starts_with(&self.folders.project)
                .then(|| {
                    self.folders.project.parent().and_then(std::path::Path::parent).map(std::path::Path::to_path_buf)
                })
                .flatten();
            let file = Arc::new(LuaFile::new(path, within, self.host.clone()));
            self.files.lock().push(file.clone());
            session.add_plugin(file)?;
        }
        Ok(())
    }
}
