//! The protected paths that did not exist when a contained command started (`seals::missing`):
//! nothing can be mounted on a path that does not exist, and nothing is written to the
//! user's tree to make one, so they are looked at again once the command's processes have
//! all ended (its PID namespace is gone, so no background job can race the look): whatever
//! the command put there — a directory, a file, a symbolic or hard link, something renamed
//! into place — is removed (`clear.rs`: no link followed, rights given back first), and the
//! model and the user are told.
//!
//! The way to each path is walked from `/` without following links (the directories on it
//! that existed are pinned in place, `seals::plan`); a link the command put on the way is
//! not followed, and what lies behind it is reported, not removed. A path that cannot be
//! removed fails closed: it is recorded (`kept.rs`) so that elelem refuses to load it, and
//! the sentence says so and how to remove it.

use super::{clear, kept};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, CWD};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

/// The missing protected paths of one command, and the project's submodules when it started.
pub struct Watch {
    missing: Vec<PathBuf>,
    submodules: Option<Submodules>,
    settled: bool,
}

/// The submodules' `.git` paths of a project when a command started (`gitlinks`): one it
/// registers while it runs (a new gitlink in the index), whose `.git` it made or changed, is
/// removed like a protected path it created (`git status` at the root would enter it and
/// run its configuration).
pub struct Submodules {
    pub project: PathBuf,
    pub before: Vec<PathBuf>,
    pub started: std::time::SystemTime,
}

impl Submodules {
    /// The `.git` of each submodule registered since, made or changed since.
    fn planted(&self) -> Vec<PathBuf> {
        super::gitlinks::pointers(&self.project)
            .into_iter()
            .filter(|path| !self.before.contains(path) && changed_since(path, self.started))
            .collect()
    }
}

/// Whether the git directory or pointer at `git`, or what in it decides what git runs,
/// changed at or after `since` (its status change time: a write, a rename into place, a
/// chmod). A pointer file's target directory counts too.
fn changed_since(git: &Path, since: std::time::SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(since) = since.duration_since(std::time::UNIX_EPOCH) else { return true };
    let changed = |path: &Path| {
        std::fs::symlink_metadata(path).is_ok_and(|meta| {
            let ctime =
                std::time::Duration::new(meta.ctime().max(0) as u64, meta.ctime_nsec().clamp(0, 999_999_999) as u32);
            ctime >= since
        })
    };
    if changed(git) {
        return true;
    }
    let dir = match std::fs::read_to_string(git) {
        Ok(text) => match text.lines().next().and_then(|line| line.strip_prefix("gitdir:")) {
            Some(target) => git.parent().unwrap_or(git).join(target.trim()),
            None => return false,
        },
        Err(_) => git.to_path_buf(),
    };
    changed(&dir) || ["config", "config.worktree", "commondir", "hooks"].iter().any(|name| changed(&dir.join(name)))
}

/// What the look at one path found.
#[derive(Debug, PartialEq)]
enum Found {
    Nothing,
    Removed,
    /// It is there and stays: why.
    Kept(String),
}

impl Watch {
    pub fn new(missing: Vec<PathBuf>, submodules: Option<Submodules>) -> Self {
        Watch { missing, submodules, settled: false }
    }

    /// Once the command's processes have all ended: removes what it created at a watched
    /// path; the sentence for the model (and the user) when it did.
    pub fn settle(&mut self) -> Option<String> {
        if std::mem::replace(&mut self.settled, true) {
            return None;
        }
        let mut removed = Vec::new();
        let mut kept = Vec::new();
        let planted = self.submodules.as_ref().map(Submodules::planted).unwrap_or_default();
        for path in self.missing.iter().chain(&planted) {
            match look(path) {
                Found::Nothing => {}
                Found::Removed => removed.push(path.display().to_string()),
                Found::Kept(why) => kept.push((path, why)),
            }
        }
        if removed.is_empty() && kept.is_empty() {
            return None;
        }
        let mut note = String::from("blocked by the sandbox:");
        if !removed.is_empty() {
            note.push_str(&format!(
                " the command created {}, which a contained command may not (it decides what the next run of elelem, \
                 another agent or git executes); it was removed.",
                removed.join(", ")
            ));
        }
        for (path, why) in kept {
            let recorded = match kept::record(path, &why) {
                Ok(file) => format!("elelem will not load it (recorded in {})", file.display()),
                Err(e) => format!("elelem could not record it ({e})"),
            };
            let shown = shell_quote(&path.to_string_lossy());
            note.push_str(&format!(
                " The command created {} and it could not be removed ({why}): {recorded}, but git or another agent \
                 could; the user must look at it and remove it (chmod -R u+rwx {shown}; rm -rf {shown}).",
                path.display()
            ));
        }
        Some(note)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.settle();
    }
}

/// `text` in single quotes for a shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The folder above another and that one's name in it, to give it back its rights.
type Above<'a> = Option<(OwnedFd, &'a OsStr)>;

