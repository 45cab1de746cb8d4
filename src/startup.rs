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
use crate::plugins::permissions::{PermissionFlags, PermissionsPlugin};
use crate::plugins::redact::RedactPlugin;
use crate::protocol::ProviderSettings;
use crate::tools::secret_env::SecretPolicy;
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
    /// Model calls one turn may make (`--max-steps`, `ELELEM_MAX_STEPS`); `None`: the
    /// kernel's default.
    pub max_steps: Option<usize>,
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
/// rules and `--allow` names written with an alias resolve to the tool; redaction comes
/// last so its after hook sees what the others' hooks returned.
pub fn builtin_plugins(options: &Options) -> Vec<Arc<dyn Plugin>> {
    let flags = PermissionFlags { allow: options.allow.clone(), yolo: options.yolo, headless: options.headless };
    let secrets = SecretPolicy::from_env().secret_values();
    vec![
        Arc::new(BuiltinTools),
        Arc::new(PermissionsPlugin::new(flags)),
        Arc::new(BuiltinCommands),
        Arc::new(RedactPlugin::new(secrets)),
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
    let transcript = Transcript::new(SystemPrompt::new(cwd));
    let mut agent = Agent::new(provider, Toolbox::new(), output, transcript);
    if let Some(steps) = options.max_steps {
        agent.set_max_steps(steps);
    }
    let mut session = Session::new(agent, input, providers, settings, approver);
    for plugin in builtin_plugins(options).into_iter().chain(options.extra_plugins.0.iter().cloned()) {
        session.add_plugin(plugin)?;
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

/// `elelem v<version>`.
pub fn banner() -> String {
    format!("elelem v{}", env!("CARGO_PKG_VERSION"))
}
