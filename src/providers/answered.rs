//! The model a server says answered (a response's `model` field) when it is not the one
//! asked for: an alias answered by a dated model, a proxy's substitute. `Answered` is shared
//! by a provider and each response's parser; a parser `note`s the name it read and a
//! `ProviderEvent::Model` goes out only when it differs from the last one said (at first,
//! the one asked for), so a status line shows the model that answers and is told once.
//! A name with control characters, empty or longer than a listing's id, is ignored.

use super::listing::MAX_ID_CHARS;
use crate::protocol::provider::model_name_error;
use crate::protocol::ProviderEvent;
use std::sync::{Arc, Mutex};

/// The model last said to answer, for one provider instance.
#[derive(Clone, Debug)]
pub(crate) struct Answered(Arc<Mutex<String>>);

impl Answered {
    /// Nothing said yet: the model asked for is the one shown.
    pub(crate) fn new(asked: &str) -> Self {
        Answered(Arc::new(Mutex::new(asked.to_string())))
    }

    /// `name`, read from a response, as a `ProviderEvent::Model` pushed to `out` when it is
    /// not the model last said.
    pub(crate) fn note(&self, name: &str, out: &mut Vec<ProviderEvent>) {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_ID_CHARS || model_name_error(name).is_some() {
            return;
        }
        let Ok(mut said) = self.0.lock() else { return };
        if *said != name {
            *said = name.to_string();
            out.push(ProviderEvent::Model(name.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noted(answered: &Answered, name: &str) -> Vec<ProviderEvent> {
        let mut out = Vec::new();
        answered.note(name, &mut out);
        out
    }

    #[test]
    fn a_model_is_said_once_and_only_when_it_is_not_the_one_asked_for() {
        let answered = Answered::new("claude-sonnet-4-5");
        assert!(noted(&answered, "claude-sonnet-4-5").is_empty());
        let said = noted(&answered, "claude-sonnet-4-5-20250929");
        assert!(matches!(&said[..], [ProviderEvent::Model(m)] if m == "claude-sonnet-4-5-20250929"), "{said:?}");
        assert!(noted(&answered.clone(), "claude-sonnet-4-5-20250929").is_empty(), "said once");
        assert_eq!(noted(&answered, "claude-sonnet-4-5").len(), 1, "back to the one asked for is said too");
        for bad in ["", "   ", "evil\u{1b}[2J", &"m".repeat(MAX_ID_CHARS + 1)] {
            assert!(noted(&answered, bad).is_empty(), "{bad:?}");
        }
    }
}
