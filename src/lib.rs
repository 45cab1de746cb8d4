//! elelem: a terminal coding agent. `protocol` is the shared vocabulary (a leaf); the
//! kernel (`agent`) runs the loop; `providers` talk to models; `tools` and `plugins` fill
//! the toolbox and commands; `pacing` paces a provider's stream for the front ends that ask;
//! `startup` composes them; `repl`, `ask` and `tui` are the front ends, `acp` and
//! `mcp_server` serve the agent to editors and MCP clients (`tool_outcome` is
//! what a tool result means on screen, for the first and last; `json_lines` writes the JSON
//! lines of `ask --json` and the session files).

pub mod acp;
pub mod agent;
pub mod ask;
pub mod bytes;
pub mod clipboard;
pub mod data_dir;
pub mod dates;
pub mod editor;
pub mod files;
pub mod instructions;
pub mod json_lines;
pub mod mcp_server;
pub mod pacing;
pub mod panics;
pub mod paths;
pub mod plugins;
pub mod process_tree;
pub mod protocol;
pub mod providers;
pub mod relocations;
pub mod repl;
pub mod safe_file;
pub mod sanitize;
pub mod sessions;
pub mod signals;
pub mod startup;
pub mod tls;
pub mod tool_outcome;
pub mod tools;
pub mod tui;
