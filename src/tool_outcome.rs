//! What a finished tool call's result means on screen: whether it failed (an error, or a
//! command that exited non-zero), the short reason shown on its line (`exit 1`, the first
//! line of the error; `· blocked by the sandbox · /sandbox` after it when the sandbox's
//! rules refused the command), and the command output whose tail is shown under it. The TUI's
//! conversation lines and tool log and the line REPL all ask here, so they always agree.
//! While a command runs, `live` keeps the bounded tail of what it printed so far.

pub mod live;

use crate::protocol::ToolResult;
use crate::sanitize::sanitize_visible;

/// A finished call as the user should see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub failed: bool,
    /// Why it failed, in one line: `exit 1`, or the first line of the error; ending with
    /// `SANDBOX_TAG` when `sandbox`.
    pub reason: Option<String>,
    /// The sandbox's rules refused it (the result's `SANDBOX_REFUSED` field).
    pub sandbox: bool,
}

/// The result field in which `execute` names the sandbox's rule that refused a command
/// (`tools::sandbox::REFUSED_FIELD`; front ends do not import tools).
pub const SANDBOX_REFUSED: &str = "sandbox_refused";

/// What a call the sandbox refused says after its reason: who did it and where to look.
pub const SANDBOX_TAG: &str = "blocked by the sandbox · /sandbox";

/// The sandbox's rule that refused the command the call ran (`network`, `write`, …), if so.
pub fn sandbox_refused(result: &ToolResult) -> Option<&str> {
    result.get(SANDBOX_REFUSED)?.as_str()
}

/// The exit status of a command the call ran, when it reports one.
pub fn exit_status(result: &ToolResult) -> Option<i64> {
    result.get("exit_status")?.as_i64()
}

pub fn outcome(result: &ToolResult) -> Outcome {
    let mut outcome = plain_outcome(result);
    if outcome.failed && sandbox_refused(result).is_some() {
        outcome.sandbox = true;
        outcome.reason = Some(match outcome.reason {
            Some(reason) => format!("{reason} · {SANDBOX_TAG}"),
            None => SANDBOX_TAG.to_string(),
        });
    }
    outcome
}

fn plain_outcome(result: &ToolResult) -> Outcome {
    let failed = |reason: Option<String>| Outcome { failed: true, reason, sandbox: false };
    if let Some(error) = result.error() {
        let first = error.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("failed");
        return failed(Some(sanitize_visible(first).into_owned()));
    }
    if !result.is_ok() {
        return failed(None);
    }
    match exit_status(result).filter(|code| *code != 0) {
        Some(code) => failed(Some(format!("exit {code}"))),
        None => Outcome { failed: false, reason: None, sandbox: false },
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

/// Diagnostics shown under an edit at most (the rest are counted).
pub const DIAGNOSTIC_ROWS: usize = 5;

/// What a language server said of the file an edit changed (the result's `diagnostics`
/// and `diagnostics_note`, which `plugins/lsp` adds), as lines to show under the call:
/// `line 2 error: Type "str" is not …`, at most `DIAGNOSTIC_ROWS` and how many more, then
/// the note.
pub fn diagnostics(result: &ToolResult) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(list) = result.get("diagnostics").and_then(serde_json::Value::as_array) {
        for d in list.iter().take(DIAGNOSTIC_ROWS) {
            let (line, severity) = (d["line"].as_u64().unwrap_or(0), d["severity"].as_str().unwrap_or("error"));
            let message = d["message"].as_str().unwrap_or_default();
            lines.push(sanitize_visible(&format!("line {line} {severity}: {message}")).into_owned());
        }
        let omitted = result.get("diagnostics_omitted").and_then(serde_json::Value::as_u64).unwrap_or(0);
        let more = list.len().saturating_sub(DIAGNOSTIC_ROWS) as u64 + omitted;
        if more > 0 {
            lines.push(format!("… {more} more"));
        }
    }
    if let Some(note) = result.get("diagnostics_note").and_then(serde_json::Value::as_str) {
        lines.push(sanitize_visible(note).into_owned());
    }
    lines
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
    fn an_edits_diagnostics_are_lines_under_it() {
        let edited = result(json!({"path": "a.py", "diagnostics": [
            {"line": 2, "severity": "error", "message": "bad \u{1b}[31mtype"},
            {"line": 3, "severity": "warning", "message": "unused"}], "diagnostics_omitted": 4}));
        assert_eq!(diagnostics(&edited), ["line 2 error: bad type", "line 3 warning: unused", "… 4 more"]);
        let noted = result(json!({"path": "a.py", "diagnostics_note": "no diagnostics: x exited"}));
        assert_eq!(diagnostics(&noted), ["no diagnostics: x exited"]);
        assert!(diagnostics(&result(json!({"path": "a.py"}))).is_empty());
    }

    #[test]
    fn a_non_zero_exit_is_a_failure_with_its_status() {
        let ran = result(json!({"exit_status": 1, "content": "FAILED\n"}));
        assert_eq!(outcome(&ran), Outcome { failed: true, reason: Some("exit 1".into()), sandbox: false });
        assert_eq!(command_output(&ran, false), Some("FAILED\n"));
        let passed = result(json!({"exit_status": 0, "content": "ok\n"}));
        assert_eq!(outcome(&passed), Outcome { failed: false, reason: None, sandbox: false });
    }

    #[test]
    fn a_command_the_sandbox_refused_says_so_after_its_status() {
        let refused = result(json!({"exit_status": 1, "content": "denied\n", "sandbox_refused": "write"}));
        let said = outcome(&refused);
        assert!(said.failed && said.sandbox);
        assert_eq!(said.reason.as_deref(), Some("exit 1 · blocked by the sandbox · /sandbox"));
        // A command that succeeded is not tagged, whatever the field says.
        let passed = result(json!({"exit_status": 0, "content": "", "sandbox_refused": "write"}));
        assert_eq!(outcome(&passed), Outcome { failed: false, reason: None, sandbox: false });
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
