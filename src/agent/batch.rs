//! Which calls of one model response run together: consecutive calls whose tools may run
//! concurrently (`Tool::runs_concurrently`: read-only tools and tools that declare it, such
//! as those that run sub-agents) form one batch, polled together on the turn's task; any
//! other call runs alone, in its place. Results always go back in call order.

use super::toolbox::Toolbox;
use crate::protocol::ToolCall;
use std::ops::Range;

/// The calls in runs: each range runs together, the ranges one after another.
pub fn batches(calls: &[ToolCall], toolbox: &Toolbox) -> Vec<Range<usize>> {
    let together = |call: &ToolCall| toolbox.get(&call.name).is_some_and(|tool| tool.runs_concurrently());
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        match out.last_mut() {
            Some(last) if together(call) && together(&calls[last.start]) => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Tool;
    use serde_json::{json, Value};

    fn toolbox() -> Toolbox {
        let mut toolbox = Toolbox::new();
        let tool = |name: &str| Tool::builtin(name, "", json!({"type": "object"}), |_, _| async { Ok(Value::Null) });
        toolbox.add(tool("look").read_only());
        toolbox.add(tool("change"));
        toolbox.add(tool("spawn").runs_agents());
        toolbox
    }

    fn calls(names: &[&str]) -> Vec<ToolCall> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| ToolCall { id: i.to_string(), name: n.to_string(), arguments: json!({}) })
            .collect()
    }

    #[test]
    fn consecutive_concurrent_calls_run_together_and_others_alone() {
        let got = batches(&calls(&["look", "look", "spawn", "change", "look", "nope", "look", "look"]), &toolbox());
        assert_eq!(got, vec![0..3, 3..4, 4..5, 5..6, 6..8]);
    }

    #[test]
    fn no_calls_no_batches() {
        assert!(batches(&[], &toolbox()).is_empty());
    }
}
