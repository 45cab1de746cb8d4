//! The bridge from an MCP tool to a toolbox `Tool`: named `<server>_<tool>`, with the
//! server's input schema, `readOnlyHint` as `read_only`, a summary from the first string
//! argument, and a handler that sends `tools/call` (dropped, and so cancelled on the
//! server, when the turn is interrupted) and maps the result: text and structured content
//! to `content`, `isError` to `{"error": …}`.

use super::servers::{Servers, State};
use crate::agent::{Tool, ToolContext, ToolboxError};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool as McpTool};
use rmcp::ServiceError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// `<server>_<tool>`, with anything but letters, digits, `_` and `-` replaced by `_`
/// (provider tool names are that strict).
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("{server}_{tool}").chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// The toolbox tool for `tool` of `server`.
pub fn kernel_tool(servers: &Arc<Servers>, server: &str, tool: &McpTool) -> Result<Tool, ToolboxError> {
    let name = tool_name(server, &tool.name);
    let description = tool.description.as_deref().or(tool.title.as_deref()).unwrap_or_default();
    let description = format!("{description} (MCP server {server})");
    let schema = Value::Object((*tool.input_schema).clone());
    let (servers, server_name, remote) = (servers.clone(), server.to_string(), tool.name.to_string());
    let handler = move |args: Value, ctx: ToolContext| {
        let (servers, server, remote) = (servers.clone(), server_name.clone(), remote.clone());
        async move { call(&servers, &server, &remote, args, ctx).await }
    };
    let mut kernel = Tool::new(&name, &description, schema, handler)?.with_summary(first_string);
    if tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true) {
        kernel = kernel.read_only();
    }
    Ok(kernel)
}

/// The first string argument, the call's one-line summary.
fn first_string(args: &Value) -> String {
    let first = args.as_object().and_then(|o| o.values().find_map(Value::as_str));
    first.unwrap_or_default().to_string()
}

async fn call(servers: &Servers, server: &str, tool: &str, args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let entry = servers.get(server).ok_or_else(|| anyhow::anyhow!("MCP server {server} is not configured"))?;
    let peer = match (&entry.state, entry.peer) {
        (State::Ready, Some(peer)) => peer,
        (State::Failed(reason), _) => anyhow::bail!("MCP server {server} is not running: {reason}"),
        _ => anyhow::bail!("MCP server {server} is still starting"),
    };
    let arguments = match args {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    // Dropping the call future sends `notifications/cancelled` to the server.
    let result = tokio::select! {
        result = peer.call_tool(params) => result,
        _ = ctx.cancel.cancelled() => anyhow::bail!("interrupted; cancelled on MCP server {server}"),
    };
    match result {
        Ok(result) => Ok(to_value(result)),
        Err(error) => {
            if matches!(error, ServiceError::TransportClosed | ServiceError::TransportSend(_))
                || peer.is_transport_closed()
            {
                // The server went away mid-call: its connection task says so (with the stderr
                // tail) before this result does, waited for at most a second.
                let _ = tokio::time::timeout(std::time::Duration::from_secs(1), servers.failed(server)).await;
            }
            let tail = servers.stderr_tail(server);
            anyhow::bail!("MCP server {server} failed during {tool}: {error}{tail}")
        }
    }
}

/// Maps a `tools/call` result to the toolbox's result value.
pub fn to_value(result: CallToolResult) -> Value {
    let text: Vec<String> = result.content.iter().map(block_text).collect();
    let text = text.join("\n");
    if result.is_error == Some(true) {
        let message = if text.is_empty() { "the tool reported an error".to_string() } else { text };
        return json!({ "error": message });
    }
    match result.structured_content {
        Some(structured) if text.is_empty() => json!({ "content": structured.to_string() }),
        Some(structured) => json!({ "content": text, "structured": structured }),
        None => json!({ "content": text }),
    }
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!("[image: {}]", image.mime_type),
        ContentBlock::Audio(audio) => format!("[audio: {}]", audio.mime_type),
        ContentBlock::Resource(resource) => match serde_json::to_value(&resource.resource) {
            Ok(value) => match value.get("text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!("[resource: {}]", value.get("uri").and_then(Value::as_str).unwrap_or("?")),
            },
            Err(_) => "[resource]".to_string(),
        },
        ContentBlock::ResourceLink(link) => format!("[resource link: {}]", link.uri),
        _ => "[content]".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn names_are_server_then_tool_with_safe_characters() {
        assert_eq!(tool_name("everything", "echo"), "everything_echo");
        assert_eq!(tool_name("my.server", "get sum"), "my_server_get_sum");
    }

    #[test]
    fn maps_text_structured_and_error_results() {
        let text = result(json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}));
        assert_eq!(to_value(text), json!({"content": "a\nb"}));
        let structured = result(json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(to_value(structured), json!({"content": "{\"sum\":3}"}));
        let both = result(json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}));
        assert_eq!(to_value(both), json!({"content": "3", "structured": {"sum": 3}}));
        let error = result(json!({"content": [{"type": "text", "text": "bad input"}], "isError": true}));
        assert_eq!(to_value(error), json!({"error": "bad input"}));
    }

    #[test]
    fn read_only_hint_and_summary_and_invalid_schema() {
        let servers = Servers::new();
        let tool: McpTool = serde_json::from_value(json!({
            "name": "look", "description": "Looks",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "number"}, "path": {"type": "string"}}},
            "annotations": {"readOnlyHint": true}
        }))
        .unwrap();
        let kernel = kernel_tool(&servers, "srv", &tool).unwrap();
        assert_eq!(kernel.name, "srv_look");
        assert!(kernel.read_only);
        assert_eq!(kernel.summarize(&json!({"n": 1, "path": "a.txt"})), "a.txt");
        let bad: McpTool =
            serde_json::from_value(json!({"name": "bad", "inputSchema": {"type": "object", "properties": 5}})).unwrap();
        assert!(kernel_tool(&servers, "srv", &bad).is_err());
    }
}
