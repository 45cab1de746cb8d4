//! Removing what a contained command left at a protected path (`watch.rs`), in a way the
//! command cannot defeat: no link is ever followed; each directory is given back its
//! owner's `rwx` before it is listed and emptied (a command may `chmod 0555` what it made,
//! and the user, its owner, may undo that); the tree is emptied depth first without holding
//! a descriptor per level, so a tree deeper than the descriptor limit goes too. Nothing of
//! the command runs any more when this runs (its PID namespace is gone), so the tree does
//! not change meanwhile and `..` leads back up the way it came.

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

/// How a directory of the tree is opened: to list it, never through a link.
const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// Gives the directory `name` in `dir` its owner's read, write and search rights, if it
/// lacks any. Directories only: `chmod` follows a link, so the entry is looked at first.
pub fn open_up(dir: impl AsFd, name: &OsStr) -> io::Result<()> {
    let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
    }
    let mode = stat.st_mode & 0o7777;
    if mode & 0o700 != 0o700 {
        rustix::fs::chmodat(&dir, name, Mode::from_raw_mode(mode | 0o700), AtFlags::empty())?;
    }
    Ok(())
}

/// One directory on the way down: its name in its parent, and its subdirectories still to
/// empty.
struct Level {
    name: OsString,
    pending: Vec<OsString>,
}

/// Removes the entry `name` of the directory `parent`, and when it is a directory
/// everything under it, without following any link.
pub fn remove(parent: &OwnedFd, name: &OsStr) -> io::Result<()> {
    let stat = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Ok(rustix::fs::unlinkat(parent, name, AtFlags::empty())?);
    }
    open_up(parent, name)?;
    let mut current = rustix::fs::openat(parent, name, DIR, Mode::empty())?;
    let mut levels = vec![Level { name: name.to_os_string(), pending: empty(&current)? }];
    while let Some(level) = levels.last_mut() {
        if let Some(child) = level.pending.pop() {
            open_up(&current, &child)?;
            current = rustix::fs::openat(&current, &child, DIR, Mode::empty())?;
            let pending = empty(&current)?;
            levels.push(Level { name: child, pending });
            continue;
        }
        let done = level.name.clone();
        levels.pop();
        if levels.is_empty() {
            break;
        }
        current = rustix::fs::openat(&current, c"..", DIR, Mode::empty())?;
        rustix::fs::unlinkat(&current, &done, AtFlags::REMOVEDIR)?;
    }
    drop(current);
    Ok(rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)?)
}

/// Removes the entries of `dir` that are not directories; the names of those that are.
fn empty(dir: &OwnedFd) -> io::Result<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name != "." && name != ".." {
            names.push((name.to_os_string(), entry.file_type()));
        }
    }
    let mut dirs = Vec::new();
    for (name, kind) in names {
        let kind = match kind {
            FileType::Unknown => {
                FileType::from_raw_mode(rustix::fs::statat(dir, &name, AtFlags::SYMLINK_NOFOLLOW)?.st_mode)
            }
            kind => kind,
        };
        if kind == FileType::Directory {
            dirs.push(name);
        } else {
            rustix::fs::unlinkat(dir, &name, AtFlags::empty())?;
        }
    }
    Ok(dirs)
}

// Planting a FIFO takes `mknodat`, which macOS lacks; the code is the same there.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn open(path: &std::path::Path) -> OwnedFd {
        rustix::fs::openat(rustix::fs::CWD, path, DIR, Mode::empty()).unwrap()
    }

    /// A tree the way a hostile command leaves it: directories without rights, links out
    /// of it (to a directory and a file, which stay), a FIFO; and one deeper than the
    /// descriptor limit.
    fn clears_a_hostile_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = root.join("outside");
        std::fs::create_dir_all(outside.join("keep")).unwrap();
        std::fs::write(outside.join("file"), "mine").unwrap();
        let planted = root.join("project/.agents");
        std::fs::create_dir_all(planted.join("locked/deeper")).unwrap();
        std::fs::write(planted.join("mcp.json"), "{}").unwrap();
        std::fs::write(planted.join("locked/deeper/x"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, planted.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.join("file"), planted.join("locked/file")).unwrap();
        rustix::fs::mknodat(rustix::fs::CWD, planted.join("fifo"), FileType::Fifo, Mode::from_raw_mode(0o600), 0)
            .unwrap();
        for (path, mode) in
            [(planted.join("locked/deeper"), 0o000), (planted.join("locked"), 0o500), (planted.clone(), 0o555)]
        {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let project = root.join("project");
        std::fs::set_permissions(&project, std::fs::Permissions::from_mode(0o755)).unwrap();
        remove(&open(&project), OsStr::new(".agents")).unwrap();
        assert!(std::fs::symlink_metadata(&planted).is_err());
        assert_eq!(std::fs::read_to_string(outside.join("file")).unwrap(), "mine");
        assert!(outside.join("keep").is_dir());

        // Deeper than the descriptor limit (which a removal holding one per level hits).
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct it is given.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        let depth = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX).saturating_add(10).min(100_000);
        let mut fd = open(&project);
        rustix::fs::mkdirat(&fd, ".agents", Mode::from_raw_mode(0o755)).unwrap();
        fd = rustix::fs::openat(&fd, ".agents", DIR, Mode::empty()).unwrap();
        for _ in 0..depth {
            rustix::fs::mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).unwrap();
            fd = rustix::fs::openat(&fd, "d", DIR, Mode::empty()).unwrap();
        }
        drop(fd);
        remove(&open(&project), OsStr::new(".agents")).unwrap();
        assert!(std::fs::symlink_metadata(&planted).is_err());

        // A file or a link at the path itself: the entry alone.
        std::os::unix::fs::symlink(&outside, &planted).unwrap();
        remove(&open(&project), OsStr::new(".agents")).unwrap();
        assert!(std::fs::symlink_metadata(&planted).is_err() && outside.join("keep").is_dir());
    }

    #[test]
    fn a_hostile_tree_is_removed_without_following_links() {
        clears_a_hostile_tree();
    }

    /// The same as a user other than root, whom missing rights stop (root passes them by):
    /// the test binary runs this test again as `nobody`.
    #[test]
    fn a_hostile_tree_is_removed_by_its_unprivileged_owner() {
        const AS_NOBODY: &str = "ELELEM_TEST_CLEAR_AS_NOBODY";
        if std::env::var_os(AS_NOBODY).is_some() {
            // SAFETY: setgid and setuid take integers; this process runs this test alone.
            let dropped = unsafe { libc::setgid(65534) == 0 && libc::setuid(65534) == 0 };
            assert!(dropped, "cannot become nobody: {}", io::Error::last_os_error());
            clears_a_hostile_tree();
            return;
        }
        // SAFETY: geteuid only returns a number.
        if unsafe { libc::geteuid() } != 0 {
            clears_a_hostile_tree();
            return;
        }
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "tools::sandbox::clear::tests::a_hostile_tree_is_removed_by_its_unprivileged_owner"])
            .env(AS_NOBODY, "1")
            .status()
            .unwrap();
        assert!(status.success());
    }
}
