//! What plugin code may read of the session at any time, even from a tool handler that
//! has no session at hand: the conversation, the context, the provider and the working
//! directory. Kept current from the session itself (at setup and before each plugin
//! command) and from the events the agent shows (`Context`, `ProviderChanged`).

use crate::agent::{AgentEvent, ContextSnapshot, Session};
use parking_lot::RwLock;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Default)]
struct Seen {
    context: ContextSnapshot,
    provider: String,
    model: String,
}

/// The latest view of the session.
pub struct Mirror {
    seen: RwLock<Seen>,
    cwd: PathBuf,
}

impl Mirror {
    pub fn new(cwd: PathBuf) -> Self {
        Mirror { seen: RwLock::new(Seen::default()), cwd }
    }

    /// Reads the session directly.
    pub fn refresh(&self, session: &Session) {
        let mut seen = self.seen.write();
        seen.context = session.context();
        seen.provider = session.provider().name().to_string();
        seen.model = session.provider().model().to_string();
    }

    /// Follows what the agent shows.
    pub fn observe(&self, event: &AgentEvent) {
        match event {
            AgentEvent::Context(snapshot) => self.seen.write().context = snapshot.clone(),
            AgentEvent::ProviderChanged { provider, model } => {
                let mut seen = self.seen.write();
                seen.provider = provider.clone();
                seen.model = model.clone();
            }
            _ => {}
        }
    }

    /// `session.conversation`: `{role, content}` for each message kept.
    pub fn conversation(&self) -> Value {
        messages(&self.seen.read().context)
    }

    /// `session.context`: what the model sees next (system prompt, messages, tool names).
    pub fn context(&self) -> Value {
        let seen = self.seen.read();
        let tools: Vec<&str> = seen.context.tools.iter().map(|t| t.name.as_str()).collect();
        json!({"system_prompt": seen.context.system_prompt, "messages": messages(&seen.context), "tools": tools})
    }

    /// `session.provider`: `{name, model}`.
    pub fn provider(&self) -> Value {
        let seen = self.seen.read();
        json!({"name": seen.provider, "model": seen.model})
    }

    /// `session.cwd`.
    pub fn cwd(&self) -> String {
        self.cwd.display().to_string()
    }
}

fn messages(context: &ContextSnapshot) -> Value {
    context.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.text()})).collect()
}
