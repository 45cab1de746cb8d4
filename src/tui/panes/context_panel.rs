//! The context side panel: exactly what the model will see on its next call — the
//! rendered system prompt, the kept conversation, this turn's tool traffic while a turn
//! runs (marked, dropped when it ends) and the tool definitions — each with an approximate
//! token count, the total, and the share of the model's window. Laid out once per snapshot
//! and width.

use crate::agent::output::ContextSnapshot;
use crate::sanitize::sanitize;
use crate::tui::intent::{Intent, Scrolled};
use crate::tui::text::hints::KEEP_HINT;
use crate::tui::text::rows::Scroll;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// Rows of the system prompt shown before it is folded.
const SYSTEM_PROMPT_ROWS: usize = 3;

/// A rough token count: about four characters a token.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// `1234` → `1.2k`.
pub fn short_count(n: usize) -> String {
    if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

pub struct ContextPanel {
    snapshot: ContextSnapshot,
    total: usize,
    cache: Option<(u16, Vec<Line<'static>>)>,
    pub scroll: Scroll,
    view_rows: usize,
}

impl Default for ContextPanel {
    fn default() -> Self {
        ContextPanel {
            snapshot: ContextSnapshot::default(),
            total: 0,
            cache: None,
            // The panel opens at the top, unlike the conversation.
            scroll: Scroll { top: 0, follow: false },
            view_rows: 0,
        }
    }
}

impl ContextPanel {
    pub fn set(&mut self, snapshot: ContextSnapshot) {
        self.total = estimate_tokens(&snapshot.system_prompt)
            + snapshot.messages.iter().chain(&snapshot.turn).map(message_tokens).sum::<usize>()
            + tools_tokens(&snapshot);
        self.snapshot = snapshot;
        self.cache = None;
    }

    pub fn total_tokens(&self) -> usize {
        self.total
    }

    fn layout(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        if self.cache.as_ref().map(|(w, _)| *w) != Some(width) {
            let s = &self.snapshot;
            let mut lines = Vec::new();
            let header = |label: String, tokens: usize| {
                Line::from(vec![
                    Span::styled(label, theme.accent()),
                    Span::styled(format!("  ~{} tok", short_count(tokens)), theme.dim()),
                ])
            };
            lines.push(header("system prompt".into(), estimate_tokens(&s.system_prompt)));
            let mut prompt = wrap(&sanitize(&s.system_prompt), width, theme.dim(), "  ", "  ", theme.dim());
            // Folded, so the conversation below shows; `/context 1` prints it whole.
            if prompt.len() > SYSTEM_PROMPT_ROWS + 1 {
                let more = prompt.len() - SYSTEM_PROMPT_ROWS;
                prompt.truncate(SYSTEM_PROMPT_ROWS);
                let note = format!("… {more} more lines (/context 1 shows it whole)");
                prompt.extend(wrap(&note, width, theme.dim(), "  ", "  ", theme.dim()));
            }
            lines.extend(prompt);
            for (i, m) in s.messages.iter().enumerate() {
                lines.push(Line::default());
                lines.push(header(format!("{}. {}", i + 2, m.role), message_tokens(m)));
                lines.extend(wrap(&sanitize(&m.text()), width, theme.text(), "  ", "  ", theme.dim()));
                lines.extend(image_lines(m, width, theme));
            }
            let first_turn = s.messages.len() + 2;
            for (i, m) in s.turn.iter().enumerate() {
                lines.push(Line::default());
                let label = match m.tool_calls.is_empty() {
                    true => format!("{}. {} · this turn", i + first_turn, m.role),
                    false => format!("{}. {} tool calls · this turn", i + first_turn, m.role),
                };
                lines.push(header(label, message_tokens(m)));
                let mut body = m.text().into_owned();
                for call in &m.tool_calls {
                    body.push_str(&format!("\n→ {} {}", call.name, call.arguments));
                }
                lines.extend(wrap(&sanitize(body.trim_start()), width, theme.dim(), "  ", "  ", theme.dim()));
                lines.extend(image_lines(m, width, theme));
            }
            lines.push(Line::default());
            lines.extend(wrap(KEEP_HINT, width, theme.dim(), "", "", theme.dim()));
            lines.push(Line::default());
            lines.push(header(format!("tools ({})", s.tools.len()), tools_tokens(s)));
            for tool in &s.tools {
                let first = tool.description.split(". ").next().unwrap_or("");
                lines.extend(wrap(&format!("{} — {first}", tool.name), width, theme.text(), "  ", "    ", theme.dim()));
            }
            self.cache = Some((width, lines));
        }
        self.cache.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[])
    }

    pub fn scroll_up(&mut self, rows: usize) {
        let total = self.cache.as_ref().map_or(0, |(_, l)| l.len());
        self.scroll.up(rows, total, self.view_rows);
    }

    pub fn scroll_down(&mut self, rows: usize) {
        let total = self.cache.as_ref().map_or(0, |(_, l)| l.len());
        self.scroll.down(rows, total, self.view_rows);
    }

    pub fn view_rows(&self) -> usize {
        self.view_rows
    }

    /// A key while the panel has the keys: Up/Down scroll, `<` `>` move the split;
    /// anything else is `Ignored`.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Up => self.scroll_by(Scrolled::Up(1)),
            KeyCode::Down => self.scroll_by(Scrolled::Down(1)),
            KeyCode::Char('<') => Intent::ResizeSplit(1),
            KeyCode::Char('>') => Intent::ResizeSplit(-1),
            _ => Intent::Ignored,
        }
    }

    pub fn scroll_by(&mut self, how: Scrolled) -> Intent {
        match how {
            Scrolled::Up(n) => self.scroll_up(n),
            Scrolled::Down(n) => self.scroll_down(n),
            Scrolled::Home => self.scroll.home(),
            Scrolled::End => self.scroll.end(),
        }
        Intent::Handled
    }

    /// The pane's title, as long as fits on its top border between the corners: a narrow
    /// pane gets a shorter one rather than a cut one (`1% of┐`).
    fn title(&self, width: u16) -> String {
        let tokens = short_count(self.total);
        let mut titles = Vec::new();
        if let Some(window) = self.snapshot.window.filter(|w| *w > 0) {
            let percent = (self.total as u64 * 100).div_ceil(window);
            let window = short_count(window as usize);
            titles.push(format!("context · ~{tokens} tokens next call · {percent}% of {window}"));
            titles.push(format!("context · ~{tokens} tok · {percent}% of {window}"));
            titles.push(format!("~{tokens} · {percent}% of {window}"));
            titles.push(format!("{percent}%"));
        } else {
            titles.push(format!("context · ~{tokens} tokens next call"));
            titles.push(format!("context · ~{tokens} tok"));
            titles.push(format!("~{tokens}"));
        }
        let room = usize::from(width).saturating_sub(4); // the corners and a space each side
        let last = titles.pop().unwrap_or_default();
        titles.into_iter().find(|t| unicode_width::UnicodeWidthStr::width(t.as_str()) <= room).unwrap_or(last)
    }

    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, focused: bool) {
        let title = self.title(area.width);
        let inner = theme.draw_pane(area, buf, &title, focused);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let view = usize::from(inner.height);
        self.view_rows = view;
        let total = self.layout(inner.width, theme).len();
        let top = self.scroll.resolve(total, view);
        let lines = self.layout(inner.width, theme);
        for (row, line) in lines.iter().skip(top).take(view).enumerate() {
            buf.set_line(inner.x, inner.y + row as u16, line, inner.width);
        }
    }
}

