//! The integration tests, one module per area, linked as one test binary so the
//! suite builds and links the crate once.

mod permissions_support;
mod support;

mod agent_batching;
mod aimock;
mod ask_trickle;
mod cli;
mod context_window;
mod kernel;
mod kernel_extensions;
mod layers;
mod many_tool_calls;
mod markdown_props;
mod markdown_snapshots;
mod mcp;
mod mcp_hostile;
mod path_attacks;
mod paths;
mod permissions;
mod plugin_safety;
mod plugins_lua;
mod processes;
mod prompt_cache;
mod providers_anthropic;
mod providers_cli;
mod providers_ollama;
mod providers_openai;
mod readme_keys;
mod robustness_props;
mod sandbox;
mod sandbox_attacks;
mod sanitize_e2e;
mod session_files;
mod sessions;
mod shell_rules;
mod signals;
mod skills;
mod tool_safety;
mod tools;
mod trust;
mod tui_composer;
mod tui_keys;
mod tui_pty;
mod tui_snapshots;
mod undo_attacks;
