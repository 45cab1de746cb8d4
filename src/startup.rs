//! Startup, the one composition root: builds a `Session` the way DESIGN §2 says — the
//! providers registry (stub included), the provider named by `-p` (or the default), the
//! agent, then every plugin's setup block against the session. This is the only place that
//! lists the built-in plugins and turns command-line options into their settings.

use crate::agent::input::{Approver, Input};
use crate::agent::output::Output;
use crate::agent::system_prompt::SystemPrompt;
use crate::agent::toolbox::Toolbox;
use crate::agent::transcript::Transcript;
use crate::agent::{Agent, Plugin, Session};
use crate::plugins::commands::BuiltinCommands;
use crate::plugins::mcp::{McpPlugin, McpSettings};
use crate::plugins::permissions::{PermissionFlags, PermissionsPlugin};
use crate::protocol::ProviderSettings;
use crate::tools::BuiltinTools;
use anyhow::Context as _;
use std::fmt;
use std::sync::Arc;

/// Options shared by every front end.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking_budget: Option<u32>,
    /// Tools allowed without asking (`--allow TOOL`, repeatable).
    pub allow: Vec<String>,
    /// Allow every tool call without asking (`--yolo`); front ends show it.
    pub yolo: bool,
    /// Nobody can answer questions (`ask`): calls whose policy is `ask` are refused.
    pub headless: bool,
    /// The project is trusted (`--trust`): its `.agents/` may start MCP servers.
    pub trust: bool,
    /// Plugins set up after the built-in ones (embedders and test harnesses).
    pub extra_plugins: ExtraPlugins,
    /// Which session to record into: a new one, the latest of this directory, or one by id.
    pub session: SessionChoice,
    /// Show a resumed session's history again through the output (the full-screen app);
    /// otherwise a one-line summary.
    pub replay_history: bool,
}

/// Where a run's events are recorded, and what it starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SessionChoice {
    /// A new session file.
    #[default]
    New,
    /// The newest session of the working directory (`--continue`); a new one if none.
    Continue,
    /// The session with this id (`--resume ID`).
    Resume(String),
    /// Nothing recorded (tests, embedders).
    Off,
}

/// Plugins added by whoever embeds elelem.
#[derive(Clone, Default)]
pub struct ExtraPlugins(pub Vec<Arc<dyn Plugin>>);

impl fmt::Debug for ExtraPlugins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|p| p.name())).finish()
    }
}

/// The plugins every session starts with, in order. Permissions come after the tools so
/// rules and `--allow` names written with an alias resolve to the tool.
pub fn builtin_plugins(options: &Options) -> Vec<Arc<dyn Plugin>> {
    let flags = PermissionFlags { allow: options.allow.clone(), yolo: options.yolo, headless: options.headless };
    // TRUST: the project's MCP servers start only when the project is trusted.
    let mcp = McpSettings {
        trusted_project: options.trust,
        headless: options.headless,
        home: std::env::var_os("HOME").map(std::path::PathBuf::from),
        project: std::env::current_dir().unwrap_or_default(),
    };
    vec![
        Arc::new(BuiltinTools),
        Arc::new(McpPlugin::new(mcp)),
        Arc::new(PermissionsPlugin::new(flags)),
        Arc::new(BuiltinCommands),
    ]
}

/// Builds the session with its plugins set up.
pub fn build_session(
    options: &Options,
    output: Arc<dyn Output>,
    input: Box<dyn Input>,
    approver: Arc<dyn Approver>,
) -> anyhow::Result<Session> {
    let providers = crate::providers::builtin()?;
    let settings = ProviderSettings { model: options.model.clone(), thinking_budget: options.thinking_budget };
    let name = options.provider.clone().unwrap_or_else(crate::providers::default_name);
    let provider = providers.build(&name, &settings)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let transcript = Transcript::new(SystemPrompt::new(cwd.clone()));
    let (recorded, output) = record(options, &cwd, output)?;
    let agent = Agent::new(provider, Toolbox::new(), output.clone(), transcript);
    let mut session = Session::new(agent, input, providers, settings, approver);
    for plugin in builtin_plugins(options).into_iter().chain(options.extra_plugins.0.iter().cloned()) {
        session.add_plugin(plugin)?;
    }
    if let Some(resumed) = recorded {
        restore(&mut session, resumed, options.replay_history);
    }
    Ok(session)
}

