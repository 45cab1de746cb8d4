//! The full-screen app and the line REPL: panes and popups through `App` on a `TestBackend`, and the real binary in a pseudo-terminal.

mod composer;
mod conversation_rows;
mod copy;
mod copy_pty;
mod drive;
mod first_minutes;
mod first_minutes_pty;
mod first_screen;
mod help_trust;
mod keys;
mod line_repl;
mod markdown_props;
mod markdown_snapshots;
mod model_picker;
mod plain_words;
mod plain_words_pty;
mod plan;
pub mod pty;
mod pty_terminal;
mod queue;
mod queue_pty;
mod rough_edges;
mod sanitize_e2e;
pub mod screens;
mod status;
mod task;
mod tool_groups;
