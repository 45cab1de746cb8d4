//! What extends the agent: hooks, language servers, MCP servers, Lua plugins, skills, instruction files.

mod agent_files;
mod agents_md;
mod hooks;
mod lsp;
mod lua;
mod mcp;
mod skills;
