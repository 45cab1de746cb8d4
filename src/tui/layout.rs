//! Where the panes go. Wide terminals (≥ 100 columns) put the tool log (and the context
//! panel) in a side column whose width the user sets (Ctrl+Left/Right, or `<` `>` in a side
//! pane); narrower ones give the conversation the height and the tool log a 3-row strip.
//! Short terminals (< 30 rows) and narrow ones show the context panel as an overlay. Any
//! pane can be zoomed to the whole screen (Ctrl+Z). The choice is remembered (`prefs.rs`).

use super::app::{App, Focus, PaneRects};
use super::prefs::{LayoutPrefs, Zoom};
use ratatui::layout::{Constraint, Layout, Rect};

/// Columns from which the tool log and context panel sit beside the conversation.
pub const WIDE: u16 = 100;
/// Rows below which the context panel is an overlay rather than a pane.
pub const TALL: u16 = 30;
/// Rows of the tool log strip in the stacked layout.
pub const STRIP: u16 = 3;

impl App {
    /// The pane zoomed to the whole screen, if it can be shown.
    pub fn zoomed(&self) -> Option<Zoom> {
        self.prefs.zoom.filter(|z| *z != Zoom::Context || self.show_context)
    }

    /// Lays out `main` (everything above the prompt) for a screen of `screen_height` rows.
    pub(super) fn pane_rects(&self, main: Rect, composer: Rect, screen_height: u16) -> PaneRects {
        let hidden = Rect { width: 0, height: 0, ..main };
        let panes = |conversation, tools, context| PaneRects { conversation, tools, context, composer };
        match self.zoomed() {
            Some(Zoom::Conversation) => return panes(main, hidden, None),
            Some(Zoom::Tools) => return panes(hidden, main, None),
            Some(Zoom::Context) => return panes(hidden, hidden, Some(main)),
            None => {}
        }
        let overlay = self.show_context && (main.width < WIDE || screen_height < TALL);
        let context = overlay.then_some(main);
        if main.width >= WIDE {
            let side = (main.width * self.prefs.split / 100).clamp(24, main.width.saturating_sub(30).max(24));
            let [conversation, right] = Layout::horizontal([Constraint::Min(20), Constraint::Length(side)]).areas(main);
            if self.show_context && !overlay {
                let tools_h = (right.height * 2 / 5).max(5);
                let [tools, context] = Layout::vertical([Constraint::Length(tools_h), Constraint::Min(3)]).areas(right);
                return panes(conversation, tools, Some(context));
            }
            panes(conversation, right, context)
        } else {
            let [conversation, tools] = Layout::vertical([Constraint::Min(3), Constraint::Length(STRIP)]).areas(main);
            panes(conversation, tools, context)
        }
    }

    /// Moves the split by `steps` (positive: a wider side column) and remembers it.
    pub(super) fn resize_split(&mut self, steps: i32) {
        self.prefs = self.prefs.resized(steps);
        self.save_prefs();
    }

    /// Zooms the focused pane (the prompt zooms the conversation), or back.
    pub(super) fn toggle_zoom(&mut self) {
        let pane = match self.focus {
            Focus::Composer | Focus::Conversation => Zoom::Conversation,
            Focus::Tools => Zoom::Tools,
            Focus::Context => Zoom::Context,
        };
        self.prefs.zoom = if self.zoomed().is_some() { None } else { Some(pane) };
        self.save_prefs();
    }

    /// Uses the layout remembered at `path` and saves changes there.
    pub fn use_layout_prefs(&mut self, path: std::path::PathBuf) {
        self.prefs = LayoutPrefs::load(&path);
        self.prefs_path = Some(path);
    }

    fn save_prefs(&mut self) {
        if let Some(path) = &self.prefs_path {
            if let Err(error) = self.prefs.save(path) {
                self.notify(format!("could not save the layout: {error}"));
            }
        }
    }
}
