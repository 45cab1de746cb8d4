//! The files the tools open: regular files only, never more than a cap in memory.
//!
//! A FIFO blocks forever on open or read, a device such as `/dev/zero` never ends and a
//! socket cannot be read, so each is refused by its metadata before anything opens it; a
//! file is then opened without blocking and checked again (it may have been swapped in
//! between). Whole-file reads stop one byte past their cap. Writes go through symlinks to
//! the file they point to (`target`).

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bytes of a file held in memory at most to edit it or diff it.
pub const TEXT_CAP: usize = 32 * 1024 * 1024;
/// Symlinks followed at most when resolving a write target (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Why a file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path} is {kind}, not a regular file; the tools only read and write regular files")]
    NotRegular { path: String, kind: &'static str },
    #[error("{path} is too large ({size} bytes; at most {cap} bytes are loaded)")]
    TooLarge { path: String, size: u64, cap: usize },
}

impl FileError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        FileError::Io { path: path.display().to_string(), source }
    }
}

/// What a path holds when it is not a regular file (`None` for a regular file).
pub fn irregular_kind(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    Some(if kind.is_file() {
        return None;
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    })
}

/// `Ok` when `meta` is a regular file's.
pub fn check_regular(path: &Path, meta: &Metadata) -> Result<(), FileError> {
    match irregular_kind(meta) {
        None => Ok(()),
        Some(kind) => Err(FileError::NotRegular { path: path.display().to_string(), kind }),
    }
}

/// Opens a regular file for reading without ever blocking on a FIFO or touching a device.
pub fn open(path: &Path) -> Result<(File, Metadata), FileError> {
    let meta = std::fs::metadata(path).map_err(|e| FileError::io(path, e))?;
    check_regular(path, &meta)?;
    open_listed(path)
}

/// Opens a path that a directory listing just reported as a regular file (saving `open`'s
/// first look), still without blocking, and checks what was opened.
pub fn open_listed(path: &Path) -> Result<(File, Metadata), FileError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    check_regular(path, &meta)?;
    Ok((file, meta))
}

/// The whole of a regular file, refused when it is bigger than `cap` (at most `cap + 1`
/// bytes are ever read).
pub fn read_capped(path: &Path, cap: usize) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(cap).min(cap) + 1);
    file.take(cap as u64 + 1).read_to_end(&mut bytes).map_err(|e| FileError::io(path, e))?;
    if bytes.len() > cap {
        let size = meta.len().max(bytes.len() as u64);
        return Err(FileError::TooLarge { path: path.display().to_string(), size, cap });
    }
    Ok(bytes)
}

/// The file a write to `path` lands on: symlinks followed (even a dangling one, whose
/// target the write creates), so writing through a link updates what it points to.
pub fn target(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!("too many levels of symbolic links at {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = read_capped(&fifo, 10).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "pipe is a FIFO (named pipe), not a regular file; the tools only read and write regular files"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_device_is_refused() {
        let error = read_capped(Path::new("/dev/zero"), 10).unwrap_err().to_string();
        assert_eq!(
            error,
            "/dev/zero is a character device, not a regular file; the tools only read and write regular files"
        );
    }

    #[test]
    fn a_file_over_the_cap_is_refused_after_reading_one_byte_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_capped(&path, 10).unwrap(), b"0123456789");
        let error = read_capped(&path, 9).unwrap_err().to_string();
        assert!(error.ends_with("f is too large (10 bytes; at most 9 bytes are loaded)"), "{error}");
    }

    #[test]
    fn a_link_chain_resolves_to_its_last_target_even_when_dangling() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("sub/c", dir.path().join("b")).unwrap();
        assert_eq!(target(&dir.path().join("a")).unwrap(), dir.path().join("sub/c"));
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        assert!(target(&dir.path().join("loop")).is_err());
    }
}
