//! The client's MCP servers (`session/new`'s and `session/load`'s `mcpServers`): stdio
//! and HTTP servers become elelem MCP servers, started beside the ones of the user's
//! `.agents/mcp.json` (whose server keeps a name both use). SSE servers are not offered in
//! `initialize`, so one is skipped with a notice.

use super::rpc::RpcError;
use crate::startup::{McpServer, McpTransport, DEFAULT_CALL_TIMEOUT};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `[{name, value}]` as a map (entries without both strings are an error).
fn pairs(list: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, RpcError> {
    let mut map = BTreeMap::new();
    for entry in list.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
        match (entry.get("name").and_then(Value::as_str), entry.get("value").and_then(Value::as_str)) {
            (Some(name), Some(value)) => map.insert(name.to_string(), value.to_string()),
            _ => {
                return Err(RpcError::invalid_params(format!(
                    "invalid params: an MCP server's {what} needs a name and a value"
                )))
            }
        };
    }
    Ok(map)
}

/// The servers of the params, or a clear error.
pub fn servers(params: &Value) -> Result<Vec<McpServer>, RpcError> {
    let Some(list) = params.get("mcpServers").filter(|v| !v.is_null()) else { return Ok(Vec::new()) };
    let list =
        list.as_array().ok_or_else(|| RpcError::invalid_params("invalid params: \"mcpServers\" must be an array"))?;
    let mut servers = Vec::new();
    for server in list {
        let name = server.get("name").and_then(Value::as_str).filter(|n| !n.is_empty());
        let name = name.ok_or_else(|| RpcError::invalid_params("invalid params: an MCP server needs a name"))?;
        let transport = match server.get("type").and_then(Value::as_str) {
            None | Some("stdio") => {
                let command = server.get("command").and_then(Value::as_str).ok_or_else(|| {
                    RpcError::invalid_params(format!("invalid params: MCP server {name} needs a command"))
                })?;
                let args = server.get("args").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
                let args: Option<Vec<String>> = args.iter().map(|a| a.as_str().map(str::to_string)).collect();
                let args = args.ok_or_else(|| {
                    RpcError::invalid_params(format!("invalid params: MCP server {name}'s args must be strings"))
                })?;
                McpTransport::Stdio { command: command.to_string(), args, env: pairs(server.get("env"), "env")? }
            }
            Some("http") => {
                let url = server.get("url").and_then(Value::as_str).ok_or_else(|| {
                    RpcError::invalid_params(format!("invalid params: MCP server {name} needs a url"))
                })?;
                McpTransport::Http { url: url.to_string(), headers: pairs(server.get("headers"), "headers")? }
            }
            Some(other) => {
                super::updates::log(&format!("MCP server {name}: {other} servers are not supported; skipped"));
                continue;
            }
        };
        servers.push(McpServer {
            name: name.to_string(),
            transport,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            source: PathBuf::from("the editor (ACP session/new)"),
        });
    }
    Ok(servers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_clients_servers_become_elelem_servers() {
        let params = json!({"mcpServers": [
            {"name": "fs", "command": "node", "args": ["server.js"], "env": [{"name": "A", "value": "1"}]},
            {"type": "http", "name": "web", "url": "http://127.0.0.1:1/mcp", "headers": []},
            {"type": "sse", "name": "old", "url": "http://127.0.0.1:1/sse", "headers": []}
        ]});
        let found = servers(&params).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0].transport,
            McpTransport::Stdio {
                command: "node".into(),
                args: vec!["server.js".into()],
                env: BTreeMap::from([("A".into(), "1".into())])
            }
        );
        assert!(matches!(&found[1].transport, McpTransport::Http { url, .. } if url == "http://127.0.0.1:1/mcp"));
        assert!(servers(&json!({"mcpServers": [{"command": "x"}]})).is_err());
        assert!(servers(&json!({"mcpServers": [{"name": "x", "command": "y", "args": [1]}]})).is_err());
        assert!(servers(&json!({"mcpServers": 3})).is_err());
        assert!(servers(&json!({})).unwrap().is_empty());
    }
}
