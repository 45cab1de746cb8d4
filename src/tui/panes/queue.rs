//! The queue strip: prompts sent while a turn runs, held by the app (not yet given to the
//! session) until the session asks for its next line, drawn just above the prompt — a
//! header with the count and the keys, then one truncated row per prompt, oldest first
//! (at most `MAX_ROWS`, then how many more). An interrupt *holds* the queue: nothing in
//! it goes until the user's next Enter (the header says so). It only keeps the list and
//! draws it; `App` decides when a prompt joins, leaves for the session, or comes back to
//! the composer.

use crate::sanitize::sanitize;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::collections::VecDeque;

/// Prompts shown one per row at most; more are counted on the last row.
const MAX_ROWS: usize = 3;
/// Screens shorter than this show only the header (with the newest prompt).
const SHORT_SCREEN: u16 = 20;

#[derive(Default)]
pub struct QueueStrip {
    prompts: VecDeque<String>,
    /// A turn was interrupted: the prompts wait for the user's next Enter.
    held: bool,
}

impl QueueStrip {
    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// Waits behind the others.
    pub fn push_back(&mut self, line: String) {
        self.prompts.push_back(line);
    }

    /// Goes before the others (Esc then Enter).
    pub fn push_front(&mut self, line: String) {
        self.prompts.push_front(line);
    }

    /// The oldest, to send now.
    pub fn pop_front(&mut self) -> Option<String> {
        self.take(VecDeque::pop_front)
    }

    /// The newest, taken back (to edit, or dropped).
    pub fn pop_back(&mut self) -> Option<String> {
        self.take(VecDeque::pop_back)
    }

    fn take(&mut self, how: fn(&mut VecDeque<String>) -> Option<String>) -> Option<String> {
        let taken = how(&mut self.prompts);
        if self.prompts.is_empty() {
            self.held = false;
        }
        taken
    }

    /// The prompts wait for the user's next Enter (a turn was interrupted), if there are any.
    pub fn hold(&mut self) {
        self.held = !self.prompts.is_empty();
    }

    /// They go again when the session asks; whether they were held.
    pub fn release(&mut self) -> bool {
        std::mem::take(&mut self.held)
    }

    pub fn held(&self) -> bool {
        self.held
    }

    /// Rows the strip takes on a screen `height` rows high: none when empty.
    pub fn height(&self, height: u16) -> u16 {
        match self.prompts.len() {
            0 => 0,
            _ if height < SHORT_SCREEN => 1,
            n if n > MAX_ROWS => MAX_ROWS as u16 + 2,
            n => n as u16 + 1,
        }
    }

    /// Draws the strip; `shown` gives the text a prompt is shown as when it differs from
    /// what is sent (a long paste, shown as its `[pasted N lines]` chip).
    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme, shown: impl Fn(&str) -> Option<String>) {
        let shown = |prompt: &str| shown(prompt).unwrap_or_else(|| prompt.to_string());
        if self.prompts.is_empty() || area.height == 0 || area.width == 0 {
            return;
        }
        let width = usize::from(area.width);
        let n = self.prompts.len();
        let them = if n == 1 { "it" } else { "them" };
        let state =
            if self.held { format!("held: Enter sends {them}") } else { format!("Esc interrupts, keeps {them}") };
        let header = format!("queued {n} · Up edits the last · Ctrl+X drops it · {state}");
        if area.height == 1 {
            let held = if self.held { " held: Enter sends ·" } else { "" };
            let newest = self.prompts.back().map(|p| format!("queued {n} ·{held} {}", one_line(&shown(p))));
            buf.set_string(area.x, area.y, truncate(&newest.unwrap_or(header), width), theme.dim());
            return;
        }
        buf.set_string(area.x, area.y, truncate(&header, width), theme.title());
        let rows = usize::from(area.height - 1);
        let listed = if self.prompts.len() > rows { rows.saturating_sub(1) } else { rows };
        for (i, prompt) in self.prompts.iter().take(listed).enumerate() {
            let line = format!("  {}. {}", i + 1, one_line(&shown(prompt)));
            buf.set_string(area.x, area.y + 1 + i as u16, truncate(&line, width), theme.text());
        }
        if self.prompts.len() > listed {
            let more = format!("  … and {} more", self.prompts.len() - listed);
            buf.set_string(area.x, area.y + 1 + listed as u16, truncate(&more, width), theme.dim());
        }
    }
}

/// A prompt as one row: control sequences stripped, line breaks shown as ⏎.
fn one_line(prompt: &str) -> String {
    sanitize(prompt.trim()).replace('\n', " ⏎ ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strip_grows_with_the_queue_up_to_its_rows() {
        let mut queue = QueueStrip::default();
        assert_eq!(queue.height(40), 0);
        queue.push_back("one".into());
        assert_eq!(queue.height(40), 2);
        for n in 0..5 {
            queue.push_back(format!("p{n}"));
        }
        assert_eq!(queue.height(40), MAX_ROWS as u16 + 2);
        assert_eq!(queue.height(12), 1, "a short screen shows only the header");
        assert_eq!(queue.pop_back().as_deref(), Some("p4"));
        assert_eq!(queue.pop_front().as_deref(), Some("one"));
    }

    #[test]
    fn a_held_queue_is_released_by_its_last_prompt_leaving() {
        let mut queue = QueueStrip::default();
        queue.hold();
        assert!(!queue.held(), "nothing to hold");
        queue.push_back("one".into());
        queue.push_back("two".into());
        queue.hold();
        assert!(queue.held());
        queue.pop_back();
        assert!(queue.held());
        queue.pop_back();
        assert!(!queue.held(), "an empty queue holds nothing back");
        queue.push_back("three".into());
        queue.hold();
        assert!(queue.release() && !queue.held());
    }
}
