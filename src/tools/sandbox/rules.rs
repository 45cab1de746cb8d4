//! The Landlock rule set a contained command gets: reads granted on everything but the
//! user's secrets, the unreadable paths and the terminals (`terminals`), writes on the
//! project, the temp directory, this run's own temp directory (`temp.rs`) and the writable
//! directories (minus the protected and unreadable paths: `write_roots`, which
//! `write_granted` reads as `cover` does), TCP refused unless the network is allowed,
//! signals and abstract sockets kept inside, device ioctls refused (`build`). Built in
//! elelem once and kept (`cached`): a command only restricts itself with the kept rule
//! set's descriptor (`restrict_self`, in its child). The kept set is rebuilt when the
//! settings or the project change, or when a directory that had to be split into its
//! entries (`cover`) changed since.

#[cfg(target_os = "linux")]
use super::Mode;
use super::{secrets, Settings};
#[cfg(target_os = "linux")]
use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
    ABI,
};
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::sync::{Arc, Mutex};
#[cfg(target_os = "linux")]
use std::time::SystemTime;

/// The places to grant so that everything under `roots` is covered except `holes` (and
/// whatever lies under them). Landlock grants by allow-list and a grant on a directory
/// covers its whole subtree, so an ancestor of a hole is not granted itself: each of its
/// entries is, except the holes. The price: an ancestor of a hole gets no right of its own
/// (its listing cannot be read, no new entry can be created in it).
pub fn cover(roots: &[PathBuf], holes: &[PathBuf]) -> Vec<PathBuf> {
    cover_split(roots, holes, &mut Vec::new())
}

/// `cover`, and the directories it split (whose later changes make the grants stale).
fn cover_split(roots: &[PathBuf], holes: &[PathBuf], split: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        cover_one(root, holes, &mut out, split);
    }
    out
}

fn cover_one(path: &Path, holes: &[PathBuf], out: &mut Vec<PathBuf>, split: &mut Vec<PathBuf>) {
    if holes.iter().any(|h| path.starts_with(h)) {
        return;
    }
    if !holes.iter().any(|h| h.starts_with(path)) {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    split.push(path.to_path_buf());
    for entry in entries.flatten() {
        // A link is never granted: the grant would follow it and cover its target's whole
        // tree (a hole's ancestor, by another name: `/home` linked to `/var/home`). Its
        // target is covered, or not, under its own path.
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        cover_one(&entry.path(), holes, out, split);
    }
}

/// The user's secrets and the settings' unreadable paths, resolved (`secrets.rs`); the
/// settings folders listed on the way go to `split`, so that a kept rule set built from
/// them is rebuilt when one of them changes.
pub fn unreadable(settings: &Settings, split: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    let (paths, listed) = secrets::unreadable(home().as_deref(), &settings.unreadable);
    split.extend(listed);
    paths
}

/// The home directory, resolved.
fn home() -> Option<PathBuf> {
    secrets::home()
}

fn temp_dir() -> PathBuf {
    std::env::temp_dir().canonicalize().unwrap_or_else(|_| std::env::temp_dir())
}

/// Where a contained command may write in workspace-write mode (before holes): the
/// project, the temp directory, this run's own temp directory (`temp.rs`, its `TMPDIR`)
/// and the settings' writable directories.
pub fn writable_roots(project: &Path, settings: &Settings) -> Vec<PathBuf> {
    let mut roots = vec![project.to_path_buf(), temp_dir()];
    roots.extend(super::temp::dir(project));
    roots.extend(settings.writable.iter().map(|p| p.canonicalize().unwrap_or_else(|_| p.clone())));
    roots
}

/// A place granted for writes and the holes cut out of it (`cover`).
pub struct WriteRoot {
    pub root: PathBuf,
    pub holes: Vec<PathBuf>,
}

/// The write grants in workspace-write mode before `cover` splits them, given the
/// unreadable paths (`secrets`): the project (less the secrets, and the protected paths
/// when they are not `sealed`); elsewhere the project's and the user's protected paths are
/// holes too, and so is the home directory in the system's temp directory when it lies
/// there (the project is granted on its own). A directory the user listed is writable even
/// inside a home that lies in the temp directory.
pub fn write_roots(
    settings: &Settings,
    project: &Path,
    protected: &[PathBuf],
    sealed: bool,
    secrets: &[PathBuf],
) -> Vec<WriteRoot> {
    let mut project_holes = secrets.to_vec();
    if !sealed {
        project_holes.extend(protected.iter().cloned());
    }
    let mut holes = secrets.to_vec();
    holes.extend(protected.iter().cloned());
    let mut temp_holes = Vec::new();
    if let Some(home) = home() {
        holes.extend(super::SETTINGS_DIRS.iter().map(|dir| secrets::resolve(&home.join(dir))));
        if home.starts_with(temp_dir()) && !project.starts_with(&home) {
            temp_holes.push(home);
        }
    }
    temp_holes.extend(holes.iter().cloned());
    let mut roots = writable_roots(project, settings).into_iter();
    let mut out = Vec::new();
    out.extend(roots.next().map(|root| WriteRoot { root, holes: project_holes }));
    out.extend(roots.next().map(|root| WriteRoot { root, holes: temp_holes }));
    out.extend(roots.map(|root| WriteRoot { root, holes: holes.clone() }));
    out
}

/// Whether `cover` grants `path` (resolved) for writes in `roots`: it lies in a root and in
/// no hole, and the root or a directory between it and `path` that exists holds no hole
/// (a split directory's entries are granted, not the directory: nothing new in it).
pub fn write_granted(path: &Path, roots: &[WriteRoot]) -> bool {
    roots.iter().any(|WriteRoot { root, holes }| {
        path.starts_with(root)
            && !holes.iter().any(|hole| path.starts_with(hole))
            && path.ancestors().take_while(|a| a.starts_with(root)).any(|a| {
                let there = a == root || std::fs::symlink_metadata(a).is_ok_and(|m| !m.file_type().is_symlink());
                there && !holes.iter().any(|hole| hole.starts_with(a))
            })
    })
}

/// The grants for `settings` with `project` as the writable root: (read-only places,
/// read-write places), and the directories split on the way. `sealed`: the `protected`
/// paths are mounted read-only in the child, so the project is granted whole
/// (less its unreadable paths); otherwise they are holes of the grant.
#[cfg(target_os = "linux")]
pub fn grants(
    settings: &Settings,
    project: &Path,
    protected: &[PathBuf],
    sealed: bool,
) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>) {
    let mut split = Vec::new();
    let secrets = unreadable(settings, &mut split);
    let reads = cover_split(&[PathBuf::from("/")], &[secrets.as_slice(), &terminals()].concat(), &mut split);
    if settings.mode != Mode::WorkspaceWrite {
        return (reads, Vec::new(), split);
    }
    let mut writes = Vec::new();
    for WriteRoot { root, holes } in write_roots(settings, project, protected, sealed, &secrets) {
        writes.extend(cover_split(&[root], &holes, &mut split));
    }
    (reads, writes, split)
}

