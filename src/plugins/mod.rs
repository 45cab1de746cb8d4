//! The built-in plugins that are not tools: the slash commands and the permissions gate.
//! Each is a kernel `Plugin` (a setup block run against the `Session`); `startup.rs`
//! lists them.

pub mod commands;
pub mod context_commands;
pub mod mcp;
pub mod permissions;
pub mod transcript_export;
