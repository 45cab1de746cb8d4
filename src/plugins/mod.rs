//! The built-in plugins that are not tools: the slash commands and the permissions gate,
//! plus the project trust they (and, later, plugin files and MCP servers) consult.
//! Each plugin is a kernel `Plugin` (a setup block run against the `Session`);
//! `startup.rs` lists them.

pub mod commands;
pub mod context_commands;
pub mod permissions;
pub mod transcript_export;
pub mod trust;
