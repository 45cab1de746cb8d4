//! Hook runs in the conversation. The hooks plugin shows each run as a `hook` tool row
//! (`hook_N`, its label `hook PreToolUse: <command> → <outcome>`); the tool log lists
//! every one, the conversation only those that matter. A hook that let its call through
//! adds nothing here. One that refused, failed or timed out says so whole on the row of
//! the call it ran for: the agent opens a call's row right after the call's `PreToolUse`
//! hooks ran, so what they left goes to the next call row that opens (a refusal is that
//! call's own error, shown whole; a failure a note under it), and a `PostToolUse` hook's to
//! the newest running call. A hook of another event that did not pass gets a line of its
//! own, except a refused prompt's (the refusal, an error line, already says why).

use crate::protocol::ToolResult;
use crate::sanitize::sanitize_visible;
use std::collections::HashMap;

/// The tool name and id prefix of the hooks plugin's rows.
const HOOK_TOOL: &str = "hook";
const HOOK_ID: &str = "hook_";

/// What a finished hook run adds to the conversation.
#[derive(Debug, PartialEq)]
pub enum HookShown {
    /// Nothing (it passed, or what it said shows elsewhere).
    Quiet,
    /// A note for the newest running call's row.
    OnRunningCall(String),
    /// A line of its own.
    OwnLine(String),
}

/// What the `PreToolUse` hooks of one call left for its row.
#[derive(Debug, Default, PartialEq)]
pub struct ForCall {
    /// A `PreToolUse` hook ran for it: a failure of the call (a hook's refusal) shows whole.
    pub ran: bool,
    /// What hooks that did not pass said (a failure, a timeout), whole.
    pub notes: Vec<String>,
}

/// A hook run between its row's start and end.
struct Run {
    event: String,
    /// `hook PreToolUse: <command>`.
    head: String,
}

#[derive(Default)]
pub struct HookRows {
    running: HashMap<String, Run>,
    pending: ForCall,
}

impl HookRows {
    /// Whether a tool row is a hook run's.
    pub fn is_hook(id: &str, tool: &str) -> bool {
        tool == HOOK_TOOL && id.starts_with(HOOK_ID)
    }

    /// A hook run started; `label` is its row's (`#9 hook PreToolUse: cmd → ok`).
    pub fn started(&mut self, id: &str, label: &str) {
        let unnumbered = label.strip_prefix('#').and_then(|l| l.split_once(' ')).map_or(label, |(_, rest)| rest);
        let head = unnumbered.rsplit_once(" → ").map_or(unnumbered, |(head, _)| head).to_string();
        let event = head.strip_prefix("hook ").and_then(|h| h.split(':').next()).unwrap_or("").to_string();
        self.running.insert(id.to_string(), Run { event, head });
    }

    /// Hook run `id` ended with `result` (`None`: it was not a hook run this knows).
    pub fn finished(&mut self, id: &str, result: &ToolResult) -> Option<HookShown> {
        let run = self.running.remove(id)?;
        let pre = run.event == "PreToolUse";
        if pre {
            self.pending.ran = true;
        }
        let Some(error) = result.error().filter(|_| !result.is_ok()) else { return Some(HookShown::Quiet) };
        let error = sanitize_visible(error.trim()).into_owned();
        let blocked = error.starts_with("blocked");
        let note = format!("{} · {error}", run.head);
        Some(match run.event.as_str() {
            // The refused call's own error says it, whole.
            "PreToolUse" if blocked => HookShown::Quiet,
            "PreToolUse" => {
                self.pending.notes.push(note);
                HookShown::Quiet
            }
            "PostToolUse" => HookShown::OnRunningCall(note),
            "UserPromptSubmit" if blocked => HookShown::Quiet,
            _ => HookShown::OwnLine(note),
        })
    }

    /// What the hooks run since the last call row opened left for the call opening now.
    pub fn take_for_call(&mut self) -> ForCall {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok() -> ToolResult {
        ToolResult::from_value(json!({"content": ""}))
    }

    #[test]
    fn a_passing_hook_is_quiet_and_a_failing_one_leaves_its_note_for_the_next_call() {
        let mut rows = HookRows::default();
        assert!(HookRows::is_hook("hook_1", "hook") && !HookRows::is_hook("call_1", "hook"));
        rows.started("hook_1", "#1 hook PreToolUse: ./check.sh → ok");
        assert_eq!(rows.finished("hook_1", &ok()), Some(HookShown::Quiet));
        rows.started("hook_2", "#2 hook PreToolUse: sleep 30 → failed: timed out after 1s");
        let timed_out = ToolResult::failure("timed out after 1s\nkilled");
        assert_eq!(rows.finished("hook_2", &timed_out), Some(HookShown::Quiet));
        let left = rows.take_for_call();
        assert!(left.ran);
        assert_eq!(left.notes, ["hook PreToolUse: sleep 30 · timed out after 1s\nkilled"]);
        assert_eq!(rows.take_for_call(), ForCall::default(), "taken once");
        assert_eq!(rows.finished("hook_9", &ok()), None);
    }

    #[test]
    fn a_refusal_shows_on_the_call_a_post_hook_on_the_running_call_and_a_stop_hook_alone() {
        let mut rows = HookRows::default();
        rows.started("hook_1", "#1 hook PreToolUse: exit 2 → blocked");
        assert_eq!(rows.finished("hook_1", &ToolResult::failure("blocked: no")), Some(HookShown::Quiet));
        assert_eq!(rows.take_for_call(), ForCall { ran: true, notes: vec![] });
        rows.started("hook_2", "#2 hook PostToolUse: lint → blocked");
        let shown = rows.finished("hook_2", &ToolResult::failure("blocked: lint failed"));
        assert_eq!(shown, Some(HookShown::OnRunningCall("hook PostToolUse: lint · blocked: lint failed".into())));
        rows.started("hook_3", "#3 hook Stop: ./more → blocked");
        let shown = rows.finished("hook_3", &ToolResult::failure("blocked: run the tests"));
        assert_eq!(shown, Some(HookShown::OwnLine("hook Stop: ./more · blocked: run the tests".into())));
        rows.started("hook_4", "#4 hook UserPromptSubmit: ./guard → blocked");
        assert_eq!(rows.finished("hook_4", &ToolResult::failure("blocked: no")), Some(HookShown::Quiet));
    }
}
