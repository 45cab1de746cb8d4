//! `Commands`: the slash commands a user can type, by name.
//!
//! Handlers get the whole `Session` so they can change anything a plugin can; what they
//! show goes through the session's output. The commands themselves live in plugins.

use crate::agent::session::Session;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What happens after a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Exit,
    /// Run this prompt as a turn, as if the user had typed it (`/init`, plugin commands).
    Turn(String),
    /// Ask the model to summarise the conversation and keep only the summary (`/compact`),
    /// with the user's extra instructions.
    Compact(String),
}

pub type CommandHandler = Arc<dyn Fn(&mut Session, &str) -> anyhow::Result<Flow> + Send + Sync>;

#[derive(Clone)]
pub struct Command {
    pub name: String,
    /// One line for `/help`.
    pub description: String,
    /// Arguments, e.g. `[name]`.
    pub usage: String,
    pub handler: CommandHandler,
}

#[derive(Clone, Default)]
pub struct Commands {
    commands: BTreeMap<String, Command>,
}

impl Commands {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) `/name`.
    pub fn add<F>(&mut self, name: &str, usage: &str, description: &str, handler: F)
    where
        F: Fn(&mut Session, &str) -> anyhow::Result<Flow> + Send + Sync + 'static,
    {
        let name = name.trim_start_matches('/').to_string();
        self.commands.insert(
            name.clone(),
            Command { name, description: description.into(), usage: usage.into(), handler: Arc::new(handler) },
        );
    }

    pub fn get(&self, name: &str) -> Option<&Command> {
        self.commands.get(name.trim_start_matches('/'))
    }

    /// All commands, alphabetically.
    pub fn list(&self) -> impl Iterator<Item = &Command> {
        self.commands.values()
    }

    pub fn names(&self) -> Vec<String> {
        self.commands.keys().map(|n| format!("/{n}")).collect()
    }

    pub fn clear(&mut self) {
        self.commands.clear();
    }
}
