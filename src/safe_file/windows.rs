//! `safe_file` on Windows: opens by path, the last name never followed
//! (`FILE_FLAG_OPEN_REPARSE_POINT`: a link is opened itself, then refused as no regular
//! file). Permission modes have no meaning here and are not applied.

use super::{kind_name, refused, split};
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::windows::fs::OpenOptionsExt as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Opens a link (a reparse point) itself instead of what it points to.
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// `path` opened for reading, links followed (the user's own files).
pub(super) fn open_read(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// `real` (canonical) opened for reading, a link there not followed.
pub(super) fn open_real(real: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(real)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(not_regular(kind));
    }
    Ok(file)
}

/// Makes `path` a new file holding `bytes`; anything already there is an error
/// (`AlreadyExists` for a regular file). `_mode` is not applied on Windows.
pub fn create_new(path: &Path, bytes: &[u8], _mode: u32) -> io::Result<()> {
    let mut file = match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(already_there(path)),
        Err(e) => return Err(e),
    };
    let written = file.write_all(bytes);
    if written.is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
    }
    written
}

/// Writes `bytes` to `path` through a temporary file in the same directory renamed over
/// the name: a regular file there is replaced, nothing there is created, anything else is
/// refused.
pub fn replace(path: &Path, bytes: &[u8], _mode: u32) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (dir, name) = split(path)?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) => return Err(not_regular(meta.file_type())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{}.elelem-{}-{n}.tmp", name.to_string_lossy(), std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
    let written = file.write_all(bytes).and_then(|()| {
        drop(file);
        std::fs::rename(&temp, path)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// `path` opened for appending, created when missing: a regular file only, a link there
/// not followed. `_mode` is not applied on Windows.
pub fn open_append(path: &Path, _mode: u32) -> io::Result<File> {
    let file = OpenOptions::new().append(true).create(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(refused(format!("not a regular file ({})", kind_name(kind))));
    }
    Ok(file)
}

/// What a special file is, for `kind_name`: no kinds told apart on Windows.
pub(super) fn special_kind_name(_kind: std::fs::FileType) -> &'static str {
    "a special file"
}

fn not_regular(kind: std::fs::FileType) -> io::Error {
    refused(format!("it is {}, not a regular file", kind_name(kind)))
}

/// The error for a name `create_new` found taken: `AlreadyExists` for a regular file.
fn already_there(path: &Path) -> io::Error {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => io::Error::new(io::ErrorKind::AlreadyExists, "it already exists"),
        Ok(meta) => not_regular(meta.file_type()),
        Err(e) => e,
    }
}
