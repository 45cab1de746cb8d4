//! The `Conversation`: the ordered `user`, `assistant` and `tool` messages a session keeps.
//! The system prompt belongs to the `Transcript`.

use crate::protocol::{Message, Role};
use serde::Serialize;

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
    /// Inserts `messages` before message `at` (from 0); at the end when `at` is past it.
    /// System messages are dropped.
    pub fn insert_at(&mut self, at: usize, messages: Vec<Message>) {
        let at = at.min(self.messages.len());
        let messages = messages.into_iter().filter(|m| m.role != Role::System);
        self.messages.splice(at..at, messages);
    }

    /// Removes message `i` (from 0).
    pub fn remove(&mut self, i: usize) -> Option<Message> {
        (i < self.messages.len()).then(|| self.messages.remove(i))
    }

    /// Replaces the text of message `i` (from 0); `false` when there is none.
    pub fn set_content(&mut self, i: usize, content: impl Into<String>) -> bool {
        match self.messages.get_mut(i) {
            Some(message) => {
                message.content = content.into();
                true
            }
            None => false,
        }
    }

    /// Replaces every message (system messages are dropped).
    pub fn replace_all(&mut self, messages: Vec<Message>) {
        self.messages = messages.into_iter().filter(|m| m.role != Role::System).collect();
    }

    pub fn clear(&mut self) {
        self.messages.clear();
    }

    /// Takes the last `turns` turns away: everything from the `turns`-th last user message
    /// (a turn's prompt) on, which it returns; `None` (nothing changed) when there are
    /// fewer user messages than that, or `turns` is 0.
    pub fn rewind(&mut self, turns: usize) -> Option<Vec<Message>> {
        if turns == 0 {
            return None;
        }
        let at = self.messages.iter().enumerate().rev().filter(|(_, m)| m.role == Role::User).nth(turns - 1)?.0;
        Some(self.messages.split_off(at))
    }
    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewind_takes_the_last_turns_away_from_their_prompt_on() {
        let mut c = Conversation::new();
        for (role, text) in [("user", "one"), ("assistant", "1"), ("user", "two"), ("assistant", "2"), ("tool", "t")] {
            c.add(role, text).unwrap();
        }
        assert_eq!(c.rewind(3), None);
        assert_eq!(c.rewind(0), None);
        let removed = c.rewind(1).unwrap();
        assert_eq!(removed.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), ["two", "2", "t"]);
        assert_eq!(c.len(), 2);
    }

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
}
