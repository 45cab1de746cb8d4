//! Messages: the shape every provider translates from and the kernel keeps (roles, tool
//! calls, thinking blocks, images, and a tool message carrying its typed result).

use super::image::Image;
use super::tool::ToolResult;
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
    /// For tool messages: the result, serialised to JSON only where it is sent to a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// Images that go with the text (a user's `@shot.png`, a `read` of an image): kept
    /// out of `content`, so the text path never sees them; each provider encodes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
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
            result: None,
            images: Vec::new(),
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
    pub fn tool_result(call: &ToolCall, result: ToolResult) -> Self {
        Message {
            tool_call_id: Some(call.id.clone()),
            name: Some(call.name.clone()),
            result: Some(result),
            ..Self::new(Role::Tool, "")
        }
    }

    /// The text a model reads for this message: the content, or a tool result's JSON.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match &self.result {
            Some(result) => std::borrow::Cow::Owned(result.to_json()),
            None => std::borrow::Cow::Borrowed(&self.content),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_only_the_fields_in_use() {
        let json = serde_json::to_string(&Message::user("hi")).unwrap();
        assert_eq!(json, r#"{"role":"user","content":"hi"}"#);
    }

    #[test]
    fn a_tool_message_reads_as_its_result_json() {
        let call = ToolCall { id: "t1".into(), name: "read".into(), arguments: Value::Null };
        let message = Message::tool_result(&call, ToolResult::failure("nope"));
        assert_eq!(message.text(), r#"{"error":"nope","ok":false}"#);
    }
}
