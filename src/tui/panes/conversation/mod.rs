//! The conversation pane: `history.rs` (the cells, which of them still stream, the
//! scrolled viewport) over `cells.rs` (each item lays itself out for a width, cached) and
//! `tool_line.rs` (a tool call's line) and `thinking.rs` (thinking text, laid out as it
//! streams); `welcome.rs` says what the first screen shows.

pub mod cells;
pub mod history;
pub mod thinking;
pub mod tool_group;
pub mod tool_line;
pub mod welcome;
