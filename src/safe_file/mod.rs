//! Opening the files elelem reads or writes by name — its settings (`tui.json`,
//! `prices.json`, `hooks.json`, `mcp.json`, `permissions.json`, the trust store, the prompt
//! history), the instructions, commands and skills whose text reaches the model, and
//! `/export`'s file — the one careful way (issue 37), a leaf importing nothing of elelem.
//!
//! Reading: the file is opened with `O_NONBLOCK | O_NOCTTY`, so a FIFO or a terminal cannot
//! make the open wait, then `fstat` on that descriptor: only a regular file is read (a FIFO,
//! a device such as `/dev/zero`, a directory are refused at once, by kind), and at most a
//! cap of bytes. A file a repository supplies is also held to where it may lead
//! (`Reading::within`: its canonical path must stay under the project's root) and to the
//! directories no file may come from (`Reading::denying`, `paths.deny`); such a file is then
//! opened at its canonical path one directory at a time from `/` with `O_NOFOLLOW`, so a
//! link swapped in after the check fails the open instead of leading elsewhere.
//!
//! Writing never goes through a link and never waits on a FIFO: `create_new` makes a file
//! that was not there (`O_CREAT | O_EXCL`, which never follows a link), `replace` writes a
//! temporary file next to it and renames it over a regular file (anything else there is
//! refused), `open_append` appends to a regular file only.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(unix)]
pub use unix::{create_new, open_append, replace};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;
#[cfg(windows)]
pub use windows::{create_new, open_append, replace};

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

/// How one file is read: at most `cap` bytes, and for a repository's file, where it may
/// lead. Errors never name the file (callers do); a missing file is `NotFound`.
#[derive(Clone, Copy, Debug)]
pub struct Reading<'a> {
    cap: u64,
    within: Option<&'a Path>,
    deny: &'a [PathBuf],
}

impl<'a> Reading<'a> {
    /// A regular file of at most `cap` bytes, symlinks followed (the user's own files).
    pub fn capped(cap: u64) -> Self {
        Reading { cap, within: None, deny: &[] }
    }

    /// The file, links followed, must stay under `root` (a repository's file: a link out of
    /// the project is refused).
    pub fn within(self, root: &'a Path) -> Self {
        Reading { within: Some(root), ..self }
    }

    /// The file, links followed, must not be under any of `dirs` (canonical paths, as
    /// `paths.deny` holds them).
    pub fn denying(self, dirs: &'a [PathBuf]) -> Self {
        Reading { deny: dirs, ..self }
    }

    /// The file opened for reading after every check but the size: a regular file, where
    /// it may be. Reads from it never block.
    pub fn open(&self, path: &Path) -> io::Result<File> {
        let file = if self.within.is_none() && self.deny.is_empty() {
            imp::open_read(path)?
        } else {
            let real = std::fs::canonicalize(path)?;
            if let Some(root) = self.within {
                let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
                if !real.starts_with(&root) {
                    return Err(refused(format!(
                        "it leads to {}, outside {}; a link out of the project is not followed",
                        real.display(),
                        root.display()
                    )));
                }
            }
            if let Some(dir) = self.deny.iter().find(|dir| real.starts_with(dir)) {
                return Err(refused(format!(
                    "it leads to {}, under {}, which a paths rule denies",
                    real.display(),
                    dir.display()
                )));
            }
            imp::open_real(&real)?
        };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(refused(format!("not a regular file ({})", kind_name(meta.file_type()))));
        }
        Ok(file)
    }

    /// The whole file; more than the cap is an error.
    pub fn bytes(&self, path: &Path) -> io::Result<Vec<u8>> {
        let file = self.open(path)?;
        let too_large = || refused(format!("larger than {} bytes", self.cap));
        if file.metadata()?.len() > self.cap {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(self.cap + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.cap {
            return Err(too_large());
        }
        Ok(bytes)
    }

    /// The whole file as UTF-8 text.
    pub fn text(&self, path: &Path) -> io::Result<String> {
        String::from_utf8(self.bytes(path)?).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
    }

    /// The file's last `cap` bytes at most (a log read from its end).
    pub fn tail(&self, path: &Path) -> io::Result<Vec<u8>> {
        let mut file = self.open(path)?;
        let len = file.metadata()?.len();
        if len > self.cap {
            file.seek(SeekFrom::Start(len - self.cap))?;
        }
        let mut bytes = Vec::new();
        file.take(self.cap).read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

/// A user's settings file as text: regular, at most `cap` bytes, links followed.
pub fn read_text(path: &Path, cap: u64) -> io::Result<String> {
    Reading::capped(cap).text(path)
}

/// What a file that is not a regular one is, for a message ("a FIFO (named pipe)").
pub fn kind_name(kind: std::fs::FileType) -> &'static str {
    if kind.is_file() {
        "a regular file"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        imp::special_kind_name(kind)
    }
}

fn refused(message: String) -> io::Error {
    io::Error::other(message)
}

/// A path's directory and last name.
pub fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(refused(format!("{} names no file", path.display()))),
    }
}
