//! The front ends other than the TUI: `ask`, the CLI verbs, ACP for editors, the MCP
//! server, signals.

mod acp;
mod ask_trickle;
mod cli;
mod json_schema;
mod mcp_server;
mod signals;
