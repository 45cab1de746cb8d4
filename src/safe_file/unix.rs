//! `safe_file` on Unix: every open relative to a directory opened one component at a time
//! from `/` with `O_NOFOLLOW`, reads with `O_NONBLOCK | O_NOCTTY` (see the module doc).

use super::{kind_name, refused, split};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawMode, CWD};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

/// How a directory on the way is opened: only to look names up in it.
#[cfg(any(target_os = "linux", target_os = "android"))]
const LOOKUP: OFlags = OFlags::PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const LOOKUP: OFlags = OFlags::RDONLY;

/// How a file is opened for reading: never waiting, never becoming a controlling terminal.
const READ: OFlags = OFlags::RDONLY.union(OFlags::NONBLOCK).union(OFlags::NOCTTY).union(OFlags::CLOEXEC);

/// `path` opened for reading, links followed (the user's own files).
pub(super) fn open_read(path: &Path) -> io::Result<File> {
    Ok(File::from(rustix::fs::open(path, READ, Mode::empty())?))
}

/// `real` (canonical) opened for reading without following a link anywhere in it.
pub(super) fn open_real(real: &Path) -> io::Result<File> {
    let (dir, name) = split(real)?;
    Ok(File::from(rustix::fs::openat(open_dir(dir)?, name, READ | OFlags::NOFOLLOW, Mode::empty())?))
}

/// Makes `path` a new file holding `bytes`, with permissions `mode`. Anything already
/// there is an error: `AlreadyExists` for a regular file, another error naming what it is
/// (a link is never followed, a FIFO never opened). The directory must exist.
pub fn create_new(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let (dir, name) = parent(path)?;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(&dir, name, flags | OFlags::NOCTTY, Mode::from_raw_mode(mode as RawMode)) {
        Ok(fd) => fd,
        Err(Errno::EXIST) => return Err(already_there(&dir, name)),
        Err(e) => return Err(e.into()),
    };
    let mut file = File::from(fd);
    let written = file.set_permissions(std::fs::Permissions::from_mode(mode)).and_then(|()| file.write_all(bytes));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&dir, name, AtFlags::empty());
    }
    written
}

/// Writes `bytes` to `path` (permissions `mode`) through a temporary file in the same
/// directory renamed over the name: a regular file there is replaced, nothing there is
/// created; a link, a FIFO, a directory or a device there is refused, never written
/// through. The directory must exist.
pub fn replace(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (dir, name) = parent(path)?;
    match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
        Ok(stat) => return Err(not_regular(FileType::from_raw_mode(stat.st_mode))),
        Err(Errno::NOENT) => {}
        Err(e) => return Err(e.into()),
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = format!(".{}.elelem-{}-{n}.tmp", name.to_string_lossy(), std::process::id());
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut file = File::from(rustix::fs::openat(&dir, temp.as_str(), flags, Mode::from_raw_mode(mode as RawMode))?);
    let written = file
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| rustix::fs::renameat(&dir, temp.as_str(), &dir, name).map_err(Into::into));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&dir, temp.as_str(), AtFlags::empty());
    }
    written
}

/// `path` opened for appending, created with permissions `mode` when missing (an existing
/// file more open than `mode` is tightened to it): a regular file only, the last name not
/// followed, the open never waiting on a FIFO.
pub fn open_append(path: &Path, mode: u32) -> io::Result<File> {
    let flags = OFlags::WRONLY
        | OFlags::APPEND
        | OFlags::CREATE
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::NOCTTY
        | OFlags::CLOEXEC;
    let file = File::from(rustix::fs::open(path, flags, Mode::from_raw_mode(mode as RawMode))?);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(format!("not a regular file ({})", kind_name(meta.file_type()))));
    }
    if meta.permissions().mode() & 0o777 & !mode != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    Ok(file)
}

/// What a special file is, for `kind_name`.
pub(super) fn special_kind_name(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

/// `kind_name` for a type `stat` gave.
fn raw_kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Symlink => "a symbolic link",
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "a special file",
    }
}

fn not_regular(kind: FileType) -> io::Error {
    refused(format!("it is {}, not a regular file", raw_kind_name(kind)))
}

/// The error for a name `O_EXCL` found taken: `AlreadyExists` for a regular file.
fn already_there(dir: &OwnedFd, name: &OsStr) -> io::Error {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {
            io::Error::new(io::ErrorKind::AlreadyExists, "it already exists")
        }
        Ok(stat) => not_regular(FileType::from_raw_mode(stat.st_mode)),
        Err(e) => e.into(),
    }
}

/// `path`'s directory (its canonical path, opened with `open_dir`) and last name.
fn parent(path: &Path) -> io::Result<(OwnedFd, &OsStr)> {
    let (dir, name) = split(path)?;
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    Ok((open_dir(&std::fs::canonicalize(dir)?)?, name))
}