fn message_tokens(m: &crate::protocol::Message) -> usize {
    estimate_tokens(&m.text()) + 4 + m.images.iter().map(|i| i.estimate_tokens() as usize).sum::<usize>()
}

/// A line per image a message carries: its chip, its size in pixels and its token estimate
/// (Anthropic's width × height / 750), or that it is not sent.
fn image_lines(m: &crate::protocol::Message, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for image in &m.images {
        let pixels = match (image.width, image.height) {
            (Some(w), Some(h)) => format!(" {w}×{h}"),
            _ => String::new(),
        };
        let line =
            format!("{}{pixels}  ~{} tok", sanitize(&image.chip()), short_count(image.estimate_tokens() as usize));
        lines.extend(wrap(&line, width, theme.accent(), "  ", "    ", theme.dim()));
    }
    lines
}

fn tools_tokens(s: &ContextSnapshot) -> usize {
    s.tools
        .iter()
        .map(|t| {
            estimate_tokens(&t.name) + estimate_tokens(&t.description) + estimate_tokens(&t.parameters.to_string())
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_is_never_cut_it_gets_shorter() {
        let mut panel = ContextPanel::default();
        panel.snapshot.window = Some(200_000);
        panel.total = 1_234;
        assert_eq!(panel.title(60), "context · ~1.2k tokens next call · 1% of 200k");
        assert_eq!(panel.title(40), "context · ~1.2k tok · 1% of 200k");
        assert_eq!(panel.title(24), "~1.2k · 1% of 200k");
        assert_eq!(panel.title(10), "1%");
    }

    #[test]
    fn counts_are_short() {
        assert_eq!(short_count(999), "999");
        assert_eq!(short_count(1234), "1.2k");
        assert_eq!(short_count(45_678), "45k");
        assert_eq!(estimate_tokens("abcdefgh"), 2);
    }
}
