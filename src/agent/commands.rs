//! `Commands`: the slash commands a user can type, by name, and `Flow`, what happens after
//! a line.
//!
//! A registry of handlers that get a context `S` — the session (`session::Commands` is
//! `Commands<Session>`), so they can change anything a plugin can; what they show goes
//! through the session's output. The registry does not name the session, which holds it:
//! the commands themselves live in plugins.

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

pub type CommandHandler<S> = Arc<dyn Fn(&mut S, &str) -> anyhow::Result<Flow> + Send + Sync>;

pub struct Command<S> {
    pub name: String,
    /// One line for `/help`.
    pub description: String,
    /// Arguments, e.g. `[name]`.
    pub usage: String,
    pub handler: CommandHandler<S>,
}

// By hand: a derive would ask `S: Clone`, and the handler is shared, not the context.
impl<S> Clone for Command<S> {
    fn clone(&self) -> Self {
        Command {
            name: self.name.clone(),
            description: self.description.clone(),
            usage: self.usage.clone(),
            handler: self.handler.clone(),
        }
    }
}

pub struct Commands<S> {
    commands: BTreeMap<String, Command<S>>,
}

impl<S> Default for Commands<S> {
    fn default() -> Self {
        Commands { commands: BTreeMap::new() }
    }
}

impl<S> Commands<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) `/name`.
    pub fn add<F>(&mut self, name: &str, usage: &str, description: &str, handler: F)
    where
        F: Fn(&mut S, &str) -> anyhow::Result<Flow> + Send + Sync + 'static,
    {
        let name = name.trim_start_matches('/').to_string();
        self.commands.insert(
            name.clone(),
            Command { name, description: description.into(), usage: usage.into(), handler: Arc::new(handler) },
        );
    }

    pub fn get(&self, name: &str) -> Option<&Command<S>> {
        self.commands.get(name.trim_start_matches('/'))
    }

    /// All commands, alphabetically.
    pub fn list(&self) -> impl Iterator<Item = &Command<S>> {
        self.commands.values()
    }

    pub fn names(&self) -> Vec<String> {
        self.commands.keys().map(|n| format!("/{n}")).collect()
    }

    pub fn clear(&mut self) {
        self.commands.clear();
    }
}
