//! The built-in plugins that are not tools: the slash commands, the permissions gate, file
//! checkpoints with `/undo`, the redaction of secrets from tool results, Agent Skills and
//! Markdown slash commands (files other agents read), the `AGENTS.md` of folders the model
//! opens files in, hooks in Claude Code's format, plus the
//! project trust they (and plugin files and MCP servers) consult. Each plugin is a kernel `Plugin` (a setup block run
//! against the `Session`); `startup.rs` lists them.

pub mod agent_files;
pub mod agents_json;
pub mod checkpoints;
pub mod commands;
pub mod context_commands;
pub mod cost;
pub mod front_matter;
pub mod hooks;
pub mod jobs_command;
pub mod lsp;
pub mod lua;
pub mod mcp;
pub mod md_commands;
pub mod mentions;
pub mod models_command;
pub mod nested_agents;
pub mod permissions;
pub mod redact;
pub mod sandbox_command;
pub mod shared_dirs;
pub mod shell_escape;
pub mod skills;
pub mod transcript_export;
pub mod transcript_log;
pub mod trust;
pub mod trust_items;
