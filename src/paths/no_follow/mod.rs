//! Opening a path that was already resolved and checked, without following any symlink
//! on the way: the directory is opened one component at a time from `/` with
//! `O_NOFOLLOW`, and the file is opened (or replaced) relative to that directory. A
//! symlink swapped in after the check, anywhere in the path, makes the open fail instead
//! of leading somewhere else; a write replaces such a link, it never writes through it.
//!
//! The paths given here come from `paths::resolve`: absolute, with no symlink in
//! the part that existed when the call was checked.
//!
//! That is the Unix way (`unix.rs`). Windows (`windows.rs`) has no `openat`: each
//! directory on the way is looked at (`symlink_metadata`) and the file opened by path with
//! `FILE_FLAG_OPEN_REPARSE_POINT`, so a link found is refused, but one swapped in between
//! the look and the open is not caught.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{kind, open_dir, open_read, remove, replace, replace_in, FileType};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{kind, open_dir, open_read, remove, replace, replace_in, FileType};

/// What a file that is not a regular one is, for a message ("a FIFO (named pipe)"): the
/// one wording the tools, `@` mentions and session files use (`safe_file`'s).
pub use crate::safe_file::kind_name;

/// A path's directory and last name (`safe_file`'s).
pub use crate::safe_file::split;
