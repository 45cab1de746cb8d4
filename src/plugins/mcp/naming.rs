//! Toolbox names for a server's tools. `<server>_<tool>` with unsafe characters made `_`
//! can collide (`a.b` and `a_b` both become `x_a_b`, and `x_a`'s `b` too): a name already
//! taken, by this server's earlier tools or by any tool in the toolbox, gets the first free
//! suffix `_2`, `_3`, …, and a warning says which tool got which name. A tool whose schema
//! does not compile is skipped with a warning.

use super::bridge;
use super::servers::{Server, Servers};
use crate::agent::{Tool, Toolbox};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

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
        let name = if free(&base) {
            base.clone()
        } else {
            let mut n = next.get(&base).copied().unwrap_or(2);
            while !free(&format!("{base}_{n}")) {
                n += 1;
            }
            next.insert(base.clone(), n + 1);
            format!("{base}_{n}")
        };
        match bridge::kernel_tool(servers, &server.name, tool, &name) {
            Ok(kernel) => {
                if name != base {
                    warnings.push(format!(
                        "MCP server {}: tool {} is named {name} ({base} is taken)",
                        server.name, tool.name
                    ));
                }
                taken.insert(name);
                tools.push(kernel);
            }
            Err(error) => {
                warnings.push(format!("MCP server {}: skipping tool {}: {error}", server.name, tool.name));
            }
        }
    }
    (tools, warnings)
}
