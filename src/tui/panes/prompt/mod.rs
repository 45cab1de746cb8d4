//! The prompt pane: `composer.rs` (the editor, recall, the `/` command popup, pastes) and
//! `prompt_history.rs` (the prompts kept across sessions).

pub mod composer;
pub mod prompt_history;
