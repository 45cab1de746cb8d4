//! The Markdown palette: which ratatui `Style` each construct gets, with and without colour.
//! Owns style choices only; it must not lay out or parse anything.

use std::borrow::Cow;

use ratatui::style::{Color, Modifier, Style};

use crate::tui::highlight::CodeColors;

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
/// every colour, including in highlighted code. `light`: colours for a light background.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    pub color: bool,
    pub light: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { color: true, light: false }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Palette {
    pub color: bool,
    light: bool,
}

impl Palette {
    pub fn new(options: RenderOptions) -> Self {
        Palette { color: options.color, light: options.light }
    }

    /// How code is coloured in this palette.
    pub fn code_colors(&self) -> CodeColors {
        CodeColors { color: self.color, light: self.light }
    }

    fn fg(&self, style: Style, color: Color) -> Style {
        if self.color {
            style.fg(color)
        } else {
            style
        }
    }

    /// `dark` on a dark background, `light` on a light one.
    fn pick(&self, dark: Color, light: Color) -> Color {
        if self.light {
            light
        } else {
            dark
        }
    }

    pub fn heading(&self, level: u8) -> Style {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        match level {
            1 => self.fg(bold.add_modifier(Modifier::UNDERLINED), self.pick(Color::LightMagenta, Color::Magenta)),
            2 => self.fg(bold, self.pick(Color::LightMagenta, Color::Magenta)),
            3 => self.fg(bold, self.pick(Color::LightBlue, Color::Blue)),
            _ => self.fg(bold, Color::Blue),
        }
    }

    pub fn inline_code(&self) -> Style {
        // Bright yellow is unreadable on white: a dark red-brown there.
        self.fg(Style::new(), self.pick(Color::LightYellow, Color::Rgb(0x9a, 0x34, 0x12)))
    }

    pub fn link(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::UNDERLINED), self.pick(Color::LightBlue, Color::Blue))
    }

    /// Secondary text: link targets, quote gutters, rules, table borders.
    pub fn dim(&self) -> Style {
        if self.light {
            return self.fg(Style::new(), Color::Rgb(0x6e, 0x75, 0x81));
        }
        self.fg(Style::new().add_modifier(Modifier::DIM), Color::DarkGray)
    }

    pub fn quote(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    pub fn marker(&self) -> Style {
        self.fg(Style::new(), self.pick(Color::LightBlue, Color::Blue))
    }

    pub fn table_header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn task_done(&self) -> Style {
        self.fg(Style::new(), self.pick(Color::Green, Color::Rgb(0x1a, 0x7f, 0x37)))
    }
}
