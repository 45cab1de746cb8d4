//! The line REPL's side of a running tool call: its numbered label, and its output printed
//! line by line as it streams (each line under a `│` gutter, so it never reads as the
//! model's text). At most `STREAM_CAP` lines of one call are printed as they come; past
//! that the rest is skipped and the call's final tail printed when it ends. Lines are cut
//! from the chunks by `tool_outcome::live`, which keeps only a bounded tail.

use crate::tool_outcome::live::LiveTail;

/// Lines of one call's output printed as they arrive.
pub const STREAM_CAP: usize = 200;

/// A call that has started and not yet finished.
#[derive(Default)]
pub struct Running {
    /// Its line (`#2 execute cargo test`).
    pub label: String,
    /// Its number in the session, shown in front of its output while others run too.
    pub number: usize,
    /// Output arrived while it ran: it is a command.
    pub streamed: bool,
    /// A `PreToolUse` hook ran for it (its failure, the hook's refusal, is printed whole).
    pub hook_ran: bool,
    tail: LiveTail,
    printed: usize,
    skipped: usize,
}

impl Running {
    pub fn new(label: String, number: usize) -> Self {
        Running { label, number, ..Running::default() }
    }

    /// The lines of `chunk` to print now (complete, non-blank, sanitized).
    pub fn chunk(&mut self, chunk: &str) -> Vec<String> {
        self.streamed = true;
        let mut lines = Vec::new();
        let (printed, skipped) = (&mut self.printed, &mut self.skipped);
        self.tail.push_lines(chunk, crate::startup::secret_values(), |line| {
            if *printed < STREAM_CAP {
                *printed += 1;
                lines.push(line.to_string());
            } else {
                *skipped += 1;
            }
        });
        lines
    }

    /// When it ends: `Some(last line still unprinted)` when every line was printed as it
    /// came (the output needs no tail), `None` when its tail must be printed.
    pub fn finish(&self) -> Option<Option<String>> {
        if !self.streamed || self.skipped > 0 {
            return None;
        }
        let pending = self.tail.shown(crate::startup::secret_values());
        let ended_line = self.tail.earlier() + pending.len() == self.printed;
        Some(pending.last().filter(|_| !ended_line).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_complete_lines_then_the_unfinished_one_at_the_end() {
        let mut running = Running::new("#1 execute x".into(), 1);
        assert_eq!(running.chunk("a\nb"), ["a"]);
        assert_eq!(running.chunk("c\n"), ["bc"]);
        assert_eq!(running.chunk("d"), Vec::<String>::new());
        assert_eq!(running.finish(), Some(Some("d".into())));
        running.chunk("\n");
        assert_eq!(running.finish(), Some(None));
    }

    #[test]
    fn past_the_cap_the_tail_is_printed_at_the_end() {
        let mut running = Running::new("#1 execute x".into(), 1);
        let printed: usize = (0..STREAM_CAP + 10).map(|i| running.chunk(&format!("{i}\n")).len()).sum();
        assert_eq!(printed, STREAM_CAP);
        assert_eq!(running.finish(), None);
        assert_eq!(Running::default().finish(), None);
    }
}
