//! Prompt caching: the setting (`ELELEM_CACHE_TTL`: `5m`, the default, `1h` or `off`) and
//! where an Anthropic request body gets its `cache_control` breakpoints, so that every
//! request reads from the cache everything an earlier one already sent.
//!
//! A request is tools, then system, then messages; a breakpoint caches the prefix that ends
//! at it, and a later request reads the longest cached prefix it shares. Four at most (the
//! API's limit), placed as:
//! 1. the last tool definition (stable for the session: survives a system prompt change);
//! 2. the end of the system prompt (tools + system, written once per session);
//! 3. the end of the newest message (the next step of the turn reads all of this one);
//! 4. the end of the message the previous request ended with (the user message before the
//!    newest assistant message), so this request reads what the previous one wrote even
//!    when the step between added many blocks.

use serde_json::{json, Value};

/// Which cache a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptCache {
    Off,
    /// Anthropic's default lifetime, renewed by every read.
    FiveMinutes,
    /// For sessions with long pauses: writes cost 2x instead of 1.25x.
    OneHour,
}

impl PromptCache {
    /// `ELELEM_CACHE_TTL`, unset meaning five minutes.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("ELELEM_CACHE_TTL") {
            Ok(value) => Self::parse(&value),
            Err(_) => Ok(PromptCache::FiveMinutes),
        }
    }

    pub fn parse(value: &str) -> Result<Self, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "5m" | "5min" | "default" | "on" => Ok(PromptCache::FiveMinutes),
            "1h" | "60m" | "1hour" => Ok(PromptCache::OneHour),
            "off" | "0" | "none" | "no" => Ok(PromptCache::Off),
            other => Err(format!("ELELEM_CACHE_TTL: expected 5m, 1h or off, not {other:?}")),
        }
    }

    /// The `cache_control` value of a breakpoint, if caching is on.
    fn control(self) -> Option<Value> {
        match self {
            PromptCache::Off => None,
            PromptCache::FiveMinutes => Some(json!({"type": "ephemeral"})),
            PromptCache::OneHour => Some(json!({"type": "ephemeral", "ttl": "1h"})),
        }
    }
}

/// A key naming this run's requests (OpenAI's `prompt_cache_key`): the same for every
/// request of the process, different between processes.
pub fn run_key() -> String {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        format!("elelem-{:x}-{:x}", std::process::id(), nanos)
    })
    .clone()
}

/// The most breakpoints one request may carry.
pub const MAX_BREAKPOINTS: usize = 4;

/// Puts the breakpoints into an Anthropic Messages body (`tools`, `system` as a string,
/// `messages`); nothing when caching is off.
pub fn mark_anthropic(body: &mut Value, cache: PromptCache) {
    let Some(control) = cache.control() else { return };
    if let Some(last_tool) = body.get_mut("tools").and_then(Value::as_array_mut).and_then(|t| t.last_mut()) {
        last_tool["cache_control"] = control.clone();
    }
    if let Some(system) = body.get("system").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        body["system"] = json!([{"type": "text", "text": system, "cache_control": control.clone()}]);
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    let Some(newest) = messages.len().checked_sub(1) else { return };
    let previous_end = messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .and_then(|assistant| assistant.checked_sub(1))
        .filter(|&i| i != newest);
    for index in [Some(newest), previous_end].into_iter().flatten() {
        mark_message_end(&mut messages[index], &control);
    }
}

/// Marks the last block of `message` (its text becoming one block when it is a string).
fn mark_message_end(message: &mut Value, control: &Value) {
    let content = &mut message["content"];
    if let Some(text) = content.as_str() {
        if text.is_empty() {
            return;
        }
        *content = json!([{"type": "text", "text": text}]);
    }
    let Some(last) = content.as_array_mut().and_then(|blocks| blocks.last_mut()) else { return };
    // Thinking blocks cannot carry a breakpoint; a message ending in one is left unmarked.
    if matches!(last["type"].as_str(), Some("thinking" | "redacted_thinking")) {
        return;
    }
    if last.get("type").and_then(Value::as_str) == Some("text") && last["text"].as_str().is_some_and(str::is_empty) {
        return;
    }
    last["cache_control"] = control.clone();
}

/// Breakpoints in a body (for tests and the bench).
pub fn count_breakpoints(body: &Value) -> usize {
    match body {
        Value::Object(map) => {
            usize::from(map.contains_key("cache_control")) + map.values().map(count_breakpoints).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_breakpoints).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Value {
        json!({
            "system": "You are elelem.",
            "tools": [{"name": "read"}, {"name": "write"}],
            "messages": [
                {"role": "user", "content": "first prompt"},
                {"role": "assistant", "content": "first reply"},
                {"role": "user", "content": "read five files"},
                {"role": "assistant", "content": [{"type": "text", "text": "reading"}, {"type": "tool_use", "id": "a"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]}
            ]
        })
    }

    #[test]
    fn four_breakpoints_tools_system_the_newest_message_and_the_previous_requests_end() {
        let mut body = body();
        mark_anthropic(&mut body, PromptCache::FiveMinutes);
        assert_eq!(count_breakpoints(&body), MAX_BREAKPOINTS);
        let mark = json!({"type": "ephemeral"});
        assert_eq!(body["tools"][1]["cache_control"], mark);
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"], json!([{"type": "text", "text": "You are elelem.", "cache_control": mark}]));
        assert_eq!(body["messages"][4]["content"][0]["cache_control"], mark);
        assert_eq!(
            body["messages"][2]["content"],
            json!([{"type": "text", "text": "read five files", "cache_control": mark}])
        );
        assert_eq!(body["messages"][0]["content"], "first prompt");
    }

    #[test]
    fn the_first_request_of_a_session_marks_what_it_has_and_off_marks_nothing() {
        let mut first = json!({"system": "s", "tools": [], "messages": [{"role": "user", "content": "hi"}]});
        mark_anthropic(&mut first, PromptCache::OneHour);
        assert_eq!(count_breakpoints(&first), 2);
        assert_eq!(first["messages"][0]["content"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
        let mut off = body();
        mark_anthropic(&mut off, PromptCache::Off);
        assert_eq!(off, body());
    }

    #[test]
    fn thinking_and_empty_text_are_never_marked() {
        let mut body = json!({"messages": [
            {"role": "user", "content": ""},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]},
            {"role": "user", "content": [{"type": "text", "text": ""}]}
        ]});
        mark_anthropic(&mut body, PromptCache::FiveMinutes);
        assert_eq!(count_breakpoints(&body), 0);
    }

    #[test]
    fn the_setting_reads_5m_1h_and_off_and_refuses_anything_else() {
        assert_eq!(PromptCache::parse("1h"), Ok(PromptCache::OneHour));
        assert_eq!(PromptCache::parse("5m"), Ok(PromptCache::FiveMinutes));
        assert_eq!(PromptCache::parse("OFF"), Ok(PromptCache::Off));
        assert!(PromptCache::parse("2d").is_err());
    }
}