/// The directory `dir` (absolute, canonical) opened without following a symlink anywhere
/// in it: one component at a time from `/`, each with `O_NOFOLLOW`.
fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let flags = LOOKUP | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = rustix::fs::openat(CWD, "/", flags, Mode::empty())?;
    for component in dir.components() {
        let name = match component {
            Component::RootDir => continue,
            Component::Normal(name) => name,
            _ => return Err(refused(format!("{} is not a resolved path", dir.display()))),
        };
        fd = rustix::fs::openat(&fd, name, flags, Mode::empty()).map_err(|e| match e {
            Errno::LOOP | Errno::NOTDIR => refused(format!("{} changed into a symlink; not followed", dir.display())),
            e => e.into(),
        })?;
        // O_PATH with O_NOFOLLOW may open a symlink itself rather than fail: check.
        if FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode) != FileType::Directory {
            return Err(refused(format!("{} changed into a symlink; not followed", dir.display())));
        }
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::super::{read_text, Reading};
    use super::*;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    fn temp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        (dir, real)
    }

    fn mkfifo(path: &Path) {
        let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo(3) reads the NUL-terminated path given.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "{}", std::io::Error::last_os_error());
    }

    #[test]
    fn only_a_regular_file_within_the_cap_is_read_and_a_fifo_or_device_is_refused_at_once() {
        let (_dir, root) = temp();
        std::fs::write(root.join("small"), "hello").unwrap();
        std::fs::write(root.join("big"), "x".repeat(100)).unwrap();
        mkfifo(&root.join("fifo"));
        symlink("/dev/zero", root.join("zero")).unwrap();
        assert_eq!(read_text(&root.join("small"), 64).unwrap(), "hello");
        assert_eq!(read_text(&root.join("missing"), 64).unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(read_text(&root.join("big"), 64).unwrap_err().to_string().contains("larger than 64 bytes"));
        let start = Instant::now();
        let fifo = read_text(&root.join("fifo"), 64).unwrap_err().to_string();
        let zero = read_text(&root.join("zero"), 64).unwrap_err().to_string();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(fifo, "not a regular file (a FIFO (named pipe))");
        assert_eq!(zero, "not a regular file (a character device)");
        assert_eq!(Reading::capped(3).tail(&root.join("small")).unwrap(), b"llo");
    }

    #[test]
    fn a_repositorys_file_may_not_lead_out_of_its_root_or_into_a_denied_directory() {
        let (_dir, base) = temp();
        let (project, outside) = (base.join("project"), base.join("outside"));
        std::fs::create_dir_all(project.join("secrets")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("id_rsa"), "KEY").unwrap();
        std::fs::write(project.join("secrets/token"), "TOKEN").unwrap();
        std::fs::write(project.join("real.md"), "fine").unwrap();
        symlink(outside.join("id_rsa"), project.join("out.md")).unwrap();
        symlink(project.join("real.md"), project.join("in.md")).unwrap();
        symlink(project.join("secrets/token"), project.join("denied.md")).unwrap();
        symlink(&outside, project.join("dir")).unwrap();
        let deny = [project.join("secrets")];
        let reading = Reading::capped(64).within(&project).denying(&deny);
        assert_eq!(reading.text(&project.join("in.md")).unwrap(), "fine", "a link inside the project is fine");
        for name in ["out.md", "dir/id_rsa"] {
            let error = reading.text(&project.join(name)).unwrap_err().to_string();
            assert!(error.contains("a link out of the project is not followed"), "{name}: {error}");
        }
        let error = reading.text(&project.join("denied.md")).unwrap_err().to_string();
        assert!(error.contains("which a paths rule denies"), "{error}");
        // The user's own file: links followed anywhere, paths.deny still holds.
        assert_eq!(Reading::capped(64).text(&project.join("out.md")).unwrap(), "KEY");
        assert!(Reading::capped(64).denying(&deny).text(&project.join("denied.md")).is_err());
    }

    #[test]
    fn writes_never_go_through_a_link_nor_wait_on_a_fifo() {
        let (_dir, root) = temp();
        std::fs::write(root.join("target"), "precious").unwrap();
        symlink(root.join("target"), root.join("link")).unwrap();
        mkfifo(&root.join("fifo"));
        std::fs::write(root.join("old"), "old").unwrap();
        let start = Instant::now();
        for name in ["link", "fifo"] {
            let new = create_new(&root.join(name), b"x", 0o600).unwrap_err();
            assert_ne!(new.kind(), io::ErrorKind::AlreadyExists, "{name}");
            let replaced = replace(&root.join(name), b"x", 0o600).unwrap_err().to_string();
            assert!(replaced.contains("not a regular file"), "{name}: {replaced}");
            assert!(open_append(&root.join(name), 0o600).is_err(), "{name}");
        }
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(std::fs::read_to_string(root.join("target")).unwrap(), "precious");
        assert_eq!(create_new(&root.join("old"), b"x", 0o600).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        replace(&root.join("old"), b"new", 0o600).unwrap();
        create_new(&root.join("fresh"), b"fresh", 0o600).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("old")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(root.join("fresh")).unwrap(), "fresh");
        let mode = std::fs::metadata(root.join("old")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 5, "no temporary file left");
    }
}
