//! Plugins: a name and a setup block run against the `Session`. elelem's own built-ins
//! (tools, slash commands) are registered this way too, so the mechanism runs every time.

pub mod commands;
pub mod permissions;

use crate::agent::session::Session;
use crate::startup::Options;
use std::sync::Arc;

pub trait Plugin: Send + Sync {
    fn name(&self) -> &str;
    /// Adds tools, hooks and commands to the session. Run again by `/reload`.
    fn setup(&self, session: &mut Session) -> anyhow::Result<()>;
}

/// A plugin made from a closure.
pub struct SetupBlock<F> {
    name: String,
    block: F,
}

impl<F> SetupBlock<F>
where
    F: Fn(&mut Session) -> anyhow::Result<()> + Send + Sync + 'static,
{
    pub fn plugin(name: &str, block: F) -> Arc<dyn Plugin> {
        Arc::new(SetupBlock { name: name.to_string(), block })
    }
}

impl<F> Plugin for SetupBlock<F>
where
    F: Fn(&mut Session) -> anyhow::Result<()> + Send + Sync,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        (self.block)(session)
    }
}

/// The plugins every session starts with. Permissions come after the tools so rules and
/// `--allow` names written with an alias resolve to the tool.
pub fn builtin(options: &Options) -> Vec<Arc<dyn Plugin>> {
    vec![
        Arc::new(crate::tools::BuiltinTools),
        Arc::new(permissions::PermissionsPlugin::new(options)),
        Arc::new(commands::BuiltinCommands),
    ]
}
