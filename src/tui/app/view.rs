//! What tests and benches read of `App` where the screen cannot tell (`App::view`): plain
//! values copied out, never a pane to change. They drive the app through its keys, pastes,
//! mouse and agent events, and read the screen (`TestBackend`) or this.

use super::App;
use crate::tui::intent::Focus;
use crate::tui::popups::confirm::Confirm;
use crate::tui::popups::stack::Popup;
use crate::tui::regions::PaneRects;
use crate::tui::runtime::prefs::Zoom;
use std::time::Instant;

/// The app as it stands, read-only.
#[derive(Clone, Debug)]
pub struct View {
    /// The prompt's text, and whether it counts as empty (placeholders aside).
    pub prompt: String,
    pub prompt_empty: bool,
    /// The prompt's command completion popup is open.
    pub completing: bool,
    pub focus: Focus,
    /// The open popups by title (`popups/stack.rs`), lowest first: the last has the keys.
    pub popups: Vec<&'static str>,
    /// What is typed into the help's search, while the help is open.
    pub help_query: Option<String>,
    /// The question asked above the prompt.
    pub confirm: Option<Confirm>,
    /// Prompts waiting for the running turn, and whether an interrupt holds them.
    pub queued: usize,
    pub queue_held: bool,
    /// Where each pane was drawn last, the pane zoomed, the context panel shown.
    pub rects: PaneRects,
    pub zoomed: Option<Zoom>,
    pub show_context: bool,
    /// Something on screen changes with time.
    pub animating: bool,
    pub quitting: bool,
    /// The conversation's scroll: its first row shown, whether it sticks to the bottom, the
    /// rows it shows, and the rows below what it shows.
    pub conversation_top: usize,
    pub conversation_follows: bool,
    pub conversation_rows: usize,
    pub rows_below: Option<usize>,
    /// The tool call selected in the conversation and in the tool log.
    pub conversation_call: Option<String>,
    pub tool_log_call: Option<String>,
    /// When the app started, by its clock.
    pub started: Instant,
}

impl View {
    /// Whether a popup titled `title` is open.
    pub fn has(&self, title: &str) -> bool {
        self.popups.contains(&title)
    }

    /// The popup that has the keys.
    pub fn top(&self) -> Option<&'static str> {
        self.popups.last().copied()
    }
}

impl App {
    /// What tests and benches read of the app (`View`).
    pub fn view(&self) -> View {
        View {
            prompt: self.composer.text(),
            prompt_empty: self.composer.is_empty(),
            completing: !self.composer.popup().is_empty(),
            focus: self.focus,
            popups: self.popups.iter().map(Popup::title).collect(),
            help_query: self.popups.iter().find_map(|popup| match popup {
                Popup::Help(help) => Some(help.query().to_string()),
                _ => None,
            }),
            confirm: self.confirm.clone(),
            queued: self.queue.len(),
            queue_held: self.queue.held(),
            rects: self.regions.last(),
            zoomed: self.regions.zoomed(),
            show_context: self.regions.show_context(),
            animating: self.animating(),
            quitting: self.quit,
            conversation_top: self.history.scroll.top,
            conversation_follows: self.history.scroll.follow,
            conversation_rows: self.history.view_rows,
            rows_below: self.history.rows_below(),
            conversation_call: self.history.selected_tool().map(str::to_string),
            tool_log_call: self.tools.selected_id().map(str::to_string),
            started: self.started,
        }
    }
}
