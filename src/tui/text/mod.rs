//! How text is drawn, below the panes: the theme's colours (`theme.rs`, chosen at start by
//! `background.rs`), diff colouring (`diff.rs`), per-item row heights and scrolling
//! (`rows.rs`), how a row reads back as text for a copy (`row_text.rs`), sentences shown in more than one place (`hints.rs`), the one walk that lays out just the rows a window needs (`settle.rs`), writing lines into the buffer cell by cell (`line_out.rs`), and the cells a pane drew last frame, reused while its inputs hold (`pane_cache.rs`). Wrapping is
//! `tui/wrap.rs`, Markdown `tui/markdown/`, code colours `tui/highlight/`.

pub mod background;
pub mod diff;
pub mod hints;
pub mod line_out;
pub mod pane_cache;
pub mod row_text;
pub mod rows;
pub mod settle;
pub mod theme;
