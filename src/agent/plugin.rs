//! Plugins: a name and a setup block run against the `Session` (ARCHITECTURE.md, "The
//! objects": plugins' setup blocks receive the session). Built-ins and plugin files register through this same trait.

use super::session::Session;
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
