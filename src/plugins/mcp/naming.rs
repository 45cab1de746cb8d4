//! Toolbox names for a server's tools. `<server>_<tool>` with unsafe characters made `_`
//! can collide (`a.b` and `a_b` both become `x_a_b`, and `x_a`'s `b` too): a name already
//! taken, by this server's earlier tools or by any tool in the toolbox, gets the first free
//! suffix `_2`, `_3`, …, and a warning says which tool got which name. Names are cut to
//! `NAME_CAP` characters (the providers' limit), suffix included. A tool whose schema does
//! not compile is skipped with a warning.

use super::bridge;
use super::servers::{Server, Servers};
use crate::agent::{Tool, Toolbox};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The longest tool name the providers take (Anthropic's and OpenAI's limit).
pub const NAME_CAP: usize = 64;

/// `base` with `suffix`, cut so the whole fits `NAME_CAP` (names are ASCII).
fn fit(base: &str, suffix: &str) -> String {
    let keep = NAME_CAP.saturating_sub(suffix.len()).min(base.len());
    format!("{}{suffix}", &base[..keep])
}

/// The kernel tools for `server`'s tools, named uniquely against `toolbox`, and warnings.
pub fn kernel_tools(servers: &Arc<Servers>, server: &Server, toolbox: &Toolbox) -> (Vec<Tool>, Vec<String>) {
    let mut taken: HashSet<String> = HashSet::new();
    // The next suffix to try per base name, so many duplicates stay linear.
    let mut next: HashMap<String, usize> = HashMap::new();
    let mut tools = Vec::with_capacity(server.tools.len());
    let mut warnings = Vec::new();
    for tool in &server.tools {
        let base = bridge::tool_name(&server.name, &tool.name);
        let free = |name: &str| !taken.contains(name) && toolbox.get(name).is_none();
        let name = if free(&fit(&base, "")) {
            fit(&base, "")
        } else {
            let mut n = next.get(&base).copied().unwrap_or(2);
            while !free(&fit(&base, &format!("_{n}"))) {
                n += 1;
            }
            next.insert(base.clone(), n + 1);
            fit(&base, &format!("_{n}"))
        };
        match bridge::kernel_tool(servers, &server.name, tool, &name) {
            Ok(kernel) => {
                if name != fit(&base, "") {
                    warnings.push(format!(
                        "MCP server {}: tool {} is named {name} ({} is taken)",
                        server.name,
                        tool.name,
                        fit(&base, "")
                    ));
                } else if name != base {
                    warnings.push(format!(
                        "MCP server {}: tool {} is named {name} (cut to {NAME_CAP} characters)",
                        server.name,
                        short(&tool.name)
                    ));
                }
                taken.insert(name);
                tools.push(kernel);
            }
            Err(error) => {
                warnings.push(format!("MCP server {}: skipping tool {}: {error}", server.name, short(&tool.name)));
            }
        }
    }
    (tools, warnings)
}

/// A tool's name for a message: its first 100 characters.
fn short(name: &str) -> String {
    match name.char_indices().nth(100) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Tool as McpTool;
    use serde_json::json;

    #[test]
    fn names_are_unique_and_fit_the_providers_limit() {
        let servers = Servers::new();
        let long = "n".repeat(300);
        let tools: Vec<McpTool> = ["a.b", "a_b", long.as_str(), long.as_str()]
            .iter()
            .map(|name| serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}})).unwrap())
            .collect();
        let server = Server { tools, ..servers_entry() };
        let (kernel, warnings) = kernel_tools(&servers, &server, &Toolbox::new());
        let names: Vec<&str> = kernel.iter().map(|t| t.name.as_str()).collect();
        let cut = format!("x_{}", "n".repeat(62));
        let cut_2 = format!("x_{}_2", "n".repeat(60));
        assert_eq!(names, ["x_a_b", "x_a_b_2", cut.as_str(), cut_2.as_str()]);
        assert!(names.iter().all(|n| n.len() <= NAME_CAP));
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[1].contains("cut to 64 characters") && warnings[1].len() < 300, "{warnings:?}");
    }

    fn servers_entry() -> Server {
        Server {
            name: "x".into(),
            endpoint: "stdio: x".into(),
            state: super::super::servers::State::Ready,
            tools: Vec::new(),
            peer: None,
            generation: 1,
            call_timeout: std::time::Duration::from_secs(1),
            names: Vec::new(),
        }
    }
}