/// A built rule set and what it was built for.
#[cfg(target_os = "linux")]
struct Kept {
    /// The settings, the project, the protected paths (unsealed), sealed, this run's temp
    /// directory (made again if something removed it).
    key: (Settings, PathBuf, Vec<PathBuf>, bool, Option<PathBuf>),
    /// The split directories and their modification times when it was built.
    stamps: Vec<(PathBuf, Option<SystemTime>)>,
    ruleset: Arc<OwnedFd>,
}

#[cfg(target_os = "linux")]
static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

#[cfg(target_os = "linux")]
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The rule set for `settings` and `project`, built once and kept while nothing it depends
/// on changed.
#[cfg(target_os = "linux")]
pub fn cached(
    settings: &Settings,
    project: &Path,
    protected: &[PathBuf],
    sealed: bool,
) -> anyhow::Result<Arc<OwnedFd>> {
    // Sealed, the protected paths only matter outside the project (the same for every
    // working directory but for nested `.agents/`, which lie in the project).
    let temp = super::temp::dir(project);
    let key =
        (settings.clone(), project.to_path_buf(), if sealed { Vec::new() } else { protected.to_vec() }, sealed, temp);
    let mut kept = KEPT.lock().map_err(|_| anyhow::anyhow!("the sandbox's rule set cache is poisoned"))?;
    if let Some(kept) = kept.as_ref() {
        if kept.key == key && kept.stamps.iter().all(|(dir, when)| modified(dir) == *when) {
            return Ok(Arc::clone(&kept.ruleset));
        }
    }
    let (reads, writes, split) = grants(settings, project, protected, sealed);
    let stamps = split.into_iter().map(|dir| (dir.clone(), modified(&dir))).collect();
    let ruleset = Arc::new(build(settings, &reads, &writes)?);
    *kept = Some(Kept { key, stamps, ruleset: Arc::clone(&ruleset) });
    Ok(ruleset)
}

/// The terminals in `/dev`, which no contained command may open (issue 37): the user's
/// (`/dev/tty`, `/dev/pts/N`, the console and virtual consoles, whose screens `vcs*` show)
/// and the pseudo-terminal master `/dev/ptmx` (a new one's `/dev/pts/N` could not be opened
/// anyway). Reading one would take what the user types; writing, put raw escapes on their
/// screen; its ioctls, push input (`TIOCSTI`, `TIOCLINUX`). The input devices too
/// (`/dev/input`, `hidraw*`, `uinput`): what the keyboard types, for whoever may open them.
pub fn terminals() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/dev") else { return Vec::new() };
    let named = ["pts", "ptmx", "console", "input", "uinput"];
    let prefixes = ["tty", "vcs", "hvc", "hidraw"];
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|name| named.contains(&name) || prefixes.iter().any(|p| name.starts_with(p)))
        })
        .collect()
}

