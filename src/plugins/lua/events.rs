//! The events a plugin can observe with `session:on(name, fn)`: their names and the table
//! each one becomes. Streamed deltas and context snapshots are not offered (too frequent;
//! `session.context` reads the latest snapshot instead).

use crate::agent::{AgentEvent, TurnEnd};
use serde_json::{json, Value};

/// Every event name `session:on` accepts.
pub const NAMES: &[&str] = &[
    "turn_started",
    "turn_finished",
    "tool_started",
    "tool_finished",
    "provider_changed",
    "usage",
    "info",
    "warning",
    "error",
    "cleared",
];

/// The name and table of an observable event; `None` for the rest.
pub fn observed(event: &AgentEvent) -> Option<(&'static str, Value)> {
    Some(match event {
        AgentEvent::TurnStarted { prompt } => ("turn_started", json!({"prompt": prompt})),
        AgentEvent::TurnFinished { reply, end } => {
            let end = match end {
                TurnEnd::Done => "done",
                TurnEnd::Failed => "failed",
                TurnEnd::Interrupted => "interrupted",
            };
            ("turn_finished", json!({"reply": reply, "end": end}))
        }
        AgentEvent::ToolStarted { call, summary } => {
            ("tool_started", json!({"id": call.id, "name": call.name, "arguments": call.arguments, "summary": summary}))
        }
        AgentEvent::ToolFinished { call, result } => (
            "tool_finished",
            json!({"id": call.id, "name": call.name, "arguments": call.arguments, "result": result.to_value()}),
        ),
        AgentEvent::ProviderChanged { provider, model } => {
            ("provider_changed", json!({"provider": provider, "model": model}))
        }
        AgentEvent::Usage(usage) => {
            ("usage", json!({"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}))
        }
        AgentEvent::Info(text) | AgentEvent::Jobs { text, .. } => ("info", json!({"text": text})),
        AgentEvent::Warning(text) => ("warning", json!({"text": text})),
        AgentEvent::Error(text) => ("error", json!({"text": text})),
        AgentEvent::Cleared => ("cleared", json!({})),
        _ => return None,
    })
    .map(|(name, mut value)| {
        value["type"] = json!(name);
        (name, value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_observable_event_has_a_listed_name() {
        let events = [
            AgentEvent::TurnStarted { prompt: "p".into() },
            AgentEvent::TurnFinished { reply: "r".into(), end: TurnEnd::Done },
            AgentEvent::Info("i".into()),
            AgentEvent::Cleared,
        ];
        for event in events {
            let (name, value) = observed(&event).unwrap();
            assert!(NAMES.contains(&name));
            assert_eq!(value["type"], name);
        }
        assert!(observed(&AgentEvent::saying("x")).is_none());
    }
}
