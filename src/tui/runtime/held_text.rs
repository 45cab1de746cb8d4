//! `HeldText`: streamed text waits for its own frame, so a keystroke's frame never lays out
//! text that arrived since the last one. Owns only the holding and merging, not when a
//! frame is drawn (`scheduler.rs`).

use crate::agent::output::AgentEvent;

/// Streamed text (agent deltas) received since the last frame, merged, not yet applied to
/// the app: applied just before the next streamed frame, or before any other agent event
/// (so the order is kept). A frame drawn for a key in between shows the conversation as the
/// last frame did, and costs no layout of new text.
#[derive(Debug, Default)]
pub struct HeldText {
    held: Vec<AgentEvent>,
}

impl HeldText {
    /// Holds `event` if it is streamed text; any other event is given back, to be applied
    /// after `release`.
    pub fn hold(&mut self, event: AgentEvent) -> Option<AgentEvent> {
        let AgentEvent::Delta(delta) = event else { return Some(event) };
        let delta = match self.held.last_mut() {
            Some(AgentEvent::Delta(last)) => match last.merge(delta) {
                Ok(()) => return None,
                Err(delta) => delta,
            },
            _ => delta,
        };
        self.held.push(AgentEvent::Delta(delta));
        None
    }

    /// The held text, in order, to apply now.
    pub fn release(&mut self) -> std::vec::Drain<'_, AgentEvent> {
        self.held.drain(..)
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::output::Delta;

    #[test]
    fn streamed_text_is_held_merged_and_other_events_are_given_back() {
        let mut held = HeldText::default();
        let saying = |t: &str| AgentEvent::Delta(Delta::Saying(t.into()));
        assert!(held.hold(saying("one ")).is_none());
        assert!(held.hold(saying("two")).is_none());
        assert!(held.hold(AgentEvent::Delta(Delta::Thinking("hmm".into()))).is_none());
        let finished = AgentEvent::TurnFinished { reply: "x".into(), end: crate::agent::output::TurnEnd::Done };
        assert_eq!(held.hold(finished.clone()), Some(finished));
        let released: Vec<AgentEvent> = held.release().collect();
        assert_eq!(released, [saying("one two"), AgentEvent::Delta(Delta::Thinking("hmm".into()))]);
        assert!(held.is_empty());
    }
}
