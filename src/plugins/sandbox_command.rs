//! `/sandbox`: shows the sandbox for commands (mode, writable directories, network, the
//! protected and the unreadable paths); `/sandbox off|workspace-write|read-only` switches
//! its mode for the rest of the session (the user typed it) and sets the plugins up again
//! (`Session::reload`) so the permissions gate knows whether `execute` still runs contained.
//! What the sandbox says and does is handed in by `startup` (plugins do not import tools).

use crate::agent::{Flow, Plugin, Session};
use std::path::Path;
use std::sync::Arc;

type Describe = dyn Fn(&Path) -> String + Send + Sync;
type Switch = dyn Fn(&str) -> Result<String, String> + Send + Sync;

/// The plugin that adds `/sandbox`.
pub struct SandboxCommand {
    describe: Arc<Describe>,
    switch: Arc<Switch>,
}

impl SandboxCommand {
    pub fn new(
        describe: impl Fn(&Path) -> String + Send + Sync + 'static,
        switch: impl Fn(&str) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        SandboxCommand { describe: Arc::new(describe), switch: Arc::new(switch) }
    }
}

impl Plugin for SandboxCommand {
    fn name(&self) -> &str {
        "sandbox-command"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let (describe, switch) = (self.describe.clone(), self.switch.clone());
        session.commands_mut().add(
            "sandbox",
            "[off|workspace-write|read-only]",
            "the sandbox for commands; switch its mode for this session",
            move |session, args| {
                let word = args.trim();
                if word.is_empty() {
                    let project = std::env::current_dir().unwrap_or_default();
                    session.show(describe(&project));
                    return Ok(Flow::Continue);
                }
                let said = switch(word)
                    .map_err(|e| anyhow::anyhow!("usage: /sandbox [off|workspace-write|read-only]: {e}"))?;
                session.reload()?;
                session.show(said);
                Ok(Flow::Continue)
            },
        );
        Ok(())
    }
}
