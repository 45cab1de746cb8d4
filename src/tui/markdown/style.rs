//! The Markdown palette: which ratatui `Style` each construct gets, with and without colour.
//! Owns style choices only; it must not lay out or parse anything.

use std::borrow::Cow;

use ratatui::style::{Color, Modifier, Style};

/// `n` spaces, borrowed when short (list indentation, table padding), so a line allocates no
/// text for them.
pub(crate) fn spaces(n: usize) -> Cow<'static, str> {
    const SPACES: &str = "                                                                ";
    match SPACES.get(..n) {
        Some(spaces) => Cow::Borrowed(spaces),
        None => Cow::Owned(" ".repeat(n)),
    }
}

/// How Markdown is rendered. `color: false` (NO_COLOR) keeps modifiers such as bold but drops
/// every colour, including in highlighted code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    pub color: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { color: true }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Palette {
    pub color: bool,
}

impl Palette {
    pub fn new(options: RenderOptions) -> Self {
        Palette { color: options.color }
    }

    fn fg(&self, style: Style, color: Color) -> Style {
        if self.color {
            style.fg(color)
        } else {
            style
        }
    }

    pub fn heading(&self, level: u8) -> Style {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        match level {
            1 => self.fg(bold.add_modifier(Modifier::UNDERLINED), Color::LightMagenta),
            2 => self.fg(bold, Color::LightMagenta),
            3 => self.fg(bold, Color::LightBlue),
            _ => self.fg(bold, Color::Blue),
        }
    }

    pub fn inline_code(&self) -> Style {
        self.fg(Style::new(), Color::LightYellow)
    }

    pub fn link(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::UNDERLINED), Color::LightBlue)
    }

    /// Secondary text: link targets, quote gutters, rules, table borders.
    pub fn dim(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::DIM), Color::DarkGray)
    }

    pub fn quote(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    pub fn marker(&self) -> Style {
        self.fg(Style::new(), Color::LightBlue)
    }

    pub fn table_header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn task_done(&self) -> Style {
        self.fg(Style::new(), Color::Green)
    }
}
