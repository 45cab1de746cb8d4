//! The session's permission mode, which Shift+Tab (the TUI) and `/mode` change: `ask` (every
//! call the rules leave to the user is asked about), `edits` (calls that only change files
//! inside the project run without asking) and `plan` (only read-only tools run until the
//! user accepts the model's plan). The kernel keeps it and tells the front ends
//! (`AgentEvent::Mode`); the permissions gate reads it for each call.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// One of the three modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Ask about what the rules do not allow (the default).
    #[default]
    Ask,
    /// Accept edits: file changes inside the project run without asking.
    Edits,
    /// Plan: only read-only tools run; the model presents a plan.
    Plan,
}

impl Mode {
    /// The modes in Shift+Tab's order.
    pub const ALL: [Mode; 3] = [Mode::Ask, Mode::Edits, Mode::Plan];

    /// The word `/mode` takes.
    pub fn word(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Edits => "edits",
            Mode::Plan => "plan",
        }
    }

    /// How the front ends name it.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Ask => "ask",
            Mode::Edits => "accept edits",
            Mode::Plan => "plan mode",
        }
    }

    /// One line saying what the mode does, for a front end to show when it changes.
    pub fn describe(self) -> &'static str {
        match self {
            Mode::Ask => "mode: ask — calls your rules do not allow are asked about",
            Mode::Edits => "mode: accept edits — file changes inside the project run without asking",
            Mode::Plan => "mode: plan — only read-only tools run until you accept the model's plan",
        }
    }

    /// The mode after this one (Shift+Tab).
    pub fn next(self) -> Mode {
        let i = Mode::ALL.iter().position(|m| *m == self).unwrap_or(0);
        Mode::ALL[(i + 1) % Mode::ALL.len()]
    }

    /// `ask`, `edits` (or `accept-edits`), `plan`.
    pub fn parse(word: &str) -> Option<Mode> {
        match word.trim().to_ascii_lowercase().as_str() {
            "ask" | "default" => Some(Mode::Ask),
            "edits" | "accept-edits" | "accept" => Some(Mode::Edits),
            "plan" => Some(Mode::Plan),
            _ => None,
        }
    }

    /// What the model is told while this mode holds (a system prompt section); empty for ask.
    pub fn instructions(self) -> &'static str {
        match self {
            Mode::Ask => "",
            Mode::Edits => "",
            Mode::Plan => {
                "The user has put elelem in plan mode: only read-only tools run, every other call is refused. \
                 Explore what you need, then present your plan (the steps, the files you would change) and stop. \
                 Nothing changes until the user accepts the plan and switches mode."
            }
        }
    }

    fn from_u8(n: u8) -> Mode {
        Mode::ALL.get(usize::from(n)).copied().unwrap_or_default()
    }
}

/// The session's mode, shared with whoever reads it for each call (the permissions gate).
#[derive(Clone, Debug, Default)]
pub struct SharedMode(Arc<AtomicU8>);

impl SharedMode {
    pub fn get(&self) -> Mode {
        Mode::from_u8(self.0.load(Ordering::Relaxed))
    }

    pub(crate) fn set(&self, mode: Mode) {
        let n = Mode::ALL.iter().position(|m| *m == mode).unwrap_or(0);
        self.0.store(n as u8, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_and_parses() {
        assert_eq!(Mode::Ask.next(), Mode::Edits);
        assert_eq!(Mode::Edits.next(), Mode::Plan);
        assert_eq!(Mode::Plan.next(), Mode::Ask);
        for mode in Mode::ALL {
            assert_eq!(Mode::parse(mode.word()), Some(mode));
        }
        let shared = SharedMode::default();
        shared.set(Mode::Plan);
        assert_eq!(shared.clone().get(), Mode::Plan);
    }
}