/// A session being resumed: its file and what it held.
struct Resumed {
    file: crate::sessions::SessionFile,
    replayed: crate::sessions::Replayed,
    /// The output without the recorder, to show the history without recording it again.
    plain_output: Arc<dyn Output>,
}

/// Wraps `output` in a recorder for the chosen session; returns what a resumed session held.
fn record(
    options: &Options,
    cwd: &std::path::Path,
    output: Arc<dyn Output>,
) -> anyhow::Result<(Option<Resumed>, Arc<dyn Output>)> {
    use crate::sessions::{replay, Recorder, Store};
    let Some(store) = Store::default_location().filter(|_| options.session != SessionChoice::Off) else {
        return Ok((None, output));
    };
    let existing = match &options.session {
        SessionChoice::Continue => store.latest_in(cwd),
        SessionChoice::Resume(id) => {
            Some(store.find(id).with_context(|| format!("no session {id:?}; `elelem sessions` lists them"))?)
        }
        _ => None,
    };
    if let Some(info) = existing {
        let replayed = replay::read(&info.file.path)
            .with_context(|| format!("cannot read session {}", info.file.path.display()))?;
        let file = crate::data_dir::open_private_append(&info.file.path)
            .with_context(|| format!("cannot append to session {}", info.file.path.display()))?;
        let recorder = Arc::new(Recorder::new(output.clone(), file, replayed.messages.clone()));
        return Ok((Some(Resumed { file: info.file, replayed, plain_output: output }), recorder));
    }
    if options.session == SessionChoice::Continue {
        output.emit(crate::agent::AgentEvent::Warning(format!(
            "no earlier session in {}; starting a new one",
            cwd.display()
        )));
    }
    match store.create() {
        Ok((file, handle)) => {
            let recorder = Arc::new(Recorder::new(output, handle, Vec::new()));
            recorder.header(&file.id, &cwd.to_string_lossy());
            Ok((None, recorder))
        }
        Err(error) => {
            output.emit(crate::agent::AgentEvent::Warning(format!("this session is not recorded: {error}")));
            Ok((None, output))
        }
    }
}

/// Puts a resumed session's conversation back and shows its history (or a summary).
fn restore(session: &mut Session, resumed: Resumed, replay_history: bool) {
    let Resumed { file, replayed, plain_output } = resumed;
    for warning in &replayed.warnings {
        plain_output.emit(crate::agent::AgentEvent::Info(format!("warning: {warning}")));
    }
    if replay_history {
        for event in replayed.events {
            plain_output.emit(event);
        }
    }
    let conversation = session.conversation_mut();
    conversation.clear();
    for message in replayed.messages {
        let _ = conversation.push(message);
    }
    plain_output.emit(crate::agent::AgentEvent::Info(format!(
        "Resumed session {} ({} turns, {} messages kept).",
        file.id,
        replayed.turns,
        session.conversation().len()
    )));
}

/// Panics inside tools are caught and reported as tool results; don't also print them.
pub fn quiet_caught_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crate::agent::caught::panic_is_caught() {
            previous(info);
        }
    }));
}

/// Stops everything tools started (command process groups and their background jobs)
/// and every MCP server process;
/// every front end calls it on its way out, signals included.
pub fn shutdown() {
    crate::tools::process_groups::kill_all();
    crate::plugins::mcp::stop_all();
}

/// `elelem v<version>`.
pub fn banner() -> String {
    format!("elelem v{}", env!("CARGO_PKG_VERSION"))
}
