//! Sessions that survive: every session is recorded as it happens, append-only JSONL under
//! `$XDG_DATA_HOME/elelem/sessions/` (one file per session, mode 0600), and can be listed
//! and resumed. `record` writes, `replay` reads back, `store` finds the files, `open` opens
//! them (regular files only, never through a link, one writer per file), `images` reads a
//! resumed session's images again.

pub mod images;
pub mod open;
pub mod record;
pub mod replay;
pub mod store;

pub use record::Recorder;
pub use replay::{Replayed, SessionFile};
pub use store::{SessionInfo, Store};
