//! The files the tools open: regular files only, never more than a cap in memory.
//!
//! A FIFO blocks forever on open or read, a device such as `/dev/zero` never ends and a
//! socket cannot be read, so each is refused by its metadata before anything opens it; a
//! file is then opened without blocking and checked again (it may have been swapped in
//! between). Whole-file reads stop one byte past their cap. The tools open the path the
//! toolbox resolved for the call (`open_real`: symlinks were followed when it was resolved
//! and checked, none is followed after).

use std::fs::{File, Metadata};
use std::io::Read;
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Bytes of a file held in memory at most to edit it or diff it.
pub const TEXT_CAP: usize = 32 * 1024 * 1024;

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
    (!kind.is_file()).then(|| crate::paths::no_follow::kind_name(kind))
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
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = options.read(true).open(path).map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    check_regular(path, &meta)?;
    Ok((file, meta))
}

/// Opens the regular file at `real` — a path resolved for the call (`ToolContext::path`),
/// the one the permissions gate checked — without following any symlink on the way
/// (`no_follow`), never blocking; errors name the path as the model gave it (`shown`).
pub fn open_real(shown: &Path, real: &Path) -> Result<(File, Metadata), FileError> {
    let file = crate::paths::no_follow::open_read(real).map_err(|e| FileError::io(shown, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(shown, e))?;
    check_regular(shown, &meta)?;
    Ok((file, meta))
}

/// The whole of a regular file, refused when it is bigger than `cap` (at most `cap + 1`
/// bytes are ever read).
pub fn read_capped(path: &Path, cap: usize) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open(path)?;
    read_opened(path, file, &meta, cap)
}

/// `read_capped` of a resolved path, opened as `open_real` opens it.
pub fn read_capped_real(shown: &Path, real: &Path, cap: usize) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open_real(shown, real)?;
    read_opened(shown, file, &meta, cap)
}

fn read_opened(path: &Path, file: File, meta: &Metadata, cap: usize) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(cap).min(cap) + 1);
    file.take(cap as u64 + 1).read_to_end(&mut bytes).map_err(|e| FileError::io(path, e))?;
    if bytes.len() > cap {
        let size = meta.len().max(bytes.len() as u64);
        return Err(FileError::TooLarge { path: path.display().to_string(), size, cap });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
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

    #[cfg(unix)]
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
}
