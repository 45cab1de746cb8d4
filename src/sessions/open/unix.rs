//! Session files on Unix: `O_NOFOLLOW | O_NONBLOCK`, mode 0600, `flock`.

use super::InUse;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// How a session file is opened: never through a link, never waiting, created 0600.
pub(super) fn options(_write: bool) -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    options
}

/// Whether an open for writing failed on a read-only file system.
pub(super) fn read_only_fs(error: &io::Error) -> bool {
    error.raw_os_error() == Some(libc::EROFS)
}

/// The byte of `file` at `at`.
pub(super) fn byte_at(file: &File, at: u64) -> io::Result<u8> {
    use std::os::unix::fs::FileExt as _;
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, at)?;
    Ok(byte[0])
}

/// Makes `file` 0600 if it was more open; its length.
pub(super) fn private(file: &File) -> io::Result<u64> {
    let meta = file.metadata()?;
    if meta.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(meta.len())
}

/// The error of opening a link with `O_NOFOLLOW` (ELOOP) said plainly.
pub(super) fn refused(path: &Path, error: io::Error) -> io::Error {
    if error.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is a symbolic link; session files are never opened through one", path.display()),
        );
    }
    error
}

/// Takes the one-writer lock, or fails with `InUse` when another process holds it. A file
/// system without `flock` is recorded unlocked.
pub(super) fn lock(path: &Path, file: &File) -> io::Result<()> {
    // SAFETY: flock on a descriptor this function borrows; no memory is passed.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    if error.kind() == io::ErrorKind::WouldBlock {
        return Err(io::Error::new(io::ErrorKind::WouldBlock, InUse));
    }
    if matches!(error.raw_os_error(), Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::EINVAL)) {
        return Ok(());
    }
    Err(io::Error::new(error.kind(), format!("cannot lock {}: {error}", path.display())))
}
