//! Startup: builds a `Session` the way DESIGN §2 says: the providers registry (stub
//! included), the provider named by `-p` (or the default), the agent, then every built-in
//! plugin's setup block against the session.

use crate::agent::input::{Approver, Input};
use crate::agent::output::Output;
use crate::agent::system_prompt::SystemPrompt;
use crate::agent::toolbox::Toolbox;
use crate::agent::transcript::Transcript;
use crate::agent::{Agent, Session};
use crate::providers::{ProviderSettings, Providers};
use anyhow::Context as _;
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
}

/// Builds the session with its plugins set up.
pub fn build_session(
    options: &Options,
    output: Arc<dyn Output>,
    input: Box<dyn Input>,
    approver: Arc<dyn Approver>,
) -> anyhow::Result<Session> {
    let providers = Providers::builtin()?;
    let settings = ProviderSettings { model: options.model.clone(), thinking_budget: options.thinking_budget };
    let name = options.provider.clone().unwrap_or_else(|| providers.default_name().to_string());
    let provider = providers.build(&name, &settings)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let transcript = Transcript::new(SystemPrompt::new(cwd));
    let agent = Agent::new(provider, Toolbox::new(), output, transcript);
    let mut session = Session::new(agent, input, providers, settings, approver);
    for plugin in crate::plugins::builtin(options) {
        session.add_plugin(plugin)?;
    }
    Ok(session)
}

/// `elelem v<version>`.
pub fn banner() -> String {
    format!("elelem v{}", env!("CARGO_PKG_VERSION"))
}
