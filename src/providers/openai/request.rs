//! The OpenAI request's messages: each `Message` in Chat Completions shape (tool calls
//! with their arguments as a JSON string, `tool` results), and images as `image_url` parts
//! with data URLs, a tool result's after the step's tool messages.

use crate::protocol::{Image, Message, Role};
use serde_json::{json, Value};

/// The messages in Chat Completions shape. A tool message cannot hold an image there, so
/// the images of a step's tool results (`read` of a png) follow its tool messages as one
/// user message of `image_url` parts, each after a text part naming the call it answers.
pub(super) fn messages(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut from_tools: Vec<Value> = Vec::new();
    for item in messages {
        if item.role != Role::Tool && !from_tools.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(&mut from_tools)}));
        }
        if item.role == Role::Tool && item.images.iter().any(|i| i.data.is_some()) {
            let id = item.tool_call_id.as_deref().unwrap_or_default();
            from_tools.push(json!({"type": "text", "text": format!("The image the tool call {id} returned:")}));
            from_tools.extend(image_parts(&item.images));
        }
        out.push(message(item));
    }
    if !from_tools.is_empty() {
        out.push(json!({"role": "user", "content": from_tools}));
    }
    out
}

/// `image_url` parts with data URLs, for the images that were read.
pub(super) fn image_parts(images: &[Image]) -> Vec<Value> {
    images
        .iter()
        .filter(|i| i.data.is_some())
        .map(|i| json!({"type": "image_url", "image_url": {"url": i.data_url()}}))
        .collect()
}

/// One message in Chat Completions shape.
pub(super) fn message(message: &Message) -> Value {
    match message.role {
        Role::User if message.images.iter().any(|i| i.data.is_some()) => {
            let mut parts = vec![json!({"type": "text", "text": message.content})];
            parts.extend(image_parts(&message.images));
            json!({"role": "user", "content": parts})
        }
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": message.tool_call_id.clone().unwrap_or_default(),
            "content": message.text(),
        }),
        Role::Assistant if !message.tool_calls.is_empty() => {
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": c.arguments.to_string()}})
                })
                .collect();
            let content = if message.content.is_empty() { Value::Null } else { json!(message.content) };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        role => json!({"role": role.as_str(), "content": message.content}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;

    #[test]
    fn a_tool_results_image_follows_the_steps_tool_messages_as_a_user_message() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
        let image = Image::from_bytes("a.png", None, png).unwrap();
        let calls = [("r1", "read"), ("r2", "glob")].map(|(id, name)| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({}),
        });
        let mut assistant = Message::assistant("");
        assistant.tool_calls = calls.to_vec();
        let mut read = Message::tool_result(&calls[0], crate::protocol::ToolResult::from_value(json!("img")));
        read.images = vec![image.clone()];
        let glob = Message::tool_result(&calls[1], crate::protocol::ToolResult::from_value(json!("x")));
        let out = messages(&[Message::user("look"), assistant, read, glob]);
        let roles: Vec<&str> = out.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "user"]);
        assert_eq!(out[2]["content"], json!("{\"content\":\"img\",\"ok\":true}"));
        assert_eq!(
            out[4]["content"],
            json!([{"type": "text", "text": "The image the tool call r1 returned:"},
                   {"type": "image_url", "image_url": {"url": image.data_url()}}])
        );
    }

    #[test]
    fn assistant_tool_calls_carry_arguments_as_a_json_string() {
        let mut assistant = Message::assistant("");
        assistant.tool_calls =
            vec![ToolCall { id: "call_1".into(), name: "read".into(), arguments: json!({"path": "a"}) }];
        assert_eq!(
            message(&assistant),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]})
        );
    }
}
