//! The rule by which streamed text coalesces: consecutive text of one kind joins (said to
//! said, thought to thought). The pacing decorator's batches of provider events, the one
//! place a stream's text merges, join through `join` here.

use super::provider::ProviderEvent;

/// What kind of text an item carries: items join only with text of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// Reply text.
    Saying,
    /// Reasoning text.
    Thinking,
}

/// An item of a stream, some of whose items are text that may join.
pub trait Joinable: Sized {
    /// The item's kind of text and the text itself; `None` when it is not text (never joined).
    fn text_mut(&mut self) -> Option<(TextKind, &mut String)>;
}

/// Appends `next`'s text to `last` when both are text of one kind; otherwise gives `next`
/// back.
pub fn join<T: Joinable>(last: &mut T, mut next: T) -> Result<(), T> {
    if let (Some((kind, text)), Some((next_kind, more))) = (last.text_mut(), next.text_mut()) {
        if kind == next_kind {
            text.push_str(more);
            return Ok(());
        }
    }
    Err(next)
}

/// Appends `next` to `batch`, joined to the last item when `join` allows.
pub fn push_joined<T: Joinable>(batch: &mut Vec<T>, next: T) {
    let next = match batch.last_mut() {
        Some(last) => match join(last, next) {
            Ok(()) => return,
            Err(next) => next,
        },
        None => next,
    };
    batch.push(next);
}

impl Joinable for ProviderEvent {
    fn text_mut(&mut self) -> Option<(TextKind, &mut String)> {
        match self {
            ProviderEvent::Saying(text) => Some((TextKind::Saying, text)),
            ProviderEvent::Thinking(text) => Some((TextKind::Thinking, text)),
            _ => None,
        }
    }
}

/// A stream's results: an error never joins.
impl<T: Joinable, E> Joinable for Result<T, E> {
    fn text_mut(&mut self) -> Option<(TextKind, &mut String)> {
        self.as_mut().ok()?.text_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProviderError;

    type Event = Result<ProviderEvent, ProviderError>;

    #[test]
    fn consecutive_text_of_one_kind_joins_and_nothing_else_does() {
        let mut batch: Vec<Event> = Vec::new();
        for event in [
            Ok(ProviderEvent::Saying("a".into())),
            Ok(ProviderEvent::Saying("b".into())),
            Ok(ProviderEvent::Thinking("t".into())),
            Ok(ProviderEvent::Thinking("u".into())),
            Ok(ProviderEvent::ThinkingSignature("s".into())),
            Ok(ProviderEvent::ThinkingSignature("z".into())),
            Err(ProviderError::Network("cut".into())),
            Ok(ProviderEvent::Saying("c".into())),
        ] {
            push_joined(&mut batch, event);
        }
        let expected: Vec<Event> = vec![
            Ok(ProviderEvent::Saying("ab".into())),
            Ok(ProviderEvent::Thinking("tu".into())),
            Ok(ProviderEvent::ThinkingSignature("s".into())),
            Ok(ProviderEvent::ThinkingSignature("z".into())),
            Err(ProviderError::Network("cut".into())),
            Ok(ProviderEvent::Saying("c".into())),
        ];
        assert_eq!(batch, expected);
    }
}
