//! The `Transcript`: the conversation plus the system prompt, and the exact message list
//! a model call gets (system prompt rendered fresh, conversation, this turn's tool traffic).

use crate::agent::conversation::Conversation;
use crate::agent::system_prompt::SystemPrompt;
use crate::protocol::Message;

#[derive(Clone, Debug)]
pub struct Transcript {
    pub conversation: Conversation,
    pub system_prompt: SystemPrompt,
}

impl Transcript {
    pub fn new(system_prompt: SystemPrompt) -> Self {
        Transcript { conversation: Conversation::new(), system_prompt }
    }

    /// A rough token count of what the next call carries (about 4 characters a token).
    pub fn estimated_tokens(&self) -> usize {
        let chars: usize = self.messages(&[]).iter().map(|m| m.text().chars().count() + 16).sum();
        chars / 4
    }

    /// The messages for one model call: system, kept conversation, then `scratch`
    /// (this turn's assistant tool calls and tool results).
    pub fn messages(&self, scratch: &[Message]) -> Vec<Message> {
        let mut messages = Vec::with_capacity(1 + self.conversation.len() + scratch.len());
        messages.push(Message::system(self.system_prompt.render()));
        messages.extend_from_slice(self.conversation.messages());
        messages.extend_from_slice(scratch);
        messages
    }
}
