//! The help overlay (`?` on an empty prompt, or `/help`): every key and every slash
//! command in two columns, the descriptions wrapping under themselves, scrollable, closed
//! with Esc. `KEYS` is the one list of bindings; the README's key table is the same list
//! (`tests/it/readme_keys.rs` fails when they differ).

use crate::tui::intent::Intent;
use crate::tui::text::hints::KEEP_HINT;
use crate::tui::text::rows::Scroll;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Widget};
use unicode_width::UnicodeWidthStr;

/// Every key binding: (keys, what they do).
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "send the prompt"),
    ("Shift+Enter, Alt+Enter, Ctrl+J", "new line"),
    ("Up / Down", "recall earlier prompts (kept across sessions); in a pane, move the selection"),
    ("Ctrl+R", "search earlier prompts; again: older match; Enter/→ keep it, Esc cancel"),
    ("@ (prompt)", "pick a file to attach: ↑↓ choose, Tab/Enter insert, Esc close"),
    ("Tab", "move focus: prompt → conversation → tools → context; in the / popup, complete"),
    ("Shift+Tab, /mode", "switch mode: ask → accept edits (file changes inside the project run unasked) → plan (read-only tools only); shown in the prompt's border and the status line"),
    (
        "PgUp PgDn, mouse wheel",
        "scroll the focused pane (from the prompt: the conversation); the wheel, the pane under it",
    ),
    ("Home End", "top / bottom of the focused pane; End in the tools pane follows new calls"),
    ("Ctrl+Home, Ctrl+End", "the same from the prompt (Home, End alone on an empty prompt; End at the end of the text)"),
    ("Enter (conversation)", "open the selected tool call in the tool log"),
    ("Space (conversation)", "show all output of the selected call, a line per call of a group, or a whole paste"),
    ("Enter (tools)", "expand / collapse the selected call (none selected: the newest)"),
    ("Esc", "from a pane: back to the prompt (never interrupts); from the prompt: interrupt the running turn, queued prompts kept; close a popup or this help"),
    ("Up, Ctrl+X (queued prompts)", "on an empty prompt: take the newest queued prompt back to edit / drop it"),
    ("Esc, then Enter", "interrupt the turn; the queued prompts wait for Enter, which sends the prompt typed before them (an empty prompt: sends them)"),
    ("Esc Esc (empty prompt), /rewind", "the earlier prompts, newest first: Enter puts the conversation and the files back to just before the chosen one and the prompt into the composer; Esc closes"),
    ("type, ↑↓ Enter Esc (resume picker), /resume", "filter this directory's sessions (date, turns, first prompt; the chosen one's last exchange below), choose, resume it, close"),
    ("Ctrl+C", "clear the prompt (an empty one: interrupt the turn); twice quits"),
    ("Ctrl+D (empty prompt)", "quit"),
    ("Ctrl+O, /context", "toggle the context panel"),
    ("Ctrl+T", "expand thinking"),
    ("Ctrl+Left / Ctrl+Right, < >", "widen / narrow the side column (in a pane; < > in tools or context)"),
    ("Ctrl+Z", "zoom the focused pane to the whole screen, and back (remembered)"),
    ("mouse click", "focus a pane, select the row under it"),
    ("? (empty prompt), /help", "the help overlay: keys and commands"),
    ("/mouse, --no-mouse", "toggle mouse capture (clicks and the wheel only; while on, Shift-drag selects text; off: plain drag does)"),
    ("1 2 3 (approval)", "allow once, allow for the session, deny (Esc too); typing goes to the prompt; a digit pressed as it opens is not taken (press it again)"),
    ("1 2 3 (trust question)", "trust the project, no (not asked again), not now (Esc too)"),
    ("4 (approval)", "deny and tell the model why (type a reason, Enter)"),
    ("1 2 3 (accept plan)", "after a plan in plan mode: go ahead asking before changes, go ahead accepting edits, keep planning (Esc too)"),
    ("↑↓ Ctrl+F (approval)", "scroll the preview (PgUp PgDn too); full screen"),
];

