//! What extends the agent: hooks, MCP servers, Lua plugins, skills, instruction files.

mod agents_md;
mod hooks;
mod lua;
mod mcp;
mod skills;
