//! History cells: each item of the conversation pane (a prompt, thinking, a reply, a tool
//! call marker, command output, an error) keeps its source and lays itself out for a
//! width on demand. Layouts are cached per width and dropped when the content changes;
//! nothing stores pre-wrapped text that a resize could invalidate. The two cells that grow
//! while they stream lay themselves out incrementally: a reply (`MarkdownDoc`) and thinking
//! (`ThinkingText`).

use crate::sanitize::sanitize;
use crate::tui::markdown::{MarkdownDoc, RenderOptions};
use crate::tui::panes::conversation::thinking::ThinkingText;
use crate::tui::panes::conversation::tool_line::ToolLine;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use ratatui::style::Style;
use ratatui::text::Line;

pub enum CellKind {
    User(String),
    /// A prompt with long pastes: shown with their placeholders until expanded.
    PastedPrompt {
        shown: String,
        full: String,
        expanded: bool,
    },
    Thinking {
        text: ThinkingText,
        collapsed: bool,
    },
    Reply(Box<MarkdownDoc>),
    Tool(ToolLine),
    Info(String),
    Error(String),
    Notice(String),
    /// The banner (`banner::banner_lines`: broken only between its phrases).
    Banner(String),
    /// The first screen's welcome (`runtime/welcome.rs`), until the first prompt.
    Welcome(Vec<String>),
    /// A cell taken off the screen (the welcome after the first prompt): no rows.
    Gone,
}

pub struct HistoryCell {
    pub kind: CellKind,
    cache: Option<(u16, Vec<Line<'static>>)>,
}

impl HistoryCell {
    pub fn new(kind: CellKind) -> Self {
        let kind = match kind {
            CellKind::User(t) => CellKind::User(sanitize(&t).into_owned()),
            CellKind::PastedPrompt { shown, full, expanded } => CellKind::PastedPrompt {
                shown: sanitize(&shown).into_owned(),
                full: sanitize(&full).into_owned(),
                expanded,
            },
            CellKind::Info(t) => CellKind::Info(sanitize(&t).into_owned()),
            CellKind::Error(t) => CellKind::Error(sanitize(&t).into_owned()),
            other => other,
        };
        HistoryCell { kind, cache: None }
    }

    /// Call after changing `kind` in place.
    pub fn touch(&mut self) {
        self.cache = None;
    }

    pub fn push_thinking(&mut self, delta: &str) {
        if let CellKind::Thinking { text, .. } = &mut self.kind {
            text.push_str(delta);
        }
    }

    pub fn push_reply(&mut self, delta: &str) {
        if let CellKind::Reply(doc) = &mut self.kind {
            doc.push_str(delta);
        }
    }

    /// Drawn anew with `options` (a reply laid out again from its text).
    pub fn restyle(&mut self, options: RenderOptions) {
        if let CellKind::Reply(doc) = &mut self.kind {
            **doc = doc.restyled(options);
        }
        self.cache = None;
    }

    /// A reply cut off by an interrupt: an unfinished table row at its end goes.
    pub fn cut_unfinished_row(&mut self) {
        if let CellKind::Reply(doc) = &mut self.kind {
            doc.cut_unfinished_row();
        }
    }

    /// Up/Down in the conversation stop at this cell (a tool line).
    pub fn selectable(&self) -> bool {
        matches!(self.kind, CellKind::Tool(_) | CellKind::PastedPrompt { .. })
    }

    /// Expands or collapses what the cell hides (a command's whole output).
    pub fn toggle(&mut self) {
        match &mut self.kind {
            CellKind::Tool(line) => line.expanded = !line.expanded,
            CellKind::PastedPrompt { expanded, .. } => *expanded = !*expanded,
            _ => return,
        }
        self.cache = None;
    }

