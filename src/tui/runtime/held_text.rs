//! `HeldText`: streamed text waits for its own frame, so a keystroke's frame never lays out
//! text that arrived since the last one. Owns only the holding, not when a frame is drawn
//! (`scheduler.rs`) nor any merging: text comes already joined from the paced provider
//! (`pacing`), one hand-over per grant of the frame scheduler.

use crate::agent::output::{AgentEvent, Delta};

/// Streamed text (agent deltas) received since the last frame, not yet applied to the app:
/// applied just before the next streamed frame, or before any other agent event (so the
/// order is kept). A frame drawn for a key in between shows the conversation as the last
/// frame did, and costs no layout of new text.
#[derive(Debug, Default)]
pub struct HeldText {
    held: Vec<AgentEvent>,
    /// Bytes of reply and reasoning text held since `take_text_bytes` last asked.
    text_bytes: usize,
}

impl HeldText {
    /// Holds `event` if it is streamed text; any other event is given back, to be applied
    /// after `release`.
    pub fn hold(&mut self, event: AgentEvent) -> Option<AgentEvent> {
        let AgentEvent::Delta(delta) = &event else { return Some(event) };
        if let Delta::Saying(text) | Delta::Thinking(text) = delta {
            self.text_bytes += text.len();
        }
        self.held.push(event);
        None
    }

    /// The held text, in order, to apply now.
    pub fn release(&mut self) -> std::vec::Drain<'_, AgentEvent> {
        self.held.drain(..)
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Bytes of reply and reasoning text held since the last call (how fast a reply comes,
    /// for the frame scheduler's stream interval).
    pub fn take_text_bytes(&mut self) -> usize {
        std::mem::take(&mut self.text_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_text_is_held_in_order_and_other_events_are_given_back() {
        let mut held = HeldText::default();
        let saying = |t: &str| AgentEvent::Delta(Delta::Saying(t.into()));
        assert!(held.hold(saying("one ")).is_none());
        assert!(held.hold(saying("two")).is_none());
        assert!(held.hold(AgentEvent::Delta(Delta::Thinking("hmm".into()))).is_none());
        let finished = AgentEvent::TurnFinished { reply: "x".into(), end: crate::agent::output::TurnEnd::Done };
        assert_eq!(held.hold(finished.clone()), Some(finished));
        let released: Vec<AgentEvent> = held.release().collect();
        assert_eq!(released, [saying("one "), saying("two"), AgentEvent::Delta(Delta::Thinking("hmm".into()))]);
        assert!(held.is_empty());
        assert_eq!((held.take_text_bytes(), held.take_text_bytes()), (10, 0));
    }
}