/// Rows of the overlay for a width: a keys section and a commands section.
pub fn help_lines(commands: &[(String, String)], width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled("Keys", theme.accent()))];
    let key_width = KEYS.iter().map(|(k, _)| k.width()).max().unwrap_or(0).min(usize::from(width) / 2);
    for (keys, what) in KEYS {
        lines.extend(entry(keys, what, key_width, width, theme));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled("Commands", theme.accent())));
    let name_width = commands.iter().map(|(n, _)| n.width()).max().unwrap_or(0).min(usize::from(width) / 2);
    for (name, what) in commands {
        lines.extend(entry(name, what, name_width, width, theme));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled("Context", theme.accent())));
    lines.extend(wrap(KEEP_HINT, width, theme.text(), "  ", "  ", theme.text()));
    lines
}

/// `keys` padded to `column`, then `what` wrapped under itself.
fn entry(keys: &str, what: &str, column: usize, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let first = format!("  {keys:<column$}  ");
    if first.width() >= usize::from(width) / 2 + 4 {
        // A key too long for the column: the description goes on the next line.
        let mut out = wrap(keys, width, theme.approval(), "  ", "  ", theme.approval());
        out.extend(wrap(what, width, theme.text(), &" ".repeat(column + 4), &" ".repeat(column + 4), theme.text()));
        return out;
    }
    let rest = " ".repeat(first.width());
    wrap(what, width, theme.text(), &first, &rest, theme.approval())
}

/// The open overlay: where it is scrolled to.
#[derive(Default)]
pub struct HelpOverlay {
    pub scroll: Scroll,
    view_rows: usize,
    total: usize,
}

impl HelpOverlay {
    pub fn new() -> Self {
        HelpOverlay { scroll: Scroll { top: 0, follow: false }, view_rows: 0, total: 0 }
    }

    pub fn scroll_up(&mut self, rows: usize) {
        self.scroll.up(rows, self.total, self.view_rows);
        self.scroll.follow = false;
    }

    pub fn scroll_down(&mut self, rows: usize) {
        self.scroll.down(rows, self.total, self.view_rows);
        self.scroll.follow = false;
    }

    pub fn page(&self) -> usize {
        self.view_rows.saturating_sub(2).max(1)
    }

    /// A key while the overlay is open: scroll, or `Close`. It takes every key.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        match key.code {
            KeyCode::Esc | KeyCode::Char('q' | '?') | KeyCode::Enter => return Intent::Close(None),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => return Intent::Close(None),
            KeyCode::Up => self.scroll_up(1),
            KeyCode::Down => self.scroll_down(1),
            KeyCode::PageUp => self.scroll_up(self.page()),
            KeyCode::PageDown => self.scroll_down(self.page()),
            KeyCode::Home => self.scroll_up(usize::MAX),
            KeyCode::End => self.scroll_down(usize::MAX),
            _ => {}
        }
        Intent::Handled
    }

    /// Draws the overlay over `area` (the screen), which it blanks first: the panes under
    /// it would otherwise show as cut-off fragments in the margins around the box.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, commands: &[(String, String)]) {
        let width = area.width.saturating_sub(4).clamp(20, 110).min(area.width);
        let height = area.height.saturating_sub(2).max(3).min(area.height);
        let rect = Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height };
        Clear.render(area, buf);
        let inner = theme.draw_pane(rect, buf, "help · ↑↓ PgUp PgDn scroll · Esc closes", true);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let lines = help_lines(commands, inner.width, theme);
        self.total = lines.len();
        self.view_rows = usize::from(inner.height);
        let top = self.scroll.resolve(self.total, self.view_rows);
        for (row, line) in lines.iter().skip(top).take(self.view_rows).enumerate() {
            buf.set_line(inner.x, inner.y + row as u16, line, inner.width);
        }
    }
}
