//! Opening session files, safely: never through a symbolic link (`O_NOFOLLOW`), never
//! blocking on a FIFO (`O_NONBLOCK`), and only a regular file, checked on the descriptor
//! opened (`fstat`), so what was checked is what is read or written. A file being recorded
//! has one writer: an advisory lock (`flock(LOCK_EX | LOCK_NB)`) taken on opening it for
//! appending and held until the process ends; a second elelem is refused (`InUse`).
//! Reading is bounded: `READ_LIMIT` bytes of a session at most.
//!
//! Those are the Unix ways (`open/unix.rs`). On Windows (`open/windows.rs`) a link is
//! opened itself (`FILE_FLAG_OPEN_REPARSE_POINT`) and refused as no regular file, and the
//! one writer is the one handle open for writing: it shares the file for reading only, so a
//! second elelem's open for appending fails (a sharing violation, `InUse`) while listing
//! and reading sessions still work.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

use crate::data_dir::create_private_dir;
use os::{lock, private, read_only_fs, refused};
use std::fs::File;
use std::io;
use std::path::Path;

/// The most of a session file elelem reads: a longer file is listed as far as this and
/// not resumed.
pub const READ_LIMIT: u64 = 256 << 20;

/// Opens `path` for reading: a regular file, not through a link.
pub fn read(path: &Path) -> io::Result<File> {
    let file = os::options(false).read(true).open(path);
    regular(path, file.map_err(|e| refused(path, e))?)
}

/// A session opened to be resumed.
#[derive(Debug)]
pub struct Resume {
    pub file: File,
    /// Why nothing can be appended to it (a full disk, a file-size limit, a read-only file
    /// system): the session is resumed from what the file holds but not recorded into.
    /// `None`: it can be recorded into.
    pub unwritable: Option<io::Error>,
}

/// Opens an existing session for reading it back and appending to it, locked for this
/// process (tightened to 0600 if it was more open). A last line cut short (a crash, a full
/// disk) is ended, so the next record starts a line of its own instead of joining it. When
/// that cannot be written (the disk is still full) or the file system is read-only, the
/// file is still given, to be read back, with the reason it cannot be recorded into.
pub fn resume(path: &Path) -> io::Result<Resume> {
    let open = |append: bool| os::options(append).read(true).append(append).open(path);
    let (file, unwritable) = match open(true) {
        Ok(file) => (Ok(file), None),
        Err(error) if read_only_fs(&error) => (open(false), Some(error)),
        Err(error) => (Err(error), None),
    };
    let file = regular(path, file.map_err(|e| refused(path, e))?)?;
    lock(path, &file)?;
    if unwritable.is_some() {
        return Ok(Resume { file, unwritable });
    }
    let prepared = private(&file).and_then(|len| end_line(&file, len));
    Ok(Resume { file, unwritable: prepared.err() })
}

/// Appends a newline when the file's last byte is not one.
fn end_line(mut file: &File, len: u64) -> io::Result<()> {
    use std::io::Write as _;
    let Some(last) = len.checked_sub(1) else { return Ok(()) };
    if os::byte_at(file, last)? != b'\n' {
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// Creates a new session file (mode 0600, in a 0700 directory), failing if anything —
/// a file or a link — already has its name; locked for this process.
pub fn create(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    let file = os::options(true).append(true).create_new(true).open(path)?;
    lock(path, &file)?;
    Ok(file)
}

/// `file` if it is a regular file, else an error naming what it is.
fn regular(path: &Path, file: File) -> io::Result<File> {
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {}, not a regular file", path.display(), crate::paths::no_follow::kind_name(kind)),
    ))
}

/// Another process records into this session.
#[derive(Debug)]
pub struct InUse;

impl std::fmt::Display for InUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("another elelem is recording this session")
    }
}

impl std::error::Error for InUse {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_devices_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        std::fs::write(&real, "{}\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let fifo = dir.path().join("fifo.jsonl");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(read(&real).is_ok());
        for path in [&link, &fifo, Path::new("/dev/zero")] {
            let error = read(path).unwrap_err().to_string();
            assert!(error.contains("symbolic link") || error.contains("not a regular file"), "{error}");
            assert!(resume(path).is_err());
        }
        assert!(create(&link).is_err(), "a new session never goes through a link");
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "{}\n");
    }

    #[test]
    fn a_session_has_one_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let first = create(&path).unwrap();
        let error = resume(&path).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        assert!(error.get_ref().is_some_and(|e| e.is::<InUse>()));
        drop(first);
        assert!(resume(&path).is_ok(), "the lock goes with the file");
    }

    #[test]
    fn a_line_cut_short_is_ended_before_anything_is_appended() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"type\":\"prompt\"}\n{\"type\":\"say").unwrap();
        resume(&path).unwrap().file.write_all(b"{}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"type\":\"prompt\"}\n{\"type\":\"say\n{}\n");
        resume(&path).unwrap().file.write_all(b"{}\n").unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("say\n{}\n{}\n"), "a whole last line is left");
        std::fs::write(&path, "").unwrap();
        resume(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }
}
