//! `SetupBlock`: a plugin made from a closure. The `Plugin` trait itself (a name, a setup
//! block run against the `Session`, a hook before each line) is defined with the session
//! that runs it (`session.rs`) and re-exported here.

pub use super::session::Plugin;
use super::session::Session;
use std::sync::Arc;

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
