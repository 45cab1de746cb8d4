//! The help overlay (`?` on an empty prompt, or `/help`): every key, in groups (Prompt,
//! Turn, Panes, Sessions, Dialogs), then every slash command, each a key and its meaning
//! side by side (`rows.rs` lays them out); typing searches (only the entries holding every
//! word typed stay), Esc clears the search, then closes. `KEYS` is the one list of
//! bindings; the README's key table is the same list, its groups as rows of their own
//! (`tests/it/readme_keys.rs` fails when they differ).

mod rows;

pub use rows::{help_lines, Query};

use crate::tui::intent::Intent;
use crate::tui::text::rows::Scroll;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Clear, Widget};

/// Keys of one kind, under a heading.
pub struct Group {
    pub name: &'static str,
    /// (keys, what they do).
    pub keys: &'static [(&'static str, &'static str)],
}

/// Every key binding, grouped.
pub const KEYS: &[Group] = &[
    Group {
        name: "Prompt",
        keys: &[
            ("Enter", "send the prompt"),
            ("Shift+Enter, Alt+Enter, Ctrl+J", "new line"),
            ("Up / Down", "recall earlier prompts (kept across sessions); in a pane, move the selection"),
            ("Ctrl+R", "search earlier prompts; again: older match; Enter/→ keep it, Esc cancel"),
            ("@ (prompt)", "pick a file to attach: ↑↓ choose, Tab/Enter insert, Esc close"),
            ("Ctrl+C", "clear the prompt (an empty one: interrupt the turn); twice quits"),
            ("Ctrl+D (empty prompt)", "quit"),
            ("? (empty prompt), /help", "the help overlay: keys and commands; type to search it"),
        ],
    },
    Group {
        name: "Turn",
        keys: &[
            ("Esc", "from a pane: back to the prompt (never interrupts); from the prompt: interrupt the running turn, queued prompts kept; close a popup or this help"),
            ("Up, Ctrl+X (queued prompts)", "on an empty prompt: take the newest queued prompt back to edit / drop it"),
            ("Esc, then Enter", "interrupt the turn; the queued prompts wait for Enter, which sends the prompt typed before them (an empty prompt: sends them)"),
            ("Shift+Tab, /mode", "switch mode: ask → accept edits (file changes inside the project run unasked) → plan (read-only tools only); shown in the prompt's border and the status line"),
            ("Ctrl+T", "expand thinking"),
        ],
    },
    Group {
        name: "Panes",
        keys: &[
            ("Tab", "move focus: prompt → conversation → tools → context; in the / popup, complete"),
            (
                "PgUp PgDn, mouse wheel",
                "scroll the focused pane (from the prompt: the conversation); the wheel, the pane under it",
            ),
            ("Home End", "top / bottom of the focused pane; End in the tools pane follows new calls"),
            ("Ctrl+Home, Ctrl+End", "the same from the prompt (Home, End alone on an empty prompt; End at the end of the text)"),
            ("Enter (conversation)", "open the selected tool call in the tool log"),
            ("Space (conversation)", "show all output of the selected call, a line per call of a group, or a whole paste"),
            ("Enter (tools)", "expand / collapse the selected call (none selected: the newest)"),
            ("Ctrl+O, /context", "toggle the context panel"),
            ("Ctrl+Left / Ctrl+Right, < >", "widen / narrow the side column (in a pane; < > in tools or context)"),
            ("Ctrl+Z", "zoom the focused pane to the whole screen, and back (remembered)"),
            ("mouse click", "focus a pane, select the row there; a code block's [copy]: copy it"),
            ("mouse drag (conversation)", "select text there; letting go copies it (OSC 52; tmux's buffer too)"),
            ("/mouse, --no-mouse", "toggle mouse capture (while on, Shift-drag is the terminal's own selection; off: plain drag is)"),
        ],
    },
    Group {
        name: "Sessions",
        keys: &[
            ("Esc Esc (empty prompt), /rewind", "the earlier prompts, newest first: Enter puts the conversation and the files back to just before the chosen one and the prompt into the composer; Esc closes"),
            ("type, ↑↓ Enter Esc (resume picker), /resume", "filter this directory's sessions (date, turns, first prompt; the chosen one's last exchange below), choose, resume it, close"),
        ],
    },
    Group {
        name: "Dialogs",
        keys: &[
            ("1 2 3 (approval)", "allow once, allow for the session, deny (Esc too); typing goes to the prompt; a digit pressed as it opens is not taken (press it again)"),
            ("4 (approval)", "deny and tell the model why (type a reason, Enter)"),
            ("↑↓ Ctrl+F (approval)", "scroll the preview (PgUp PgDn too); full screen"),
            ("1 2 3 (trust question)", "trust the project, no (not asked again), not now (Esc too)"),
            ("1 2 3 (accept plan)", "after a plan in plan mode: go ahead asking before changes, go ahead accepting edits, keep planning (Esc too)"),
        ],
    },
];