    /// Rows this cell takes at `width` (including its blank separator line).
    pub fn height(&mut self, width: u16, theme: &Theme, expand_thinking: bool) -> usize {
        match &mut self.kind {
            CellKind::Reply(doc) => doc.height(width) + 1,
            CellKind::Thinking { text, collapsed } => text.height(width, theme, *collapsed && !expand_thinking) + 1,
            _ => self.layout(width, theme).len(),
        }
    }

    /// Lays out exactly the `before` rows above row `row` and the `after` rows from it, and
    /// returns where `row`'s line is now. Only a reply can hold estimated heights (see
    /// `MarkdownDoc::settle`); every other cell is laid out whole and stays put.
    pub fn settle(&mut self, width: u16, row: usize, before: usize, after: usize) -> usize {
        match &mut self.kind {
            CellKind::Reply(doc) => doc.settle(width, row, before, after),
            _ => row,
        }
    }

    /// Rows `start..start+count` of this cell at `width`.
    pub fn lines(
        &mut self,
        width: u16,
        theme: &Theme,
        expand_thinking: bool,
        start: usize,
        count: usize,
    ) -> Vec<Line<'static>> {
        match &mut self.kind {
            CellKind::Reply(doc) => {
                let height = doc.height(width);
                let mut lines = doc.lines(width, start.min(height), count);
                if start + count > height && lines.len() < count {
                    lines.push(Line::default());
                }
                lines
            }
            CellKind::Thinking { text, collapsed } => {
                let collapsed = *collapsed && !expand_thinking;
                let height = text.height(width, theme, collapsed);
                let mut lines = text.lines(width, theme, collapsed, start.min(height), count);
                if start + count > height && lines.len() < count {
                    lines.push(Line::default());
                }
                lines
            }
            _ => self.layout(width, theme).iter().skip(start).take(count).cloned().collect(),
        }
    }

    /// The cached layout of a cell that is not a reply or thinking (those lay themselves out).
    fn layout(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        let fresh = matches!(&self.cache, Some((w, _)) if *w == width);
        if !fresh {
            let mut lines = self.render(width, theme);
            if !matches!(self.kind, CellKind::Gone) {
                lines.push(Line::default());
            }
            self.cache = Some((width, lines));
        }
        self.cache.as_ref().map(|(_, l)| l.as_slice()).unwrap_or(&[])
    }

    fn render(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        match &self.kind {
            CellKind::User(text) => wrap(text, width, theme.user(), "› ", "  ", theme.user()),
            CellKind::PastedPrompt { shown, full, expanded } => {
                let text = if *expanded { full } else { shown };
                wrap(text, width, theme.user(), "› ", "  ", theme.user())
            }
            CellKind::Reply(_) | CellKind::Thinking { .. } => Vec::new(),
            CellKind::Tool(line) => line.render(width, theme),
            CellKind::Info(text) => indented(text, width, theme),
            CellKind::Error(text) => wrap(text, width, theme.error(), "", "", theme.error()),
            CellKind::Notice(text) => wrap(text, width, theme.dim(), "", "", theme.dim()),
            CellKind::Banner(text) => super::banner::banner_lines(text, width, theme.dim()),
            CellKind::Welcome(lines) => {
                lines.iter().flat_map(|line| wrap(line, width, theme.text(), "", "  ", theme.text())).collect()
            }
            CellKind::Gone => Vec::new(),
        }
    }
}

/// Command output (`/tools`, `/permissions`): each line wrapped under its own indent and
/// two more, so a long description never runs back to column 0.
fn indented(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    text.split('\n')
        .flat_map(|line| {
            let body = line.trim_start_matches(' ');
            let indent = " ".repeat(line.len() - body.len());
            let rest = format!("{indent}  ");
            wrap(body, width, theme.text(), &indent, &rest, Style::default())
        })
        .collect()
}

#[cfg(test)]
impl HistoryCell {
    /// The reply's finished blocks laid out at its current width (0 for other cells).
    pub(crate) fn laid_out_blocks(&self) -> usize {
        match &self.kind {
            CellKind::Reply(doc) => doc.laid_out_blocks(),
            _ => 0,
        }
    }
}
