//! Repeated results: a read-only tool call whose result is exactly the result of an earlier
//! call of the same tool that the model still sees — in this turn's tool traffic, or a kept
//! call in the conversation — goes back to the model as a short note naming that call
//! instead of the same text again (a file re-read unchanged, the same window of lines).
//!
//! The memory is the context itself: the earlier result must be in the messages the next
//! request carries, whole. So it is per conversation and forgets on its own — a turn's
//! traffic is dropped when the turn ends (the next turn's first read gets the content), and
//! a result the window cut (`window::fit`) no longer matches (a re-read gets the content;
//! the notes that pointed at it are rewritten to say it was cut, `orphan`). A file changed
//! since gives another result, sent whole. A note the user keeps (`/context keep`) is kept
//! as the result it points at (`whole`).

use crate::protocol::{Message, ToolResult};
use serde_json::{Map, Value};

/// The field a note carries: the id of the call whose result it repeats.
pub const SAME_AS: &str = "same_as";

/// Results smaller than this (bytes of text) are sent again: a note would save nothing.
const MIN_BYTES: usize = 512;

/// A result field up to this long (path, line count, exit code) stays in the note.
const KEEP_FIELD_BYTES: usize = 200;

/// `result` of a call of `tool` (its canonical name; `read_only` as the tool says), or a
/// note when an earlier result in `conversation` or `scratch` is the same. `resolve` gives
/// a message's tool name as canonical (an alias names the same tool).
pub fn shorten(
    tool: &str,
    read_only: bool,
    result: ToolResult,
    conversation: &[Message],
    scratch: &[Message],
    resolve: impl Fn(&str) -> String,
) -> ToolResult {
    if !read_only || !result.is_ok() || text_bytes(&result) < MIN_BYTES {
        return result;
    }
    let earlier = conversation
        .iter()
        .chain(scratch)
        .find(|m| m.result.as_ref() == Some(&result) && m.name.as_deref().is_some_and(|name| resolve(name) == tool));
    let Some(id) = earlier.and_then(|m| m.tool_call_id.clone()) else { return result };
    let content = format!(
        "[unchanged: the same result as your {tool} call {id} above, which is still in this conversation; \
         not repeated]"
    );
    note(&result, &id, content)
}

/// Rewrites the notes in `messages` that point at call `id`, whose result was just cut from
/// the context: they now say so, and how to get the text back.
pub fn orphan(messages: &mut [Message], id: &str) {
    for message in messages {
        let Some(result) = message.result.as_ref() else { continue };
        if result.get(SAME_AS).and_then(Value::as_str) != Some(id) {
            continue;
        }
        let tool = message.name.as_deref().unwrap_or("the tool");
        let content = format!(
            "[the same result as call {id}, whose text was cut since to keep the request inside the \
             context window; call {tool} again if you need it]"
        );
        message.result = Some(note(result, id, content));
    }
}

/// `result`, or when it is a note, the result it points at in `traffic` (kept on its own,
/// a note would point at nothing).
pub fn whole(traffic: &[Message], result: ToolResult) -> ToolResult {
    let Some(id) = result.get(SAME_AS).and_then(Value::as_str) else { return result };
    traffic.iter().find(|m| m.tool_call_id.as_deref() == Some(id)).and_then(|m| m.result.clone()).unwrap_or(result)
}

/// `result`'s short fields, `same_as: id` and `content`.
fn note(result: &ToolResult, id: &str, content: String) -> ToolResult {
    let mut fields: Map<String, Value> = result
        .fields()
        .iter()
        .filter(|(key, value)| *key != "content" && value.to_string().len() <= KEEP_FIELD_BYTES)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    fields.insert(SAME_AS.into(), Value::String(id.to_string()));
    fields.insert("content".into(), Value::String(content));
    ToolResult::from_value(Value::Object(fields))
}

/// The bytes of text a result carries (its string fields), without serialising it.
fn text_bytes(result: &ToolResult) -> usize {
    result.fields().values().map(|v| v.as_str().map_or(8, str::len)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ToolCall;
    use serde_json::json;

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall { id: id.into(), name: name.into(), arguments: json!({"path": "a.txt"}) }
    }

    fn result(text: &str) -> ToolResult {
        ToolResult::from_value(json!({"content": text, "path": "a.txt", "lines": 3}))
    }

    fn same(name: &str) -> String {
        if name == "cat" {
            "read".into()
        } else {
            name.into()
        }
    }

    #[test]
    fn the_same_result_of_the_same_tool_becomes_a_note_naming_the_earlier_call() {
        let big = "x".repeat(2_000);
        let scratch = vec![Message::tool_result(&call("t3", "cat"), result(&big))];
        let noted = shorten("read", true, result(&big), &[], &scratch, same);
        assert_eq!(noted.get(SAME_AS), Some(&json!("t3")));
        assert_eq!(noted.get("path"), Some(&json!("a.txt")));
        assert_eq!(noted.get("lines"), Some(&json!(3)));
        assert!(noted.is_ok());
        let content = noted.get("content").and_then(Value::as_str).unwrap();
        assert!(content.contains("same result as your read call t3 above"), "{content}");
        // A kept call in the conversation counts too.
        let noted = shorten("read", true, result(&big), &scratch, &[], same);
        assert_eq!(noted.get(SAME_AS), Some(&json!("t3")));
    }

    #[test]
    fn changed_small_failed_or_not_read_only_results_and_other_tools_are_sent_whole() {
        let big = "x".repeat(2_000);
        let scratch = vec![Message::tool_result(&call("t3", "read"), result(&big))];
        let other = "y".repeat(2_000);
        assert_eq!(shorten("read", true, result(&other), &[], &scratch, same), result(&other));
        assert_eq!(shorten("read", false, result(&big), &[], &scratch, same), result(&big));
        assert_eq!(shorten("grep", true, result(&big), &[], &scratch, same), result(&big));
        let small = vec![Message::tool_result(&call("t3", "read"), result("hi"))];
        assert_eq!(shorten("read", true, result("hi"), &[], &small, same), result("hi"));
        let failed = ToolResult::from_value(json!({"error": big.clone()}));
        let scratch = vec![Message::tool_result(&call("t3", "read"), failed.clone())];
        assert_eq!(shorten("read", true, failed.clone(), &[], &scratch, same), failed);
    }

    #[test]
    fn a_note_whose_call_was_cut_says_so() {
        let big = "x".repeat(2_000);
        let first = Message::tool_result(&call("t3", "read"), result(&big));
        let noted = shorten("read", true, result(&big), &[], std::slice::from_ref(&first), same);
        let mut scratch = vec![first, Message::tool_result(&call("t4", "read"), noted)];
        orphan(&mut scratch, "t3");
        let content = scratch[1].result.as_ref().and_then(|r| r.get("content")).and_then(Value::as_str).unwrap();
        assert!(content.contains("cut since") && content.contains("call read again"), "{content}");
        // Nothing else is touched.
        assert_eq!(scratch[0].result, Some(result(&big)));
    }

    #[test]
    fn a_note_kept_on_its_own_is_the_result_it_points_at() {
        let big = "x".repeat(2_000);
        let first = Message::tool_result(&call("t3", "read"), result(&big));
        let noted = shorten("read", true, result(&big), &[], std::slice::from_ref(&first), same);
        assert_eq!(whole(std::slice::from_ref(&first), noted.clone()), result(&big));
        assert_eq!(whole(&[], noted.clone()), noted, "nothing to point at: the note stays");
        assert_eq!(whole(&[], result("y")), result("y"));
    }
}
