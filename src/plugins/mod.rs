//! The built-in plugins that are not tools: the slash commands, the permissions gate and
//! the redaction of secrets from tool results.
//! Each is a kernel `Plugin` (a setup block run against the `Session`); `startup.rs`
//! lists them.

pub mod commands;
pub mod permissions;
pub mod redact;
