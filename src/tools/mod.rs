//! Built-in tools, registered through the `BuiltinTools` plugin like any plugin's tools.
//! Each tool lives in its own module with its schema, description and handler.

pub mod capped;
pub mod execute;
pub mod read;
pub mod write;

use crate::agent::session::Session;
use crate::plugins::Plugin;

pub struct BuiltinTools;

impl Plugin for BuiltinTools {
    fn name(&self) -> &str {
        "tools"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let toolbox = session.toolbox();
        toolbox.add(read::tool()?);
        toolbox.add(write::tool()?);
        toolbox.add(execute::tool()?);
        Ok(())
    }
}

/// A required string argument (the schema has already checked it is there).
pub(crate) fn str_arg<'a>(args: &'a serde_json::Value, name: &str) -> anyhow::Result<&'a str> {
    args.get(name).and_then(|v| v.as_str()).ok_or_else(|| anyhow::anyhow!("missing string argument {name:?}"))
}
