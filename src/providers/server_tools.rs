//! Tools a provider runs on its own side, offered when the user turns them on
//! (`--web-search`): Anthropic's web search server tool, and how its stream blocks
//! (`server_tool_use`, then `web_search_tool_result`) become one `ProviderEvent::ServerTool`
//! that front ends show as a tool row. Nothing here runs anything locally.

use crate::protocol::{ProviderEvent, ToolCall, ToolResult};
use serde_json::{json, Value};

/// Searches one response may make.
pub const WEB_SEARCH_MAX_USES: u32 = 5;

/// Anthropic's web search tool definition.
pub fn web_search_tool() -> Value {
    json!({"type": "web_search_20250305", "name": "web_search", "max_uses": WEB_SEARCH_MAX_USES})
}

/// The event for a server tool's result block (`web_search_tool_result` and the like):
/// the call it answers, a one-line summary (the query), and the results as `title — url`
/// lines, or a failure carrying the error code.
pub fn finished(call: ToolCall, block: &Value) -> ProviderEvent {
    let summary = match call.arguments.get("query").and_then(Value::as_str) {
        Some(query) => query.to_string(),
        None => call.arguments.to_string(),
    };
    let content = block.get("content").unwrap_or(&Value::Null);
    let result = match content {
        Value::Array(items) => {
            let lines: Vec<String> = items
                .iter()
                .map(|item| {
                    let field = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
                    format!("{} — {}", field("title"), field("url"))
                })
                .collect();
            ToolResult::from_value(
                json!({"content": lines.join("\n"), "results": items.len(), "ran": "on the provider's side"}),
            )
        }
        other => {
            let code = other.get("error_code").and_then(Value::as_str).unwrap_or("unknown error");
            ToolResult::failure(format!("{} failed on the provider's side: {code}", call.name))
        }
    };
    ProviderEvent::ServerTool { call, summary, result }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_become_lines_and_errors_failures() {
        let call = ToolCall { id: "s1".into(), name: "web_search".into(), arguments: json!({"query": "rust 1.90"}) };
        let block = json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": [
            {"type": "web_search_result", "title": "Rust 1.90", "url": "https://blog.rust-lang.org/", "encrypted_content": "x"}]});
        let ProviderEvent::ServerTool { summary, result, .. } = finished(call.clone(), &block) else { panic!() };
        assert_eq!(summary, "rust 1.90");
        assert_eq!(result.get("content"), Some(&json!("Rust 1.90 — https://blog.rust-lang.org/")));
        let error = json!({"content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}});
        let ProviderEvent::ServerTool { result, .. } = finished(call, &error) else { panic!() };
        assert_eq!(result.error(), Some("web_search failed on the provider's side: max_uses_exceeded"));
    }
}
