//! Startup, the one composition root: builds a `Session` the way DESIGN §2 says — the
//! providers registry (stub included), the agent, every plugin's setup block against the
//! session (built-ins, then plugin files), and the provider named by `-p` (or the default):
//! a name no built-in provider has is looked up again after the plugin files declared
//! theirs. This is the only place that lists the built-in plugins, turns command-line
//! options into their settings, and says how a declared provider's wire is built.

use crate::agent::input::{Approver, Input};
use crate::agent::output::Output;
use crate::agent::system_prompt::SystemPrompt;
use crate::agent::toolbox::Toolbox;
use crate::agent::transcript::Transcript;
use crate::agent::{Agent, Plugin, Session};
use crate::plugins::commands::BuiltinCommands;
use crate::plugins::lua::{Endpoint, Folders, LuaSettings, PluginFiles, Wire};
use crate::plugins::permissions::{PermissionFlags, PermissionsPlugin};
use crate::protocol::{Provider, ProviderError, ProviderSettings};
use crate::providers::anthropic::{self, AnthropicConfig, AnthropicProvider};
use crate::providers::http::HttpOptions;
use crate::providers::ollama::{self, OllamaConfig, OllamaProvider};
use crate::providers::openai::{self, OpenAiConfig, OpenAiProvider};
use crate::tools::BuiltinTools;
use anyhow::Context as _;
use std::fmt;
use std::path::Path;
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
    /// Trust this project (`--trust`): its plugin files load.
    pub trust: bool,
    /// Also print plugin load failures and notices on stderr (`ask --json`, whose stdout
    /// is read by a program).
    pub stderr_notices: bool,
    /// Plugins set up after the built-in ones (embedders and test harnesses).
    pub extra_plugins: ExtraPlugins,
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
    vec![Arc::new(BuiltinTools), Arc::new(PermissionsPlugin::new(flags)), Arc::new(BuiltinCommands)]
}

/// The plugin that loads `~/.agents/plugins/*.lua` and, in a trusted project,
/// `.agents/plugins/*.lua`.
pub fn plugin_files(options: &Options, cwd: &Path) -> Arc<dyn Plugin> {
    // TRUST: the one place that decides whether this project's plugin files load. The
    // trust store (plugins/trust.rs) replaces `options.trust` here.
    let trusted_project = options.trust;
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from);
    let settings = LuaSettings {
        folders: Folders::new(home.as_deref(), cwd, trusted_project),
        cwd: cwd.to_path_buf(),
        wires: Arc::new(wire),
        limit: crate::plugins::lua::sandbox::limit_from_env(),
        stderr_notices: options.stderr_notices,
    };
    Arc::new(PluginFiles::new(settings))
}

/// Builds a provider a plugin declared on one of the built-in wires (`-m` wins over the
/// declared model; HTTP settings come from the environment as for the built-ins).
fn wire(endpoint: &Endpoint, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> {
    let model = settings.model.clone().or_else(|| endpoint.model.clone());
    let base = endpoint.base_url.as_deref();
    let http = HttpOptions::from_env()?;
    Ok(match endpoint.wire {
        Wire::OpenAi => {
            let model = model.unwrap_or_else(|| openai::DEFAULT_MODEL.into());
            let key = endpoint.key();
            let mut config = OpenAiConfig::new(base.unwrap_or(openai::DEFAULT_BASE_URL), key.as_deref(), &model);
            config.http = http;
            Arc::new(OpenAiProvider::new(config)?)
        }
        Wire::Anthropic => {
            let key = endpoint.key().ok_or_else(|| endpoint.missing_key())?;
            let model = model.unwrap_or_else(|| anthropic::DEFAULT_MODEL.into());
            let mut config = AnthropicConfig::new(base.unwrap_or(anthropic::DEFAULT_BASE_URL), &key, &model);
            config.thinking_budget = settings.thinking_budget;
            config.http = http;
            Arc::new(AnthropicProvider::new(config)?)
        }
        Wire::Ollama => {
            let model = model.unwrap_or_else(|| ollama::DEFAULT_MODEL.into());
            let mut config = OllamaConfig::new(base.unwrap_or(ollama::DEFAULT_HOST), &model);
            config.think = settings.thinking_budget.is_some_and(|b| b > 0);
            config.http = http;
            Arc::new(OllamaProvider::new(config)?)
        }
    })
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
    // A name no built-in has may be declared by a plugin file: start on the stub and look
    // again once the files ran (DESIGN §2 step 4).
    let declared_later = !providers.names().contains(&name.as_str());
    let provider = providers.build(if declared_later { "stub" } else { &name }, &settings)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let transcript = Transcript::new(SystemPrompt::new(cwd.clone()));
    let agent = Agent::new(provider, Toolbox::new(), output, transcript);
    let mut session = Session::new(agent, input, providers, settings.clone(), approver);
    let plugins = builtin_plugins(options).into_iter().chain(options.extra_plugins.0.iter().cloned());
    for plugin in plugins.chain([plugin_files(options, &cwd)]) {
        session.add_plugin(plugin)?;
    }
    if declared_later {
        session.switch_provider(&name, settings)?;
    }
    Ok(session)
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

/// Stops everything tools started (command process groups and their background jobs);
/// every front end calls it on its way out, signals included.
pub fn shutdown() {
    crate::tools::process_groups::kill_all();
}

/// `elelem v<version>`.
pub fn banner() -> String {
    format!("elelem v{}", env!("CARGO_PKG_VERSION"))
}
