//! The panes: each region of the screen that shows part of the session and keeps its own
//! state, key handling (returning an `Intent`), scrolling and drawing — the conversation,
//! the tool log (its rows in `tool_row.rs`, an expanded call laid out by `tool_detail.rs`, a sub-agent's calls nested by `sub_calls.rs`), the context panel, the model's plan pinned above the prompt, the prompts queued while a turn runs, the prompt (the composer and its input history) and
//! the status line. A pane never reaches into another: what crosses panes is an `Intent`
//! that `App` applies.

pub mod context_panel;
pub mod conversation;
pub mod plan;
pub mod prompt;
pub mod queue;
pub mod status;
pub mod status_line;
pub mod sub_calls;
pub mod tool_detail;
pub mod tool_log;
pub mod tool_row;
