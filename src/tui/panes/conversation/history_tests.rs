//! The conversation pane over a reply too big to lay out whole: after it arrives at once or
//! the width changes, a frame lays out only what it shows, and following the bottom, going
//! to the top and paging across estimated rows show exactly what a whole layout shows.

use super::History;
use crate::tui::markdown::{render, RenderOptions};
use crate::tui::text::theme::Theme;
use ratatui::text::Line;

const ROWS: usize = 40;

/// ~200 KB of mixed Markdown in numbered sections.
fn big() -> String {
    let mut text = String::new();
    for i in 0..700 {
        text.push_str(&format!(
            "## Section {i}\\n\\nParagraph {i} with *emphasis* and `code`, long enough to wrap over a few \\
             lines at the widths these tests use, so estimates and layouts differ.\\n\\n\\
             - item one\\n- item two\\n  - nested\\n\\n```rust\\nfn f{i}() -> u32 {{\\n    {i}\\n}}\\n```\\n\\n"
        ));
    }
    text
}

/// The reply's whole layout with its cell's blank row, then an info line's cell.
fn whole(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = render(text, width, RenderOptions::default());
    lines.push(Line::default());
    let mut info = History::new(true);
    info.push(super::CellKind::Info("done".into()));
    let rows = info.total_rows(width, theme);
    lines.extend(info.visible(width, rows, theme, false));
    lines
}

fn history(text: &str) -> History {
    let mut history = History::new(true);
    history.saying(text);
    history.close();
    history.push(super::CellKind::Info("done".into()));
    history
}

/// `big()` in a conversation drawn once at 120 columns (then the tests change the width).
fn drawn_wide() -> (String, Theme, History) {
    let (text, theme) = (big(), Theme::new(true));
    let mut history = history(&text);
    let _ = history.visible(120, ROWS, &theme, false);
    (text, theme, history)
}

#[test]
fn the_bottom_of_a_big_reply_lays_out_few_blocks_before_and_after_a_width_change() {
    let (text, theme) = (big(), Theme::new(true));
    let mut history = history(&text);
    for width in [120u16, 100] {
        let shown = history.visible(width, ROWS, &theme, false);
        assert!(history.cells[0].laid_out_blocks() <= ROWS, "width {width}");
        let all = whole(&text, width, &theme);
        assert_eq!(shown, all[all.len() - ROWS..], "width {width}");
    }
}

#[test]
fn going_to_the_top_after_a_width_change_shows_the_true_first_lines() {
    let (text, theme, mut history) = drawn_wide();
    history.scroll.home();
    let shown = history.visible(90, ROWS, &theme, false);
    assert!(history.cells[0].laid_out_blocks() <= ROWS);
    assert_eq!(shown, whole(&text, 90, &theme)[..ROWS]);
}

#[test]
fn paging_up_after_a_width_change_shows_every_line_once() {
    let (text, theme, mut history) = drawn_wide();
    let mut page = history.visible(80, ROWS, &theme, false);
    let mut below = page.clone();
    let step = ROWS / 2;
    loop {
        history.scroll_up(step);
        let previous = std::mem::replace(&mut page, history.visible(80, ROWS, &theme, false));
        if history.scroll.top == 0 {
            break;
        }
        assert_eq!(page[step..], previous[..ROWS - step], "the rows scrolled down by {step} stay in place");
        below.splice(0..0, page[..step].iter().cloned());
    }
    let all = whole(&text, 80, &theme);
    assert_eq!(page, all[..ROWS], "the top page is the true first lines");
    assert!(below.len() + ROWS >= all.len(), "no gap between the top page and the rows paged over");
    assert!(below[..] == all[all.len() - below.len()..], "paging up shows every line once, in order");
}

#[test]
fn paging_down_from_the_top_after_a_width_change_shows_every_line_once() {
    let (text, theme, mut history) = drawn_wide();
    history.scroll.home();
    let mut shown = history.visible(70, ROWS, &theme, false);
    while !history.scroll.follow {
        let top = history.scroll.top;
        history.scroll_down(ROWS);
        let page = history.visible(70, ROWS, &theme, false);
        let fresh = history.scroll.top - top;
        shown.extend(page.into_iter().skip(ROWS - fresh));
    }
    assert!(shown == whole(&text, 70, &theme), "paging down shows the whole conversation once, in order");
}

/// A late answer about the terminal's background: a reply already shown is drawn again
/// exactly as if it had arrived in the light palette.
#[test]
fn a_reply_already_shown_takes_the_light_palette_when_the_theme_changes() {
    let text = "Some `code` and:\n\n```rust\nfn main() {}\n```\n";
    let (dark, light) = (Theme::new(true), Theme::light(true));
    let mut switched = history(text);
    let before = switched.visible(80, 10, &dark, false);
    switched.set_light(true);
    let after = switched.visible(80, 10, &light, false);
    let mut born_light = History::themed(light);
    born_light.saying(text);
    born_light.close();
    born_light.push(super::CellKind::Info("done".into()));
    assert_eq!(after, born_light.visible(80, 10, &light, false));
    assert_ne!(before, after, "the reply kept its dark colours");
}
