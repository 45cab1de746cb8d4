//! Stopping an MCP server's processes on Windows: its tree, killed with `taskkill /T`.

use super::Mark;

/// Kills the server and what it started (the mark is not looked for: no process
/// environments to read).
pub(super) fn stop(pid: i32, _mark: &Mark) {
    crate::process_tree::kill_group(pid);
}