/// The newest ABI whose rights the rule set asks for; each kernel enforces the ones it has
/// (best effort, the crate's default): ioctls on devices (ABI 5), connecting to a Unix
/// socket file (ABI 9, Linux 7.1: only where a write is granted).
#[cfg(target_os = "linux")]
const ABI_WANTED: ABI = ABI::V9;

/// Device files a command may write to and query (`isatty` on `/dev/null`).
pub const DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// The Landlock rule set granting `reads` and `writes`, TCP refused unless the network is
/// on, signals and abstract Unix sockets scoped to the sandbox where the kernel has it (ABI
/// 6: no signal to elelem or anything outside, no abstract socket of the host, an X
/// server's included). No device ioctl but on `DEVICES` (ABI 5), no device node made;
/// `/dev/shm` writable in workspace-write mode only.
#[cfg(target_os = "linux")]
fn build(settings: &Settings, reads: &[PathBuf], writes: &[PathBuf]) -> anyhow::Result<OwnedFd> {
    let abi = ABI_WANTED;
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if !settings.network {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    let mut ruleset = ruleset.scope(Scope::from_all(ABI::V6))?.create()?;
    for path in reads {
        ruleset = add(ruleset, path, AccessFs::from_read(abi))?;
    }
    for dev in DEVICES {
        ruleset = add(ruleset, Path::new(dev), AccessFs::from_file(abi) & !AccessFs::Execute)?;
    }
    let write = AccessFs::from_all(abi) & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
    if settings.mode == Mode::WorkspaceWrite {
        ruleset = add(ruleset, Path::new("/dev/shm"), write)?;
    }
    for path in writes {
        ruleset = add(ruleset, path, write)?;
    }
    Option::<OwnedFd>::from(ruleset).ok_or_else(|| anyhow::anyhow!("this kernel has no Landlock"))
}

/// Grants `access` on `path` (only the file rights when it is not a directory). A link is
/// not granted: the rule would be on its target (`/dev/stdin` leads to a pipe, on which
/// Landlock takes no rule), which is granted, or not, under its own path.
#[cfg(target_os = "linux")]
fn add(ruleset: RulesetCreated, path: &Path, access: landlock::BitFlags<AccessFs>) -> anyhow::Result<RulesetCreated> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Ok(ruleset);
    }
    let Ok(fd) = PathFd::new(path) else { return Ok(ruleset) };
    let access = if path.is_dir() { access } else { access & AccessFs::from_file(ABI_WANTED) };
    Ok(ruleset.add_rule(PathBeneath::new(fd, access))?)
}

/// In the child (between fork and exec): no new privileges, then the rule set. Only
/// system calls.
#[cfg(target_os = "linux")]
pub fn restrict_self(ruleset: &OwnedFd) -> std::io::Result<()> {
    restrict_fd(ruleset.as_raw_fd())
}

