//! The conversation pane: `history.rs` (the cells, which of them still stream, the
//! scrolled viewport) over `cells.rs` (each item lays itself out for a width, cached) and
//! `tool_line.rs` (a tool call's line, with `inline_diff.rs`, the change it made) and
//! `thinking.rs` (thinking text, laid out as it streams); `hook_rows.rs` decides which hook
//! runs show; `banner.rs` lays out the first screen's banner (the welcome's words are
//! `runtime/welcome.rs`).

pub mod banner;
pub mod cells;
pub mod history;
pub mod hook_rows;
pub mod inline_diff;
pub mod thinking;
pub mod tool_group;
pub mod tool_line;