/// How a directory on the way is opened: to look names up in it, never through a link
/// (`O_PATH` with `O_NOFOLLOW` opens a link itself, which `fstat` then tells).
const LOOKUP: OFlags = OFlags::PATH.union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// Looks at `path` (absolute) and removes what is there.
fn look(path: &Path) -> Found {
    match walk(path) {
        Ok(Some((dir, above))) => {
            let name = path.file_name().unwrap_or_default();
            match clear::remove(&dir, name) {
                Ok(()) => Found::Removed,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Found::Nothing,
                // The folder holding it lost its rights (the command may change them on
                // what the user owns): given back, once.
                Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM)) => {
                    let retried = above.as_ref().map_or(Err(e), |(up, folder)| {
                        clear::open_up(up, folder).and_then(|()| clear::remove(&dir, name))
                    });
                    retried.map_or_else(|e| Found::Kept(e.to_string()), |()| Found::Removed)
                }
                Err(e) => Found::Kept(e.to_string()),
            }
        }
        Ok(None) => Found::Nothing,
        Err(why) => Found::Kept(why),
    }
}

/// The directory holding `path`, opened from `/` without following a link, and the
/// directory above it with its name there; `None` when `path` cannot exist (a folder on
/// the way is missing or not a folder); an error when a link on the way leads to something
/// at `path`.
fn walk(path: &Path) -> Result<Option<(OwnedFd, Above<'_>)>, String> {
    let parent = path.parent().ok_or_else(|| format!("{}: not a path below /", path.display()))?;
    let mut dir = rustix::fs::openat(CWD, "/", LOOKUP, Mode::empty()).map_err(|e| format!("/: {e}"))?;
    let mut above: Above = None;
    for component in parent.components() {
        let name = match component {
            Component::RootDir => continue,
            Component::Normal(name) => name,
            _ => return Err(format!("{}: not a resolved path", path.display())),
        };
        let opened = again_with_rights(&above, || rustix::fs::openat(&dir, name, LOOKUP, Mode::empty()));
        let next = match opened {
            Ok(next) => next,
            Err(Errno::NOENT | Errno::NOTDIR) => return Ok(None),
            Err(e) => return Err(format!("cannot look in {}: {e}", parent.display())),
        };
        let kind = rustix::fs::fstat(&next).map(|s| FileType::from_raw_mode(s.st_mode));
        match kind {
            Ok(FileType::Directory) => {}
            Ok(FileType::Symlink) if std::fs::symlink_metadata(path).is_ok() => {
                return Err(format!(
                    "it is reached through the link {}, which elelem does not follow",
                    Path::new(name).display()
                ))
            }
            _ => return Ok(None),
        }
        above = Some((std::mem::replace(&mut dir, next), name));
    }
    let name = path.file_name().unwrap_or_default();
    match again_with_rights(&above, || rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)) {
        Ok(_) => Ok(Some((dir, above))),
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(format!("cannot look at it: {e}")),
    }
}

/// `look_up` in a folder (the last one `above` leads to); if the folder lost its search
/// right (the command may change the rights of what the user owns), once more after giving
/// it back.
fn again_with_rights<T>(above: &Above, look_up: impl Fn() -> rustix::io::Result<T>) -> rustix::io::Result<T> {
    match (look_up(), above) {
        (Err(Errno::ACCESS), Some((up, folder))) if clear::open_up(up, folder).is_ok() => look_up(),
        (result, _) => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_command_created_at_a_watched_path_is_removed_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let outside = root.join("outside");
        std::fs::create_dir_all(outside.join("keep")).unwrap();
        std::fs::write(outside.join("file"), "mine").unwrap();
        std::fs::write(outside.join("attributes"), "* filter=x").unwrap();
        let watched: Vec<PathBuf> = ["a/.agents", "b/.agents", "c/config", "d/hooks", "e/.git/info/attributes"]
            .iter()
            .map(|p| root.join(p))
            .collect();
        for d in ["a", "b", "c", "d", "e/.git"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let mut watch = Watch::new(watched.clone(), None);
        std::fs::create_dir_all(root.join("a/.agents/commands")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("b/.agents")).unwrap();
        std::fs::hard_link(outside.join("file"), root.join("c/config")).unwrap();
        // A link on the way: not followed, reported.
        std::os::unix::fs::symlink(&outside, root.join("e/.git/info")).unwrap();
        let note = watch.settle().unwrap();
        assert!(note.starts_with("blocked by the sandbox"), "{note}");
        assert!(note.contains("a/.agents") && note.contains("c/config") && !note.contains("d/hooks"), "{note}");
        assert!(note.contains("reached through the link info"), "{note}");
        for path in &watched[..4] {
            assert!(std::fs::symlink_metadata(path).is_err(), "{path:?}");
        }
        assert_eq!(std::fs::read_to_string(outside.join("file")).unwrap(), "mine");
        assert!(outside.join("keep").is_dir() && outside.join("attributes").is_file());
        assert_eq!(watch.settle(), None, "once");
        std::fs::remove_file(root.join("e/.git/info")).unwrap();
        assert_eq!(Watch::new(watched, None).settle(), None, "nothing created");
    }

    /// A folder on the way replaced by a link (which the pins prevent for folders that
    /// existed) leads nowhere: what lies behind it is not removed.
    #[test]
    fn a_folder_replaced_by_a_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".agents")).unwrap();
        std::fs::write(home.join(".agents/mcp.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join("project")).unwrap();
        let mut watch = Watch::new(vec![root.join("project/sub/.agents")], None);
        std::os::unix::fs::symlink(&home, root.join("project/sub")).unwrap();
        let note = watch.settle().unwrap();
        assert!(note.contains("could not be removed") && note.contains("through the link sub"), "{note}");
        assert!(home.join(".agents/mcp.json").is_file(), "the user's own .agents stays");
    }
}
