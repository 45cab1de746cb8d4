//! Keeping tool traffic: the tool calls of the last turn normally vanish when it ends
//! (ARCHITECTURE.md, "A turn"); the user can keep one — say, the test output — so the model still sees it.
//! A kept call is stored in the provider's native shape: an assistant message carrying the
//! call, then the tool message with its result — never as fake user text.

use crate::protocol::{Message, Role, ToolCall};

/// The tool calls in a turn's traffic, in order, with their results' messages.
pub fn calls(traffic: &[Message]) -> Vec<(&ToolCall, Option<&Message>)> {
    traffic
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls.iter())
        .map(|call| {
            let result = traffic.iter().find(|r| r.role == Role::Tool && r.tool_call_id.as_deref() == Some(&call.id));
            (call, result)
        })
        .collect()
}

/// The messages that keep `call` and its result, or `None` when it has no result.
pub fn keep(traffic: &[Message], call_id: &str) -> Option<Vec<Message>> {
    let (call, result) = calls(traffic).into_iter().find(|(c, _)| c.id == call_id)?;
    let mut assistant = Message::assistant("");
    assistant.tool_calls = vec![call.clone()];
    let mut kept = result?.clone();
    // A note pointing at another call of the turn would point at nothing once kept.
    kept.result = kept.result.map(|r| super::repeated_results::whole(traffic, r));
    Some(vec![assistant, kept])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolResult;
    use serde_json::json;

    #[test]
    fn keeps_one_call_with_its_result_in_native_shape() {
        let read = ToolCall { id: "a".into(), name: "read".into(), arguments: json!({"path": "x"}) };
        let run = ToolCall { id: "b".into(), name: "execute".into(), arguments: json!({"command": "t"}) };
        let mut assistant = Message::assistant("looking");
        assistant.tool_calls = vec![read.clone(), run.clone()];
        let traffic = vec![
            assistant,
            Message::tool_result(&read, ToolResult::from_value(json!({"content": "x"}))),
            Message::tool_result(&run, ToolResult::from_value(json!({"content": "ok 3 tests"}))),
        ];
        assert_eq!(calls(&traffic).len(), 2);
        let kept = keep(&traffic, "b").unwrap();
        assert_eq!(kept[0].tool_calls, vec![run]);
        assert_eq!(kept[1].text(), r#"{"content":"ok 3 tests","ok":true}"#);
        assert!(keep(&traffic, "zz").is_none());
    }
}
