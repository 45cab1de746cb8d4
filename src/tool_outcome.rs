//! What a finished tool call's result means on screen: whether it failed (an error, or a
//! command that exited non-zero), the short reason shown on its line (`exit 1`, the first
//! line of the error), and the command output whose tail is shown under it. The TUI's
//! conversation lines and tool log and the line REPL all ask here, so they always agree.
//! While a command runs, `live` keeps the bounded tail of what it printed so far.

pub mod live;

use crate::protocol::ToolResult;
use crate::sanitize::sanitize_visible;

/// A finished call as the user should see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub failed: bool,
    /// Why it failed, in one line: `exit 1`, or the first line of the error.
    pub reason: Option<String>,
}

/// The exit status of a command the call ran, when it reports one.
pub fn exit_status(result: &ToolResult) -> Option<i64> {
    result.get("exit_status")?.as_i64()
}

pub fn outcome(result: &ToolResult) -> Outcome {
    if let Some(error) = result.error() {
        let first = error.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("failed");
        return Outcome { failed: true, reason: Some(sanitize_visible(first).into_owned()) };
    }
    if !result.is_ok() {
        return Outcome { failed: true, reason: None };
    }
    match exit_status(result).filter(|code| *code != 0) {
        Some(code) => Outcome { failed: true, reason: Some(format!("exit {code}")) },
        None => Outcome { failed: false, reason: None },
    }
}

/// The output of a command: the result's `content` when the call ran a process (it
/// reports an exit status, or it streamed output while it ran).
pub fn command_output(result: &ToolResult, streamed: bool) -> Option<&str> {
    if !streamed && exit_status(result).is_none() {
        return None;
    }
    result.get("content")?.as_str().filter(|text| !text.trim().is_empty())
}

/// Output lines shown under a finished command.
pub const TAIL_LINES: usize = 3;

/// Where the tail starts: at the `TAIL_LINES`-th non-blank line from the end.
pub fn tail_start(lines: &[&str]) -> usize {
    let mut seen = 0;
    for (i, line) in lines.iter().enumerate().rev() {
        if !line.trim().is_empty() {
            seen += 1;
            if seen == TAIL_LINES {
                return i;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: serde_json::Value) -> ToolResult {
        ToolResult::from_value(value)
    }

    #[test]
    fn a_non_zero_exit_is_a_failure_with_its_status() {
        let ran = result(json!({"exit_status": 1, "content": "FAILED\n"}));
        assert_eq!(outcome(&ran), Outcome { failed: true, reason: Some("exit 1".into()) });
        assert_eq!(command_output(&ran, false), Some("FAILED\n"));
        let passed = result(json!({"exit_status": 0, "content": "ok\n"}));
        assert_eq!(outcome(&passed), Outcome { failed: false, reason: None });
    }

    #[test]
    fn an_error_shows_its_first_line() {
        let missing = result(json!({"error": "\nno such file: src/missing.py\nsecond line"}));
        assert_eq!(outcome(&missing).reason.as_deref(), Some("no such file: src/missing.py"));
        assert!(outcome(&missing).failed);
    }

    #[test]
    fn only_commands_have_output_to_show() {
        let read = result(json!({"content": "# README\n", "path": "README.md"}));
        assert_eq!(command_output(&read, false), None);
        assert_eq!(command_output(&read, true), Some("# README\n"));
    }
}
