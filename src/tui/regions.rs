//! Where the panes go, and the one place the TUI's shared geometry lives (panes read the
//! constants here; none reads another pane's). Wide terminals (≥ 100 columns) put the tool
//! log (and the context panel) in a side column whose width the user sets (Ctrl+Left/Right,
//! or `<` `>` in a side pane); narrower ones give the conversation the height and the tool
//! log a 3-row strip. Short terminals (< 30 rows) and narrow ones show the context panel as
//! an overlay. Any pane can be zoomed to the whole screen (Ctrl+Z). The choice is
//! remembered (`runtime/prefs.rs`). `Regions` owns that choice and the rectangles of the
//! last frame (for mouse hit-testing); it knows nothing of what the panes hold.

use crate::tui::intent::Focus;
use crate::tui::runtime::prefs::{LayoutPrefs, Zoom};
use crate::tui::text::background::ThemeChoice;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use std::path::PathBuf;

/// Columns from which the tool log and context panel sit beside the conversation.
pub const WIDE: u16 = 100;
/// Rows below which the context panel is an overlay rather than a pane.
pub const TALL: u16 = 30;
/// Rows of the tool log strip in the stacked layout.
pub const STRIP: u16 = 3;

/// Where each pane was drawn last, for mouse hit-testing.
#[derive(Clone, Copy, Debug, Default)]
pub struct PaneRects {
    pub conversation: Rect,
    pub tools: Rect,
    pub context: Option<Rect>,
    pub composer: Rect,
}

/// The layout the user chose (split, zoom, the context panel shown; the palette `/theme`
/// chose is kept in the same file), where it is remembered, and where the panes were drawn
/// last.
#[derive(Default)]
pub struct Regions {
    prefs: LayoutPrefs,
    path: Option<PathBuf>,
    show_context: bool,
    last: PaneRects,
}

impl Regions {
    /// Uses `prefs`, the layout remembered at `path`, and saves changes there.
    pub fn use_prefs(&mut self, path: PathBuf, prefs: LayoutPrefs) {
        self.prefs = prefs;
        self.path = Some(path);
    }

    /// The layout as it stands and where it is saved, for the app of the next session.
    pub fn prefs(&self) -> Option<(PathBuf, LayoutPrefs)> {
        self.path.clone().map(|path| (path, self.prefs))
    }

    /// The pane zoomed to the whole screen, if it can be shown.
    pub fn zoomed(&self) -> Option<Zoom> {
        self.prefs.zoom.filter(|z| *z != Zoom::Context || self.show_context)
    }

    pub fn show_context(&self) -> bool {
        self.show_context
    }

    pub fn set_show_context(&mut self, show: bool) {
        self.show_context = show;
    }

    /// Where the panes were drawn last.
    pub fn last(&self) -> PaneRects {
        self.last
    }

    /// The pane under `at` in the last frame.
    pub fn pane_at(&self, at: Position) -> Option<Focus> {
        let hit = |r: Rect| r.contains(at);
        if self.last.context.is_some_and(hit) {
            Some(Focus::Context)
        } else if hit(self.last.tools) {
            Some(Focus::Tools)
        } else if hit(self.last.conversation) {
            Some(Focus::Conversation)
        } else if hit(self.last.composer) {
            Some(Focus::Composer)
        } else {
            None
        }
    }

    /// The panes Tab cycles through, from the prompt: only the zoomed one when a pane is
    /// zoomed.
    pub fn focus_order(&self) -> Vec<Focus> {
        if let Some(zoom) = self.zoomed() {
            let pane = match zoom {
                Zoom::Conversation => Focus::Conversation,
                Zoom::Tools => Focus::Tools,
                Zoom::Context => Focus::Context,
            };
            return vec![Focus::Composer, pane];
        }
        let mut order = vec![Focus::Composer, Focus::Conversation, Focus::Tools];
        if self.show_context {
            order.push(Focus::Context);
        }
        order
    }

    /// Lays out `main` (everything above the prompt) for a screen of `screen_height` rows,
    /// and remembers it.
    pub fn lay_out(&mut self, main: Rect, composer: Rect, screen_height: u16) -> PaneRects {
        self.last = self.pane_rects(main, composer, screen_height);
        self.last
    }

    fn pane_rects(&self, main: Rect, composer: Rect, screen_height: u16) -> PaneRects {
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

    /// Moves the split by `steps` (positive: a wider side column) and remembers it; a
    /// failed save is said in the `Err`.
    pub fn resize_split(&mut self, steps: i32) -> Result<(), String> {
        self.prefs = self.prefs.resized(steps);
        self.save()
    }

    /// Zooms the pane that has `focus` (the prompt zooms the conversation), or back.
    pub fn toggle_zoom(&mut self, focus: Focus) -> Result<(), String> {
        let pane = match focus {
            Focus::Composer | Focus::Conversation => Zoom::Conversation,
            Focus::Tools => Zoom::Tools,
            Focus::Context => Zoom::Context,
        };
        self.prefs.zoom = if self.zoomed().is_some() { None } else { Some(pane) };
        self.save()
    }

    /// Remembers the palette `/theme` chose.
    pub fn save_theme(&mut self, theme: ThemeChoice) -> Result<(), String> {
        self.prefs.theme = Some(theme);
        self.save()
    }

    fn save(&self) -> Result<(), String> {
        match &self.path {
            Some(path) => self.prefs.save(path).map_err(|error| format!("could not save the layout: {error}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_screens_get_a_side_column_narrow_ones_a_strip() {
        let mut regions = Regions::default();
        let composer = Rect::new(0, 37, 120, 3);
        let wide = regions.lay_out(Rect::new(0, 0, 120, 37), composer, 40);
        assert_eq!(wide.conversation.y, wide.tools.y, "side by side");
        assert!(wide.context.is_none());
        let narrow = regions.lay_out(Rect::new(0, 0, 80, 37), composer, 40);
        assert_eq!(narrow.tools.height, STRIP);
        assert_eq!(regions.last().tools, narrow.tools, "the last layout is remembered");
        assert_eq!(regions.pane_at(Position { x: 1, y: narrow.tools.y }), Some(Focus::Tools));
    }

    #[test]
    fn tab_order_holds_only_the_zoomed_pane_and_the_prompt() {
        let mut regions = Regions::default();
        assert_eq!(regions.focus_order().len(), 3);
        regions.set_show_context(true);
        assert_eq!(regions.focus_order().len(), 4);
        assert_eq!(regions.toggle_zoom(Focus::Tools), Ok(()));
        assert_eq!(regions.focus_order(), vec![Focus::Composer, Focus::Tools]);
    }
}
