//! Where elelem keeps the user's data: `$XDG_DATA_HOME/elelem` (default
//! `~/.local/share/elelem`), and how it writes there — directories 0700, files 0600, so
//! sessions, history and settings are readable by the user alone. (On Windows, where
//! there are no modes, they keep what the user's profile folder gives.)

use std::fs::{File, OpenOptions};
use std::io;
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `$XDG_DATA_HOME/elelem`, or `~/.local/share/elelem`; `None` without either variable.
pub fn data_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".local/share"),
    };
    Some(base.join("elelem"))
}

/// On Windows, where `HOME` is usually unset, sets it to `USERPROFILE` (the user's
/// folder), so elelem's files (`~/.agents`, the data directory) are found as elsewhere and
/// Git Bash's commands see the same home. Nothing on Unix. Call it before any thread starts.
#[cfg(windows)]
pub fn default_home() {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let (None, Some(profile)) = (set("HOME"), set("USERPROFILE")) {
        std::env::set_var("HOME", profile);
    }
}

/// Nothing to do on Unix: `HOME` is the home.
#[cfg(unix)]
pub fn default_home() {}

/// Creates `dir` (and its parents) readable by the user alone.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    builder.mode(0o700);
    builder.recursive(true).create(dir)
}

/// Opens `path` for appending, creating it with mode 0600 (and tightening an existing file
/// that is more open): a regular file only, its last name never followed (a link is an
/// error), the open never waiting on a FIFO.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY).mode(0o600);
    let file = options.create(true).append(true).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other(format!("{} is not a regular file", path.display())));
    }
    #[cfg(unix)]
    if meta.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}
