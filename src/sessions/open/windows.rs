//! Session files on Windows: a link opened itself (then refused), the file shared for
//! reading only while open for writing, so a second writer fails (`InUse`).

use super::InUse;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt as _;
use std::path::Path;

/// Opens a link (a reparse point) itself instead of what it points to.
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
/// Others may read the file while it is open (`FILE_SHARE_READ`).
const FILE_SHARE_READ: u32 = 0x1;
/// Others may read, write and delete it (`FILE_SHARE_READ | WRITE | DELETE`, std's default).
const FILE_SHARE_ALL: u32 = 0x7;
/// `ERROR_SHARING_VIOLATION`: another handle's sharing forbids this open.
const ERROR_SHARING_VIOLATION: i32 = 32;

/// How a session file is opened: a link itself, not what it points to; for writing,
/// shared for reading only (the one-writer lock).
pub(super) fn options(write: bool) -> OpenOptions {
    let mut options = OpenOptions::new();
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).share_mode(if write { FILE_SHARE_READ } else { FILE_SHARE_ALL });
    options
}

/// No read-only file system error told apart on Windows.
pub(super) fn read_only_fs(_error: &io::Error) -> bool {
    false
}

/// The byte of `file` at `at`.
pub(super) fn byte_at(file: &File, at: u64) -> io::Result<u8> {
    use std::os::windows::fs::FileExt as _;
    let mut byte = [0u8];
    match file.seek_read(&mut byte, at)? {
        1 => Ok(byte[0]),
        _ => Err(io::ErrorKind::UnexpectedEof.into()),
    }
}

/// The file's length (no modes to tighten on Windows).
pub(super) fn private(file: &File) -> io::Result<u64> {
    Ok(file.metadata()?.len())
}

/// An open refused because another elelem holds the file for writing is `InUse`.
pub(super) fn refused(_path: &Path, error: io::Error) -> io::Error {
    if error.raw_os_error() == Some(ERROR_SHARING_VIOLATION) {
        return io::Error::new(io::ErrorKind::WouldBlock, InUse);
    }
    error
}

/// The lock is the sharing the file was opened with (`options`): nothing more to take.
pub(super) fn lock(_path: &Path, _file: &File) -> io::Result<()> {
    Ok(())
}
