//! The sandbox's own temp directory (issue 38): one per run of elelem, made private (0700,
//! `mkdtemp`) in the system's temp directory — never inside the project — on the first
//! contained command or `/sandbox`, writable for contained commands, named to them by
//! `TMPDIR`, `TMP` and `TEMP`, and removed when elelem exits (`remove`, from
//! `startup::shutdown`, and at `exit` whatever the way out).
//!
//! Why: the system's temp directory is not always writable in the sandbox. When the home
//! directory lies in it (`HOME=/tmp/…`), the grant is split around the home (`rules::cover`)
//! and no new entry can be made in `/tmp` itself; Python's `tempfile`, finding no writable
//! candidate, then falls back to the working directory and writes into the project.

use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The directory once made (`None` before, or when none could be made).
static DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The names a contained command finds its temp directory by.
pub const VARS: [&str; 3] = ["TMPDIR", "TMP", "TEMP"];

/// This run's temp directory for contained commands, made on first use in the first of the
/// system's temp directory (`$TMPDIR`, else `/tmp`), `/tmp` and `/var/tmp` that lies
/// outside `project` and takes a new directory. `None` when none does.
pub fn dir(project: &Path) -> Option<PathBuf> {
    let mut made = DIR.lock().ok()?;
    if let Some(dir) = made.as_ref().filter(|dir| dir.is_dir() && !dir.starts_with(project)) {
        return Some(dir.clone());
    }
    let bases = [std::env::temp_dir(), PathBuf::from("/tmp"), PathBuf::from("/var/tmp")];
    let dir = bases
        .iter()
        .filter_map(|base| base.canonicalize().ok())
        .filter(|base| !base.starts_with(project))
        .find_map(|base| make(&base))?;
    match made.replace(dir.clone()) {
        // One made for another project of this run (a test's) that held it.
        Some(old) => remove_one(&old),
        // However the process ends but by a signal's default action (which elelem's
        // handlers prevent, calling `startup::shutdown`).
        // SAFETY: atexit registers a function without arguments that never unwinds.
        None => unsafe {
            libc::atexit(remove_at_exit);
        },
    }
    Some(dir)
}

/// `remove`, from `exit`: never waits for a lock another thread may hold.
extern "C" fn remove_at_exit() {
    if let Ok(mut made) = DIR.try_lock() {
        if let Some(dir) = made.take() {
            remove_one(&dir);
        }
    }
}

/// The directory made so far, if any (for `/sandbox` and the notes, without making one).
pub fn current() -> Option<PathBuf> {
    DIR.lock().ok().and_then(|dir| dir.clone())
}

/// `mkdtemp(base/elelem-sandbox-XXXXXX)`: a new directory only its owner may enter.
fn make(base: &Path) -> Option<PathBuf> {
    let mut template = base.join("elelem-sandbox-XXXXXX").into_os_string().into_vec();
    template.push(0);
    // SAFETY: `template` is a writable, NUL-terminated buffer that mkdtemp fills in place.
    let made = unsafe { libc::mkdtemp(template.as_mut_ptr().cast()) };
    if made.is_null() {
        return None;
    }
    template.pop();
    let path = PathBuf::from(std::ffi::OsString::from_vec(template));
    path.canonicalize().ok()
}

/// Removes this run's temp directory and what contained commands left there (at exit).
pub fn remove() {
    let Ok(mut made) = DIR.lock() else { return };
    if let Some(dir) = made.take() {
        remove_one(&dir);
    }
}

/// Removes `dir` and everything under it without following a link (`clear::remove`: a
/// command may have left folders it made unwritable, or links out of it).
fn remove_one(dir: &Path) {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { return };
    let flags = rustix::fs::OFlags::RDONLY
        | rustix::fs::OFlags::DIRECTORY
        | rustix::fs::OFlags::NOFOLLOW
        | rustix::fs::OFlags::CLOEXEC;
    let Ok(parent) = rustix::fs::openat(rustix::fs::CWD, parent, flags, rustix::fs::Mode::empty()) else { return };
    let _ = super::clear::remove(&parent, name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_is_private_outside_the_project_and_removed_whole() {
        use std::os::unix::fs::PermissionsExt;
        let project = tempfile::tempdir().unwrap();
        let project = project.path().canonicalize().unwrap();
        let dir = make(&std::env::temp_dir().canonicalize().unwrap()).unwrap();
        assert!(!dir.starts_with(&project));
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/f"), "x").unwrap();
        std::fs::set_permissions(dir.join("a"), std::fs::Permissions::from_mode(0o500)).unwrap();
        std::os::unix::fs::symlink(&project, dir.join("link")).unwrap();
        std::fs::write(project.join("kept"), "kept").unwrap();
        remove_one(&dir);
        assert!(!dir.exists());
        assert!(project.join("kept").exists(), "a link out of it was followed");
    }
}
