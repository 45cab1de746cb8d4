//! What the tool log shows of a sub-agent under the call that ran it (`AgentEvent::SubAgent`):
//! the child's own calls, each a nested line (`↳ + read notes.txt`), and its token count.
//! Names and summaries are sanitised when they arrive; nothing here knows which tool ran the
//! sub-agent.

use crate::agent::AgentEvent;
use crate::protocol::Usage;
use crate::sanitize::sanitize_visible;
use crate::tool_outcome::outcome;
use crate::tui::panes::context_panel::short_count;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::text::{Line, Span};
use std::collections::HashMap;

/// Nested calls a sub-agent may show (its step limit bounds them anyway); past this the
/// oldest go and a count says how many.
const MAX_CALLS: usize = 500;

/// One call the sub-agent made.
struct SubCall {
    label: String,
    /// `None` while running, then whether it succeeded.
    ok: Option<bool>,
}

/// A sub-agent's calls and tokens.
#[derive(Default)]
pub struct SubCalls {
    calls: Vec<SubCall>,
    by_id: HashMap<String, usize>,
    /// Calls dropped from the front (past `MAX_CALLS`).
    dropped: usize,
    usage: Usage,
}

impl SubCalls {
    /// Takes one event of the sub-agent; `true` when what is shown changed.
    pub fn take(&mut self, event: AgentEvent) -> bool {
        match event {
            AgentEvent::ToolStarted { call, summary } => {
                if self.calls.len() == MAX_CALLS {
                    self.calls.remove(0);
                    self.dropped += 1;
                    self.by_id.retain(|_, i| *i > 0);
                    self.by_id.values_mut().for_each(|i| *i -= 1);
                }
                let summary = sanitize_visible(&summary).replace('\n', " ⏎ ");
                let label = format!("{} {summary}", sanitize_visible(&call.name)).trim_end().to_string();
                self.by_id.insert(call.id, self.calls.len());
                self.calls.push(SubCall { label, ok: None });
                true
            }
            AgentEvent::ToolFinished { call, result } => match self.by_id.remove(&call.id) {
                Some(i) => {
                    self.calls[i].ok = Some(!outcome(&result).failed);
                    true
                }
                None => false,
            },
            AgentEvent::Usage(usage) => {
                self.usage.add(&usage);
                true
            }
            _ => false,
        }
    }

    /// Whether call `id` is one of the sub-agent's, still running.
    pub fn runs(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The sub-agent's tokens so far (`1.2k tok`), or nothing before its first model call.
    pub fn tokens(&self) -> Option<String> {
        let n = self.usage.input_tokens + self.usage.output_tokens;
        (n > 0).then(|| format!("{} tok", short_count(n as usize)))
    }

    /// The nested lines: every call when `last` is `None`, else the last `last`.
    pub fn lines(&self, width: u16, theme: &Theme, last: Option<usize>) -> Vec<Line<'static>> {
        let from = last.map_or(0, |n| self.calls.len().saturating_sub(n));
        let mut out = Vec::new();
        if self.dropped > 0 && from == 0 {
            let text = format!("  ↳ … {} earlier calls", self.dropped);
            out.push(Line::from(Span::styled(truncate(&text, usize::from(width)), theme.dim())));
        }
        for call in &self.calls[from..] {
            let (glyph, style) = match call.ok {
                None => ("·", theme.running()),
                Some(true) => ("+", theme.ok()),
                Some(false) => ("x", theme.error()),
            };
            let label = truncate(&call.label, usize::from(width).saturating_sub(6));
            out.push(Line::from(vec![
                Span::styled("  ↳ ", theme.dim()),
                Span::styled(format!("{glyph} "), style),
                Span::raw(label),
            ]));
        }
        out
    }
}
