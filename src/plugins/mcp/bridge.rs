//! The bridge from an MCP tool to a toolbox `Tool`: named `<server>_<tool>` (or the unique
//! name the refresh chose), with the server's input schema, `readOnlyHint` as `read_only`, a
//! summary from the first string argument, and a handler that sends `tools/call` (dropped,
//! and so cancelled on the server, when the turn is interrupted or the server's call time
//! limit passes) and maps the result: text and structured content to `content` (cut to
//! `TEXT_CAP`, head and tail, with a note), images and audio to a one-line note, `isError`
//! to `{"error": …}`.

use super::servers::{Servers, State};
use crate::agent::{Tool, ToolContext, ToolboxError};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool as McpTool};
use rmcp::ServiceError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The most text a result brings to the model: head and tail, like `execute`'s output.
pub const TEXT_CAP: usize = 32 * 1024;
/// Room for the note a stdio server's long string already carries (`bounded.rs`).
const NOTE_ROOM: usize = 256;

/// `<server>_<tool>`, with anything but letters, digits, `_` and `-` replaced by `_`
/// (provider tool names are that strict).
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("{server}_{tool}").chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// The toolbox tool for `tool` of `server`, named `name`.
pub fn kernel_tool(servers: &Arc<Servers>, server: &str, tool: &McpTool, name: &str) -> Result<Tool, ToolboxError> {
    let description = tool.description.as_deref().or(tool.title.as_deref()).unwrap_or_default();
    let description = format!("{description} (MCP server {server})");
    let schema = Value::Object((*tool.input_schema).clone());
    let (servers, server_name, remote) = (servers.clone(), server.to_string(), tool.name.to_string());
    let handler = move |args: Value, ctx: ToolContext| {
        let (servers, server, remote) = (servers.clone(), server_name.clone(), remote.clone());
        async move { call(&servers, &server, &remote, args, ctx).await }
    };
    // Claude Code's name for it, which hooks' matchers use (`plugins/hooks/config.rs`).
    let claude_name = format!("mcp__{server}__{}", tool.name);
    let mut kernel =
        Tool::new(name, &description, schema, handler)?.with_summary(first_string).with_aliases(&[&claude_name]);
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
    let limit = entry.call_timeout;
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
        result = tokio::time::timeout(limit, peer.call_tool(params)) => match result {
            Ok(result) => result,
            Err(_) => anyhow::bail!(
                "MCP server {server} did not answer {tool} within {} s; the call was cancelled \
                 (raise the server's \"timeout\", in seconds, in mcp.json)",
                limit.as_secs_f64()
            ),
        },
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

/// Maps a `tools/call` result to the toolbox's result value, its text cut to `TEXT_CAP`.
pub fn to_value(result: CallToolResult) -> Value {
    let text: Vec<String> = result.content.iter().map(block_text).collect();
    let text = cap(text.join("\n"));
    if result.is_error == Some(true) {
        let message = if text.is_empty() { "the tool reported an error".to_string() } else { text };
        return json!({ "error": message });
    }
    match result.structured_content {
        Some(structured) if text.is_empty() => json!({ "content": cap(structured.to_string()) }),
        Some(structured) => {
            let size = structured.to_string().len();
            if size > TEXT_CAP {
                let text = format!("{text}\n[structured content of {size} bytes left out: over {TEXT_CAP} bytes]");
                json!({ "content": text })
            } else {
                json!({ "content": text, "structured": structured })
            }
        }
        None => json!({ "content": text }),
    }
}

/// `text` if it is short; else its first and last `TEXT_CAP / 2` bytes and a note between.
pub fn cap(text: String) -> String {
    if text.len() <= TEXT_CAP + NOTE_ROOM {
        return text;
    }
    let mut head = TEXT_CAP / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - TEXT_CAP / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let cut = tail - head;
    format!(
        "{}\n[... {cut} bytes cut from the middle of {} bytes of output ...]\n{}",
        &text[..head],
        original_len(&text),
        &text[tail..]
    )
}

/// How long a text was before anything cut it: a note from `bounded.rs` or `cap` (with
/// the line breaks around it) says how much it replaced.
fn original_len(text: &str) -> usize {
    const OPEN: &str = "\n[... ";
    const CLOSE: &str = "...]\n";
    let Some(start) = text.find(OPEN) else { return text.len() };
    let after = &text[start + OPEN.len()..];
    let cut = after.split(' ').next().and_then(|n| n.parse::<usize>().ok());
    match (cut, after.find(CLOSE)) {
        (Some(cut), Some(end)) if after.contains(" bytes cut from the middle of ") => {
            (text.len() - (OPEN.len() + end + CLOSE.len())).saturating_add(cut)
        }
        _ => text.len(),
    }
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => {
            format!("[image: {}, {} bytes of data, not shown to the model]", image.mime_type, original_len(&image.data))
        }
        ContentBlock::Audio(audio) => {
            format!("[audio: {}, {} bytes of data, not shown to the model]", audio.mime_type, original_len(&audio.data))
        }
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
        let kernel = kernel_tool(&servers, "srv", &tool, "srv_look").unwrap();
        assert_eq!(kernel.name, "srv_look");
        assert!(kernel.read_only);
        assert_eq!(kernel.summarize(&json!({"n": 1, "path": "a.txt"})), "a.txt");
        let bad: McpTool =
            serde_json::from_value(json!({"name": "bad", "inputSchema": {"type": "object", "properties": 5}})).unwrap();
        assert!(kernel_tool(&servers, "srv", &bad, "srv_bad").is_err());
    }

    #[test]
    fn cuts_long_text_and_structured_content_and_notes_images() {
        let long = format!("BEGIN{}END", "é".repeat(100_000));
        let cut = to_value(result(json!({"content": [{"type": "text", "text": long}]})));
        let content = cut["content"].as_str().unwrap();
        assert!(content.starts_with("BEGINé") && content.ends_with("éEND"));
        assert!(content.len() < TEXT_CAP + 100, "{}", content.len());
        assert!(content.contains(&format!("bytes cut from the middle of {} bytes of output", long.len())));
        let structured = json!({"rows": vec!["row"; 20_000]});
        let size = structured.to_string().len();
        let both = result(json!({"content": [{"type": "text", "text": "rows"}], "structuredContent": structured}));
        let value = to_value(both);
        assert!(value.get("structured").is_none());
        assert!(value["content"].as_str().unwrap().contains(&format!("structured content of {size} bytes left out")));
        let image = result(json!({"content": [{"type": "image", "mimeType": "image/png", "data": "QUJD"}]}));
        assert_eq!(to_value(image)["content"], "[image: image/png, 4 bytes of data, not shown to the model]");
        // Data a stdio server's answer already had cut says its whole size.
        let data = "AAAA\n[... 999 bytes cut from the middle of 1007 bytes ...]\nAAAA";
        let image = result(json!({"content": [{"type": "image", "mimeType": "image/png", "data": data}]}));
        assert_eq!(to_value(image)["content"], "[image: image/png, 1007 bytes of data, not shown to the model]");
        // A server's own fake note cannot overflow the sum.
        let data = format!("A\n[... {} bytes cut from the middle of 1 bytes ...]\nA", usize::MAX);
        let image = result(json!({"content": [{"type": "image", "mimeType": "image/png", "data": data}]}));
        assert!(to_value(image)["content"].as_str().unwrap().contains(&usize::MAX.to_string()));
    }
}
