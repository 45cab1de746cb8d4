//! The `Theme`: every style the TUI uses, in one place, in a dark and a light palette (which
//! one: `background.rs`). With colour off (`NO_COLOR`) the same styles keep their modifiers
//! (bold, dim, italic, reverse) but drop colours.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Widget};

use crate::tui::text::pane_cache::{DrawnCells, Part};

/// The drawn frame of a pane: its title, focus, whether it is a strip, and the theme.
pub type PaneFrame = DrawnCells<(String, bool, bool, Theme)>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    /// The light palette (dark text on a light background), not the dark one.
    pub light: bool,
}

impl Theme {
    /// The dark palette.
    pub fn new(color: bool) -> Self {
        Theme { color, light: false }
    }

    /// The light palette (for a light terminal background).
    pub fn light(color: bool) -> Self {
        Theme { color, light: true }
    }

    /// `dark` in the dark palette, `light` in the light one.
    fn pick(&self, dark: Color, light: Color) -> Color {
        if self.light {
            light
        } else {
            dark
        }
    }

    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::default().fg(color)
        } else {
            Style::default()
        }
    }

    pub fn text(&self) -> Style {
        Style::default()
    }
    pub fn user(&self) -> Style {
        self.fg(self.pick(Color::Cyan, Color::Blue)).add_modifier(Modifier::BOLD)
    }
    pub fn thinking(&self) -> Style {
        if self.light {
            // Dim grey on white is all but invisible: a mid grey, not dimmed.
            return self.fg(Color::Rgb(0x5c, 0x63, 0x70)).add_modifier(Modifier::ITALIC);
        }
        self.fg(Color::Gray).add_modifier(Modifier::DIM | Modifier::ITALIC)
    }
    pub fn dim(&self) -> Style {
        if self.light {
            return self.fg(Color::Rgb(0x6e, 0x75, 0x81));
        }
        self.fg(Color::DarkGray).add_modifier(Modifier::DIM)
    }
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    pub fn warning(&self) -> Style {
        self.fg(self.amber())
    }
    pub fn ok(&self) -> Style {
        self.fg(self.green())
    }
    /// A diff's added lines.
    pub fn added(&self) -> Style {
        self.fg(self.green())
    }
    /// A diff's removed lines.
    pub fn removed(&self) -> Style {
        self.fg(Color::Red)
    }
    pub fn running(&self) -> Style {
        self.fg(self.amber())
    }
    /// Yellow, darkened in the light palette (bright yellow on white cannot be read).
    fn amber(&self) -> Color {
        self.pick(Color::Yellow, Color::Rgb(0x9a, 0x67, 0x00))
    }
    fn green(&self) -> Color {
        self.pick(Color::Green, Color::Rgb(0x1a, 0x7f, 0x37))
    }
    pub fn selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg(self.pick(Color::Cyan, Color::Blue)).add_modifier(Modifier::BOLD)
        } else {
            self.fg(self.pick(Color::DarkGray, Color::Rgb(0x9a, 0xa0, 0xa8)))
        }
    }
    pub fn title(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    pub fn status(&self) -> Style {
        if self.color {
            let (bg, fg) = if self.light {
                (Color::Rgb(0xe4, 0xe7, 0xec), Color::Rgb(0x24, 0x29, 0x2f))
            } else {
                (Color::Rgb(30, 34, 42), Color::Gray)
            };
            Style::default().bg(bg).fg(fg)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }
    pub fn accent(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }
    pub fn approval(&self) -> Style {
        self.fg(self.amber()).add_modifier(Modifier::BOLD)
    }

    /// The bordered frame of a pane, titled, highlighted when focused.
    pub fn pane(&self, title: &str, focused: bool) -> Block<'static> {
        Block::default()
            .borders(Borders::ALL)
            .border_style(self.border(focused))
            .title(Span::styled(format!(" {title} "), self.title()))
    }

    /// A short notice on the right of a pane's bottom border (`↓ 3 new (End)`), where it
    /// covers no content.
    pub fn draw_badge(&self, area: Rect, buf: &mut Buffer, text: &str) {
        let width = unicode_width::UnicodeWidthStr::width(text) as u16;
        if area.height < 2 || area.width < width + 2 {
            return;
        }
        let x = area.x + area.width - width - 1;
        buf.set_string(x, area.y + area.height - 1, text, self.approval());
    }

    /// Draws a pane's frame and returns the area inside it.
    pub fn draw_pane(&self, area: Rect, buf: &mut Buffer, title: &str, focused: bool) -> Rect {
        let block = self.pane(title, focused);
        let inner = block.inner(area);
        block.render(area, buf);
        inner
    }

    /// `draw_pane` (with only a top border, the compact tool log strip, when `strip`) for a
    /// pane drawn onto its blank area every frame: the frame's cells are reused from `cache`
    /// while they would not change.
    pub fn draw_pane_cached(
        &self,
        cache: &mut PaneFrame,
        area: Rect,
        buf: &mut Buffer,
        title: &str,
        focused: bool,
        strip: bool,
    ) -> Rect {
        let block = if strip { self.pane(title, focused).borders(Borders::TOP) } else { self.pane(title, focused) };
        let inner = block.inner(area);
        let key = (title.to_string(), focused, strip, *self);
        cache.draw(key, area, Part::Edges, buf, |cells| block.render(area, cells));
        inner
    }
}