/// Every key binding in the order the help shows them: (keys, what they do).
pub fn keys() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    KEYS.iter().flat_map(|group| group.keys)
}

/// The open overlay: what is typed into its search, and where it is scrolled to.
#[derive(Default)]
pub struct HelpOverlay {
    pub scroll: Scroll,
    query: String,
    view_rows: usize,
    total: usize,
}

impl HelpOverlay {
    pub fn new() -> Self {
        HelpOverlay { scroll: Scroll { top: 0, follow: false }, query: String::new(), view_rows: 0, total: 0 }
    }

    /// What is typed into the search.
    pub fn query(&self) -> &str {
        &self.query
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

    /// A key while the overlay is open: the search, scrolling, or `Close`. It takes every key.
    pub fn handle_key(&mut self, key: KeyEvent) -> Intent {
        let ctrl = key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc if !self.query.is_empty() => self.search(String::new()),
            KeyCode::Esc | KeyCode::Enter => return Intent::Close(None),
            KeyCode::Char('c') if ctrl => return Intent::Close(None),
            // `?` again closes, as it opened; in a search it is a character like any other.
            KeyCode::Char('?') if self.query.is_empty() => return Intent::Close(None),
            KeyCode::Char(c) if !ctrl => self.search(format!("{}{c}", self.query)),
            KeyCode::Backspace => {
                let mut query = self.query.clone();
                query.pop();
                self.search(query);
            }
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

    /// Searches for `query`, from the top of what it finds.
    fn search(&mut self, query: String) {
        self.query = query;
        self.scroll = Scroll { top: 0, follow: false };
    }

    /// The title: how to search and scroll, or what is searched for.
    fn title(&self, width: usize) -> String {
        let title = if self.query.is_empty() {
            "help · type to search · ↑↓ PgUp PgDn · Esc closes".to_string()
        } else {
            let query = crate::sanitize::sanitize_visible(&self.query);
            format!("help · search: {query}▏ · Esc clears")
        };
        truncate(&title, width.saturating_sub(4))
    }

    /// Draws the overlay over `area` (the screen), which it blanks first: the panes under
    /// it would otherwise show as cut-off fragments in the margins around the box.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, commands: &[(String, String)]) {
        let width = area.width.saturating_sub(4).clamp(20, 110).min(area.width);
        let height = area.height.saturating_sub(2).max(3).min(area.height);
        let rect = Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height };
        Clear.render(area, buf);
        let title = self.title(usize::from(width));
        let inner = theme.draw_pane(rect, buf, &title, true);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let lines = help_lines(commands, inner.width, &Query::new(&self.query), theme);
        self.total = lines.len();
        self.view_rows = usize::from(inner.height);
        let top = self.scroll.resolve(self.total, self.view_rows);
        for (row, line) in lines.iter().skip(top).take(self.view_rows).enumerate() {
            buf.set_line(inner.x, inner.y + row as u16, line, inner.width);
        }
    }
}