/// `restrict_self` on the rule set's raw descriptor (open in the child).
#[cfg(target_os = "linux")]
pub fn restrict_fd(ruleset: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: prctl and landlock_restrict_self take integers.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

// The rule sets are Landlock's (`cover` is tried on Linux with them).
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::PROTECTED;
    use super::*;

    #[test]
    fn cover_skips_holes_and_splits_their_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for d in [".agents", ".git/hooks", "src"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::write(root.join(".git/HEAD"), "").unwrap();
        let holes: Vec<PathBuf> = PROTECTED.iter().map(|p| root.join(p)).collect();
        let mut got = cover(std::slice::from_ref(&root), &holes);
        got.sort();
        assert_eq!(got, vec![root.join(".git/HEAD"), root.join("src")]);
        assert_eq!(cover(std::slice::from_ref(&root), &[]), vec![root.clone()]);
        assert!(cover(std::slice::from_ref(&root), std::slice::from_ref(&root)).is_empty());
    }

    fn protected(project: &Path) -> Vec<PathBuf> {
        PROTECTED.iter().map(|p| project.join(p)).collect()
    }

    fn settings(mode: Mode) -> Settings {
        Settings { mode, network: false, writable: Vec::new(), unreadable: Vec::new(), asked: true }
    }

    /// The path rules as a table: what is granted where, sealed or not.
    #[test]
    fn grants_follow_the_path_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        for d in [".agents", ".git/hooks", "src", "private"] {
            std::fs::create_dir_all(project.join(d)).unwrap();
        }
        std::fs::write(project.join(".git/config"), "").unwrap();
        let extra = root.join("extra");
        std::fs::create_dir_all(extra.join("keep")).unwrap();

        // Sealed: the project whole.
        let (_, writes, _) = grants(&settings(Mode::WorkspaceWrite), &project, &protected(&project), true);
        assert!(writes.contains(&project), "{writes:?}");
        // Not sealed: split around the protected paths.
        let (_, writes, _) = grants(&settings(Mode::WorkspaceWrite), &project, &protected(&project), false);
        assert!(!writes.contains(&project));
        assert!(writes.contains(&project.join("src")));
        assert!(!writes.iter().any(|w| w.starts_with(project.join(".agents"))));
        // Read-only: no writes at all.
        let (reads, writes, _) = grants(&settings(Mode::ReadOnly), &project, &protected(&project), true);
        assert!(writes.is_empty());
        assert!(reads.iter().any(|r| project.starts_with(r)));
        // A denied path inside the project is neither readable nor writable; a writable
        // directory is granted.
        let mut with_rules = settings(Mode::WorkspaceWrite);
        with_rules.unreadable.push(project.join("private"));
        with_rules.writable.push(extra.clone());
        let (reads, writes, split) = grants(&with_rules, &project, &protected(&project), true);
        for granted in reads.iter().chain(&writes) {
            assert!(!granted.starts_with(project.join("private")), "{granted:?}");
            assert!(!project.join("private").starts_with(granted), "{granted:?}");
        }
        assert!(writes.contains(&extra), "{writes:?}");
        assert!(writes.contains(&project.join("src")));
        assert!(split.contains(&project));
    }

    /// `write_granted` reads a split root as `cover` grants it: its entries that exist,
    /// nothing new in it itself, nothing in its holes.
    #[test]
    fn a_split_root_grants_its_entries_not_itself() {
        let dir = tempfile::tempdir().unwrap();
        let temp = dir.path().canonicalize().unwrap();
        let home = temp.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(temp.join("other")).unwrap();
        let roots = vec![WriteRoot { root: temp.clone(), holes: vec![home.clone()] }];
        assert!(!write_granted(&temp.join("new.txt"), &roots), "a new entry in the split root");
        assert!(write_granted(&temp.join("other/new.txt"), &roots));
        assert!(!write_granted(&home.join("x"), &roots));
        assert!(!write_granted(Path::new("/elsewhere/x"), &roots));
        let whole = vec![WriteRoot { root: temp.join("other"), holes: vec![home] }];
        assert!(write_granted(&temp.join("other/a/b"), &whole));
        let mut got = cover(std::slice::from_ref(&temp), &[temp.join("home")]);
        got.sort();
        assert_eq!(got, vec![temp.join("other")]);
    }

    #[test]
    fn the_kept_rule_set_is_reused_until_a_split_directory_changes() {
        if super::super::kernel_abi() < 4 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let mut s = settings(Mode::WorkspaceWrite);
        s.unreadable.push(project.join("hidden"));
        std::fs::create_dir_all(project.join("hidden")).unwrap();
        // The cache is the process's: a test running meanwhile may replace it between two
        // calls, so reuse is shown by two calls in a row that agree, once in a few tries.
        let reused = (0..20).any(|_| {
            let first = cached(&s, &project, &[], true).unwrap();
            Arc::ptr_eq(&first, &cached(&s, &project, &[], true).unwrap())
        });
        assert!(reused, "the rule set was built again for the same settings");
        let first = cached(&s, &project, &[], true).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir_all(project.join("new")).unwrap();
        let rebuilt = cached(&s, &project, &[], true).unwrap();
        assert!(!Arc::ptr_eq(&first, &rebuilt));
    }

    /// No terminal is readable (a hole of the read grant) nor writable; `/dev/null` is.
    #[test]
    fn the_terminals_are_never_granted() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let holes = terminals();
        if !Path::new("/dev/tty").exists() {
            return;
        }
        assert!(holes.contains(&PathBuf::from("/dev/tty")) && holes.contains(&PathBuf::from("/dev/pts")), "{holes:?}");
        assert!(!holes.iter().any(|h| h.ends_with("null") || h.ends_with("shm")), "{holes:?}");
        for mode in [Mode::WorkspaceWrite, Mode::ReadOnly] {
            let (reads, writes, _) = grants(&settings(mode), &project, &protected(&project), true);
            for granted in reads.iter().chain(&writes) {
                assert!(!holes.iter().any(|t| t.starts_with(granted)), "{granted:?} holds a terminal");
            }
            assert!(reads.contains(&PathBuf::from("/dev/null")), "{reads:?}");
        }
    }
}
