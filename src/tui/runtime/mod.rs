//! The event loop's plumbing: the channels to the agent task (`channel.rs`), the terminal
//! (`terminal.rs`, `terminal_input/`, `background_query.rs`), when to draw (`scheduler.rs`, `held_text.rs`),
//! "now" (`clock.rs`), notifications (`notify.rs`), the saved layout (`prefs.rs`), what the
//! session found at start for the welcome (`welcome.rs`) and a new session's file left for
//! another before its first turn (`new_session.rs`).

pub mod background_query;
pub mod channel;
pub mod clock;
pub mod held_text;
pub mod new_session;
pub mod notify;
pub mod prefs;
pub mod scheduler;
pub mod terminal;
pub mod terminal_input;
pub mod welcome;
