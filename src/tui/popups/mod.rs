//! The popups: what opens over the panes for a while and takes keys first — the `@` file
//! picker (over `file_index.rs`), the model picker, the jobs popup (`jobs.rs`), Ctrl+R history search, the approval
//! dialog, the confirmations asked above the prompt (`confirm.rs`), the help overlay, the accept-plan dialog (`plan_accept.rs`), the rewind picker
//! (`rewind.rs`) and the resume picker (`resume_picker.rs`). Each keeps its own state, takes keys (returning an `Intent` that `App` applies)
//! and draws itself over the panes. Those open over the panes for a while are kept as one
//! stack (`stack.rs`), the top one taking keys first.

pub mod approval;
pub mod confirm;
pub mod file_index;
pub mod file_picker;
pub mod help;
pub mod jobs;
pub mod model_picker;
pub mod plan_accept;
pub mod resume_picker;
pub mod reverse_search;
pub mod rewind;
pub mod stack;

use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Clear, Widget};

/// A popup's pane just above the composer (the model picker's, the jobs popup's): `rows`
/// lines inside, at most 100 columns wide, titled `title`, what was under it cleared. The
/// area inside, or `None` when there is no room above the composer.
pub fn pane_above(composer: Rect, rows: u16, title: &str, buf: &mut Buffer, theme: &Theme) -> Option<Rect> {
    let width = composer.width.min(100);
    let height = (rows + 2).min(composer.y);
    if height < 3 {
        return None;
    }
    let area = Rect { x: composer.x, y: composer.y - height, width, height };
    Clear.render(area, buf);
    Some(theme.draw_pane(area, buf, &truncate(title, usize::from(width.saturating_sub(4))), true))
}
