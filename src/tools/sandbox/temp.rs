//! The sandbox's own temp directory (issue 38): one per run of elelem, made private (0700,
//! `mkdtemp`) in the system's temp directory — never inside the project — on the first
//! contained command or `/sandbox`, writable for contained commands, named to them by
//! `TMPDIR`, `TMP` and `TEMP`, and removed when elelem exits (`remove`, from
//! `startup::shutdown`, and at `exit` whatever the way out; a killed run's is removed by a
//! later run, `sweep`).
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

/// The start of the directories' names, followed by the run's process id, `-`, and
/// `mkdtemp`'s six characters.
const PREFIX: &str = "elelem-sandbox-";

/// How long a directory whose run has gone is left before another run removes it: a run in
/// another PID namespace that shares the temp directory looks gone, so its directory must
/// also have been left alone that long.
const STALE: std::time::Duration = std::time::Duration::from_secs(3600);

/// `mkdtemp(base/elelem-sandbox-PID-XXXXXX)`: a new directory only its owner may enter.
/// The directories of runs that ended without removing theirs (killed) go first (`sweep`).
fn make(base: &Path) -> Option<PathBuf> {
    sweep(base);
    let name = format!("{PREFIX}{}-XXXXXX", std::process::id());
    let mut template = base.join(name).into_os_string().into_vec();
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

/// Removes from `base` the directories this user's earlier runs left (a run killed, which
/// could not remove its own): named `PREFIX` and a process id that no longer runs, owned by
/// this user, untouched for `STALE`. A link is never followed (`clear::remove`).
fn sweep(base: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(base) else { return };
    // SAFETY: geteuid only returns a number.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|rest| rest.split_once('-')) else {
            continue;
        };
        let Ok(pid) = pid.0.parse::<libc::pid_t>() else { continue };
        let Ok(meta) = entry.path().symlink_metadata() else { continue };
        let old = meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > STALE);
        if !meta.is_dir() || meta.uid() != me || !old || pid <= 0 || runs(pid) {
            continue;
        }
        remove_one(&entry.path());
    }
}

/// Whether a process `pid` runs (or cannot be told: it is then taken to run).
fn runs(pid: libc::pid_t) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
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

    /// A dead run's directory older than `STALE` goes; a live run's, a fresh one, another
    /// name and a link stay.
    #[test]
    fn a_killed_runs_directory_is_swept_by_a_later_run() {
        let base = tempfile::tempdir().unwrap();
        let base = base.path().canonicalize().unwrap();
        // A process id that no longer runs: a child that was waited for.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let old = std::time::SystemTime::now() - STALE - std::time::Duration::from_secs(60);
        let make_dir = |name: &str, when: std::time::SystemTime| {
            let path = base.join(name);
            std::fs::create_dir_all(path.join("inside")).unwrap();
            std::fs::File::open(&path).unwrap().set_modified(when).unwrap();
            path
        };
        let gone = make_dir(&format!("{PREFIX}{dead}-aaaaaa"), old);
        let live = make_dir(&format!("{PREFIX}{}-bbbbbb", std::process::id()), old);
        let fresh = make_dir(&format!("{PREFIX}{dead}-cccccc"), std::time::SystemTime::now());
        let other = make_dir("unrelated-1-dddddd", old);
        let target = make_dir("target", old);
        std::os::unix::fs::symlink(&target, base.join(format!("{PREFIX}{dead}-eeeeee"))).unwrap();
        sweep(&base);
        assert!(!gone.exists());
        assert!(live.exists() && fresh.exists() && other.exists() && target.join("inside").exists());
    }

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
