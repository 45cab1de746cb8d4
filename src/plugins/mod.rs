//! The built-in plugins that are not tools: the slash commands, the permissions gate and
//! the loader of Lua plugin files. Each is a kernel `Plugin` (a setup block run against the
//! `Session`); `startup.rs` lists them.

pub mod commands;
pub mod lua;
pub mod permissions;
