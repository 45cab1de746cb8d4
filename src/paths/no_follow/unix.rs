//! `no_follow` on Unix: `openat` one component at a time with `O_NOFOLLOW`.

use super::split;
use rustix::fs::{AtFlags, Mode, OFlags, CWD};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::fs::File;
use std::io::Write as _;
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

/// What `kind` finds at a path.
pub use rustix::fs::FileType;

/// How a directory on the way is opened: only to look names up in it (no read permission
/// needed on Linux).
#[cfg(any(target_os = "linux", target_os = "android"))]
const LOOKUP: OFlags = OFlags::PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const LOOKUP: OFlags = OFlags::RDONLY;

/// The directory `dir` (absolute), opened without following a symlink anywhere in it;
/// with `create`, missing directories are made (`mkdirat`, which never follows either).
pub fn open_dir(dir: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let flags = LOOKUP | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = rustix::fs::openat(CWD, "/", flags, Mode::empty())?;
    let mut walked = std::path::PathBuf::from("/");
    for component in dir.components() {
        let name = match component {
            Component::RootDir => continue,
            Component::Normal(name) => name,
            _ => return Err(std::io::Error::other(format!("{} is not a resolved path", dir.display()))),
        };
        walked.push(name);
        let opened = match rustix::fs::openat(&fd, name, flags, Mode::empty()) {
            Err(Errno::NOENT) if create => match rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(Errno::EXIST) => rustix::fs::openat(&fd, name, flags, Mode::empty()),
                Err(e) => Err(e),
            },
            other => other,
        };
        fd = opened.map_err(|e| explain(&fd, name, &walked, e))?;
        // O_PATH with O_NOFOLLOW may open a symlink itself rather than fail: check.
        let stat = rustix::fs::fstat(&fd)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::Directory {
            return Err(explain(&fd, name, &walked, Errno::NOTDIR));
        }
    }
    Ok(fd)
}

/// Opens the file at `real` for reading: no symlink followed, never blocking on a FIFO,
/// never becoming a controlling terminal.
pub fn open_read(real: &Path) -> std::io::Result<File> {
    let (dir, name) = split(real)?;
    let dir = open_dir(dir, false)?;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&dir, name, flags, Mode::empty()).map_err(|e| explain(&dir, name, real, e))?;
    Ok(File::from(fd))
}

/// What is at `real` now, the last component not followed: `None` when nothing is.
pub fn kind(real: &Path) -> std::io::Result<Option<FileType>> {
    let (dir, name) = split(real)?;
    let dir = match open_dir(dir, false) {
        Ok(dir) => dir,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(rustix::fs::FileType::from_raw_mode(stat.st_mode))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Replaces the file at `real` with `bytes`: a temporary file in the same directory
/// (opened as above, missing directories made), then a rename over the name. A regular
/// file there keeps its permissions; a symlink there is replaced, not followed; anything
/// else (a directory, a FIFO, a device) is refused.
pub fn replace(real: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (dir, name) = split(real)?;
    replace_in(&open_dir(dir, true)?, name, real, bytes)
}

/// `replace` of `name` in a directory already opened with `open_dir` (`real`, for
/// messages).
pub fn replace_in(dir: &OwnedFd, name: &OsStr, real: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mode = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
            rustix::fs::FileType::RegularFile => Some(permission_bits(stat.st_mode)),
            rustix::fs::FileType::Symlink => None,
            _ => return Err(std::io::Error::other(format!("{} is not a regular file", real.display()))),
        },
        Err(Errno::NOENT) => None,
        Err(e) => return Err(e.into()),
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = format!(".{}.elelem-{}-{n}.tmp", name.to_string_lossy(), std::process::id());
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, temp.as_str(), flags, Mode::from_raw_mode(0o666))?;
    let mut file = File::from(fd);
    let written = file
        .write_all(bytes)
        .and_then(|()| match mode {
            Some(mode) => file.set_permissions(std::fs::Permissions::from_mode(mode)),
            None => Ok(()),
        })
        .and_then(|()| rustix::fs::renameat(dir, temp.as_str(), dir, name).map_err(Into::into));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
    }
    written
}

/// A file's permission bits (`st_mode` is a `u32` on Linux, a `u16` on macOS).
fn permission_bits(st_mode: impl Into<u32>) -> u32 {
    st_mode.into() & 0o7777
}

/// Removes the file (or link) at `real` without following a symlink on the way.
pub fn remove(real: &Path) -> std::io::Result<()> {
    let (dir, name) = split(real)?;
    let dir = open_dir(dir, false)?;
    rustix::fs::unlinkat(&dir, name, AtFlags::empty()).map_err(|e| explain(&dir, name, real, e))
}

/// The error for a failed open of `name` in `dir`: said plainly when a symlink is there.
fn explain(dir: &OwnedFd, name: &OsStr, path: &Path, error: Errno) -> std::io::Error {
    let link = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::Symlink);
    if link {
        return std::io::Error::other(format!(
            "{} is a symlink that was not there when the path was checked; not followed",
            path.display()
        ));
    }
    error.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;
    use std::os::unix::fs::symlink;

    fn temp() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        (dir, real)
    }

    #[test]
    fn a_symlink_anywhere_in_the_path_is_not_followed() {
        let (_dir, root) = temp();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("outside/secret"), "s").unwrap();
        symlink(root.join("outside"), root.join("sub")).unwrap();
        symlink(root.join("outside/secret"), root.join("file")).unwrap();
        for path in [root.join("sub/secret"), root.join("file")] {
            let error = open_read(&path).unwrap_err().to_string();
            assert!(error.contains("is a symlink that was not there when the path was checked"), "{error}");
        }
        let error = replace(&root.join("sub/secret"), b"x").unwrap_err().to_string();
        assert!(error.contains("sub is a symlink"), "{error}");
        assert_eq!(std::fs::read_to_string(root.join("outside/secret")).unwrap(), "s");
    }

    #[test]
    fn replacing_a_link_replaces_the_link_not_what_it_points_to() {
        let (_dir, root) = temp();
        std::fs::write(root.join("target"), "t").unwrap();
        symlink(root.join("target"), root.join("link")).unwrap();
        replace(&root.join("link"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("target")).unwrap(), "t");
        assert!(std::fs::symlink_metadata(root.join("link")).unwrap().is_file());
        let mut text = String::new();
        open_read(&root.join("link")).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "new");
    }

    #[test]
    fn a_write_makes_missing_directories_and_keeps_a_files_mode() {
        let (_dir, root) = temp();
        replace(&root.join("a/b/c.txt"), b"x").unwrap();
        assert_eq!(std::fs::read_to_string(root.join("a/b/c.txt")).unwrap(), "x");
        std::fs::set_permissions(root.join("a/b/c.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
        replace(&root.join("a/b/c.txt"), b"y").unwrap();
        let mode = std::fs::metadata(root.join("a/b/c.txt")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(std::fs::read_dir(root.join("a/b")).unwrap().count(), 1, "no temp file left");
    }
}
