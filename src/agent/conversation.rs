//! Messages and the `Conversation` that keeps them.
//!
//! Owns the message shape every provider translates from. A conversation only holds
//! `user`, `assistant` and `tool` messages; the system prompt belongs to the `Transcript`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool call requested by the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// A block of model reasoning, with the provider's signature when it sends one
/// (Anthropic requires it back in the same turn). A redacted block carries only the
/// provider's opaque `redacted` data, which must be sent back unchanged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThinkingBlock {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<String>,
}

/// One message of a conversation or of a turn's tool traffic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thinking: Vec<ThinkingBlock>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For tool messages: the tool's name as called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            thinking: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
    /// The result of one tool call, as sent back to the model.
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Self {
        Message { tool_call_id: Some(call.id.clone()), name: Some(call.name.clone()), ..Self::new(Role::Tool, content) }
    }
}

/// A message with a role a conversation does not accept.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("invalid role {0:?}: a conversation holds only user, assistant and tool messages")]
pub struct InvalidRole(pub String);

/// An ordered list of `user`, `assistant` and `tool` messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Conversation {
    messages: Vec<Message>,
}

impl Conversation {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a message given its role by name (`"user"`, `"assistant"`, `"tool"`).
    pub fn add(&mut self, role: &str, content: impl Into<String>) -> Result<(), InvalidRole> {
        let role = match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => return Err(InvalidRole(other.to_string())),
        };
        self.messages.push(Message::new(role, content));
        Ok(())
    }

    /// Appends a message; system messages are refused.
    pub fn push(&mut self, message: Message) -> Result<(), InvalidRole> {
        if message.role == Role::System {
            return Err(InvalidRole("system".into()));
        }
        self.messages.push(message);
        Ok(())
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }
    pub fn len(&self) -> usize {
        self.messages.len()
    }
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
    pub fn clear(&mut self) {
        self.messages.clear();
    }
    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_user_assistant_and_tool_roles() {
        let mut c = Conversation::new();
        for role in ["user", "assistant", "tool"] {
            c.add(role, "x").unwrap();
        }
        let roles: Vec<_> = c.messages().iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool"]);
    }

    #[test]
    fn any_other_role_is_a_clear_error() {
        let mut c = Conversation::new();
        let err = c.add("wizard", "x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid role \"wizard\": a conversation holds only user, assistant and tool messages"
        );
        assert!(c.push(Message::system("x")).is_err());
        assert!(c.is_empty());
    }

    #[test]
    fn serializes_only_the_fields_in_use() {
        let json = serde_json::to_string(&Message::user("hi")).unwrap();
        assert_eq!(json, r#"{"role":"user","content":"hi"}"#);
    }
}
