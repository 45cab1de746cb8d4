//! What a permission promises, tested from outside the way an attacker would: the sandbox, paths, files, trust, hostile servers.

mod file_attacks;
mod mcp_hostile;
mod path_attacks;
mod paths;
mod permissions;
mod plugin_safety;
pub mod sandbox;
mod sandbox_attacks;
mod sandbox_git;
mod sandbox_terminal;
mod sandbox_tree;
mod sandbox_visible;
mod shell_rules;
mod small_holes;
mod tool_safety;
mod trust;
mod undo_attacks;
