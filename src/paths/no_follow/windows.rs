//! `no_follow` on Windows: each directory on the way looked at without following
//! (`symlink_metadata`), the file opened by path with `FILE_FLAG_OPEN_REPARSE_POINT` (a
//! link opened itself, then refused).

use super::split;
use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::windows::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Opens a link (a reparse point) itself instead of what it points to.
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// What `kind` finds at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    RegularFile,
    Symlink,
    Directory,
    Other,
}

impl FileType {
    fn of(kind: std::fs::FileType) -> FileType {
        if kind.is_symlink() {
            FileType::Symlink
        } else if kind.is_file() {
            FileType::RegularFile
        } else if kind.is_dir() {
            FileType::Directory
        } else {
            FileType::Other
        }
    }
}

/// A directory `open_dir` checked: its path.
pub struct Dir(PathBuf);

/// The directory `dir` (absolute), checked to hold no symlink on the way; with `create`,
/// missing directories are made.
pub fn open_dir(dir: &Path, create: bool) -> std::io::Result<Dir> {
    let mut walked = PathBuf::new();
    for component in dir.components() {
        walked.push(component);
        if walked.parent().is_none() {
            continue; // the prefix (`C:`, `\\?\C:`) and the root
        }
        let meta = match std::fs::symlink_metadata(&walked) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                match std::fs::create_dir(&walked) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => {}
                }
                std::fs::symlink_metadata(&walked)?
            }
            other => other?,
        };
        if meta.file_type().is_symlink() {
            return Err(link_error(&walked));
        }
        if !meta.is_dir() {
            return Err(std::io::Error::other(format!("{} is not a directory", walked.display())));
        }
    }
    Ok(Dir(walked))
}

/// Opens the file at `real` for reading, no symlink followed.
pub fn open_read(real: &Path) -> std::io::Result<File> {
    let (dir, name) = split(real)?;
    let dir = open_dir(dir, false)?;
    let file = OpenOptions::new().read(true).custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(dir.0.join(name))?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(link_error(real));
    }
    Ok(file)
}

/// What is at `real` now, the last component not followed: `None` when nothing is.
pub fn kind(real: &Path) -> std::io::Result<Option<FileType>> {
    match std::fs::symlink_metadata(real) {
        Ok(meta) => Ok(Some(FileType::of(meta.file_type()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces the file at `real` with `bytes`: a temporary file in the same directory
/// (missing directories made), then a rename over the name. A symlink there is replaced,
/// not followed; anything else but a regular file is refused. A file's attributes are not
/// kept.
pub fn replace(real: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (dir, name) = split(real)?;
    replace_in(&open_dir(dir, true)?, name, real, bytes)
}

/// `replace` of `name` in a directory already checked with `open_dir` (`real`, for
/// messages).
pub fn replace_in(dir: &Dir, name: &OsStr, real: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let target = dir.0.join(name);
    match std::fs::symlink_metadata(&target) {
        Ok(meta) if !matches!(FileType::of(meta.file_type()), FileType::RegularFile | FileType::Symlink) => {
            return Err(std::io::Error::other(format!("{} is not a regular file", real.display())));
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.0.join(format!(".{}.elelem-{}-{n}.tmp", name.to_string_lossy(), std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
    // A rename over a link replaces the link, not what it points to.
    let written = file.write_all(bytes).and_then(|()| {
        drop(file);
        std::fs::rename(&temp, &target)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Removes the file (or link) at `real` without following a symlink on the way.
pub fn remove(real: &Path) -> std::io::Result<()> {
    let (dir, name) = split(real)?;
    std::fs::remove_file(open_dir(dir, false)?.0.join(name))
}

fn link_error(path: &Path) -> std::io::Error {
    std::io::Error::other(format!(
        "{} is a symlink that was not there when the path was checked; not followed",
        path.display()
    ))
}
