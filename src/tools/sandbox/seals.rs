//! The protected paths, kept read-only for a contained command by mounts in its own mount
//! namespace (Landlock alone cannot: it grants by allow-list, so letting a command create
//! files at the project's top level would also let it write `.agents/`).
//!
//! `protected` lists them for a command's working directory (`PROTECTED`): `.agents/` and
//! `.claude/` in every directory from there up to the project root, and in each of them the
//! git directory's configuration, hooks, `commondir`, `modules/`, `worktrees/`,
//! `info/attributes` and `objects/info/alternates` — or `.git` itself when it is a file (a
//! worktree's or submodule's pointer) or missing (where git would find a new repository);
//! and the `.git` of each of the project's submodules (`gitlinks.rs`), which `git status`
//! at the root enters.
//! `plan` lists the mounts: each protected path that exists is sealed, a read-only bind
//! mount onto itself; each directory on the way to a protected path, whether the path
//! exists or not, whose parent the command may write is pinned, a read-write bind mount
//! onto itself, so it cannot be renamed away and replaced by a link (a mount point cannot
//! be renamed, removed or replaced by a rename). A protected path that does not exist
//! cannot be sealed and nothing is written to the user's tree to make one: `missing` lists
//! those, which the sandbox looks at again once the command's processes have all ended
//! (`watch.rs`). `ChildSteps` runs in the child between fork and exec: new namespaces (or
//! the clone made them, `spawn.rs`), the mounts (`open_tree` + `mount_setattr` +
//! `move_mount`), then `chdir` again so the working directory is seen through them. Once
//! the child is restricted by Landlock it may no longer mount or unmount anything.

use super::PROTECTED;
#[cfg(target_os = "linux")]
use std::ffi::CString;
#[cfg(target_os = "linux")]
use std::io;
#[cfg(target_os = "linux")]
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::sync::OnceLock;

/// One bind mount of a path onto itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seal {
    pub path: PathBuf,
    /// Read-only (a protected path), or read-write (an ancestor pinned in place).
    pub read_only: bool,
}

/// The protected paths for a command run in `dir` (both canonical; `dir` inside
/// `project`, else the project's root): `PROTECTED` in every directory from `dir` up to
/// the project root (elelem reads skills, commands and settings there; git finds the
/// repository there), its `.git/` names in each that holds a git directory, `.git` itself
/// in the others (a worktree's or submodule's pointer, or none yet). Whether they exist or
/// not.
pub fn protected(project: &Path, dir: &Path) -> Vec<PathBuf> {
    protected_with(project, dir, super::gitlinks::pointers(project))
}

/// `protected`, with the project's submodules' `.git` paths read already
/// (`gitlinks::pointers`).
pub fn protected_with(project: &Path, dir: &Path, submodules: Vec<PathBuf>) -> Vec<PathBuf> {
    let dir = if dir.starts_with(project) { dir } else { project };
    let mut paths = Vec::new();
    for folder in dir.ancestors().take_while(|d| d.starts_with(project)) {
        paths.extend(PROTECTED.iter().filter(|p| !p.starts_with(".git/")).map(|p| folder.join(p)));
        let git = folder.join(".git");
        if std::fs::symlink_metadata(&git).is_ok_and(|meta| meta.is_dir()) {
            paths.extend(PROTECTED.iter().filter_map(|p| p.strip_prefix(".git/")).map(|name| git.join(name)));
        } else {
            paths.push(git);
        }
    }
    paths.extend(submodules);
    paths
}

/// The protected paths that do not exist: they cannot be sealed, so they are looked at
/// again once the command's processes have all ended (`Watch`).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub fn missing(protected: &[PathBuf]) -> Vec<PathBuf> {
    protected.iter().filter(|p| std::fs::symlink_metadata(p).is_err()).cloned().collect()
}

/// The mounts that keep the `protected` paths (`protected`) read-only for a command that
/// may write under `writable`: seals and pins, shallowest first. A protected
/// path that is a symlink cannot be kept (the link itself could be replaced): an error.
pub fn plan(protected: &[PathBuf], writable: &[PathBuf]) -> Result<Vec<Seal>, String> {
    let mut seals: Vec<Seal> = Vec::new();
    let is_writable = |dir: &Path| writable.iter().any(|w| dir.starts_with(w));
    // A directory, not a link (a link cannot be pinned: the mount would follow it).
    let is_dir = |dir: &Path| std::fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir());
    for path in protected.iter().cloned() {
        let exists = match std::fs::symlink_metadata(&path) {
            Err(_) => false,
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symbolic link, which the sandbox cannot keep read-only; replace it with the directory \
                     or file it points to, or run with --sandbox off",
                    path.display()
                ))
            }
            Ok(_) => true,
        };
        // Pinned whether the path exists or not: the way to a missing one stays where the
        // clean-up after the command looks (`watch.rs`).
        for ancestor in path.ancestors().skip(1) {
            let pinned = ancestor.parent().is_some_and(is_writable) && is_dir(ancestor);
            if pinned && !seals.iter().any(|s| s.path == ancestor) {
                seals.push(Seal { path: ancestor.to_path_buf(), read_only: false });
            }
        }
        if exists {
            seals.push(Seal { path, read_only: true });
        }
    }
    seals.sort_by_key(|s| (s.path.components().count(), s.read_only));
    Ok(seals)
}

#[cfg(target_os = "linux")]
const OPEN_TREE_CLONE: u32 = 1;
#[cfg(target_os = "linux")]
const AT_RECURSIVE: u32 = 0x8000;
#[cfg(target_os = "linux")]
const MOVE_MOUNT_F_EMPTY_PATH: u32 = 0x4;
#[cfg(target_os = "linux")]
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// `struct mount_attr` of `mount_setattr(2)`.
#[cfg(target_os = "linux")]
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// What the child does before Landlock: everything prepared in elelem, so that the child
/// only makes system calls.
#[cfg(target_os = "linux")]
pub struct ChildSteps {
    /// unshare(2) flags; 0 when namespaces cannot be had here.
    unshare: libc::c_int,
    mounts: Vec<(CString, bool)>,
    /// Where to `chdir` once the mounts are in place.
    cwd: Option<CString>,
}

#[cfg(target_os = "linux")]
fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

#[cfg(target_os = "linux")]
impl ChildSteps {
    /// `namespaces`: whether this machine lets elelem's children make user and mount
    /// namespaces (`namespaces_work`); without, only a network namespace is tried and
    /// `seals` must be empty.
    pub fn new(seals: &[Seal], namespaces: bool, network: bool, cwd: Option<&Path>) -> io::Result<Self> {
        let net = if network { 0 } else { libc::CLONE_NEWNET };
        let unshare = match (namespaces, network) {
            (true, _) => libc::CLONE_NEWUSER | libc::CLONE_NEWNS | net,
            (false, true) => 0,
            (false, false) => libc::CLONE_NEWUSER | net,
        };
        let mounts = seals.iter().map(|s| Ok((c_path(&s.path)?, s.read_only))).collect::<io::Result<_>>()?;
        let cwd = cwd.map(c_path).transpose()?;
        Ok(ChildSteps { unshare, mounts, cwd })
    }

    /// In the child: the namespaces, the mounts, the working directory again.
    pub fn run(&self) -> io::Result<()> {
        if self.unshare != 0 {
            // SAFETY: unshare takes flags only.
            let failed = unsafe { libc::unshare(self.unshare) } != 0;
            // Without mounts to make, a refused namespace is not fatal: Landlock's TCP
            // rules still refuse the network.
            if failed && !self.mounts.is_empty() {
                return Err(io::Error::last_os_error());
            }
        }
        self.mount()?;
        self.chdir()
    }

    /// In the child, in its own mount namespace: the seals and pins.
    pub fn mount(&self) -> io::Result<()> {
        for (path, read_only) in &self.mounts {
            bind_onto_itself(path, *read_only)?;
        }
        Ok(())
    }

    /// In the child: `chdir` to the working directory (again, to see it through the
    /// mounts).
    pub fn chdir(&self) -> io::Result<()> {
        if let Some(cwd) = &self.cwd {
            // SAFETY: chdir reads a NUL-terminated string made before the fork.
            if unsafe { libc::chdir(cwd.as_ptr()) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

/// Mounts a copy of the mount at `path` onto `path` (read-only when asked). System calls
/// only.
#[cfg(target_os = "linux")]
fn bind_onto_itself(path: &CString, read_only: bool) -> io::Result<()> {
    let empty = c"";
    // SAFETY: the calls read NUL-terminated strings and a `MountAttr` that outlive them;
    // the descriptor is closed on every path.
    unsafe {
        let flags = OPEN_TREE_CLONE | libc::O_CLOEXEC as u32 | libc::AT_SYMLINK_NOFOLLOW as u32 | AT_RECURSIVE;
        let fd = libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = fd as libc::c_int;
        let mut result = 0;
        if read_only {
            let attr = MountAttr { attr_set: MOUNT_ATTR_RDONLY, attr_clr: 0, propagation: 0, userns_fd: 0 };
            let at = libc::AT_EMPTY_PATH as u32 | AT_RECURSIVE;
            result = libc::syscall(
                libc::SYS_mount_setattr,
                fd,
                empty.as_ptr(),
                at,
                &attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            );
        }
        if result == 0 {
            result = libc::syscall(
                libc::SYS_move_mount,
                fd,
                empty.as_ptr(),
                libc::AT_FDCWD,
                path.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            );
        }
        let error = io::Error::last_os_error();
        libc::close(fd);
        if result != 0 {
            return Err(error);
        }
    }
    Ok(())
}

/// Whether elelem's children can make a user and a mount namespace and mount in it here
/// (asked once, by starting `bash -c :` that way): without, the protected paths are kept by
/// Landlock alone and the project's top level gets no new entries.
#[cfg(target_os = "linux")]
pub fn namespaces_work() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let Ok(probe) = ChildSteps::new(&[Seal { path: std::env::temp_dir(), read_only: true }], true, true, None)
        else {
            return false;
        };
        let mut cmd = std::process::Command::new("bash");
        cmd.args(["-c", ":"]).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure only makes system calls on data made before the fork.
        unsafe {
            cmd.pre_exec(move || probe.run());
        }
        cmd.status().is_ok_and(|s| s.success())
    })
}

/// No namespaces but on Linux: the protected paths are holes of the grant (of the
/// Seatbelt profile's on macOS, `seatbelt.rs`), never mounts.
#[cfg(not(target_os = "linux"))]
pub fn namespaces_work() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn seal(path: PathBuf) -> Seal {
        Seal { path, read_only: true }
    }

    #[cfg(unix)]
    fn pin(path: PathBuf) -> Seal {
        Seal { path, read_only: false }
    }

    /// The plan as a table: which paths are sealed and pinned, for a project whose parent
    /// is writable or not, a repository or not, a worktree's `.git` file.
    #[cfg(unix)]
    #[test]
    fn the_plan_seals_protected_paths_and_pins_their_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        for d in [".agents", ".git/hooks", ".git/info", ".git/objects/info", "src"] {
            std::fs::create_dir_all(repo.join(d)).unwrap();
        }
        std::fs::write(repo.join(".git/config"), "").unwrap();
        let git = repo.join(".git");
        let at_root = protected(&repo, &repo);
        // The way to `info/attributes` and `objects/info/alternates` is pinned though they
        // do not exist.
        assert_eq!(
            plan(&at_root, std::slice::from_ref(&repo)).unwrap(),
            vec![
                pin(git.clone()),
                seal(repo.join(".agents")),
                pin(git.join("info")),
                pin(git.join("objects")),
                seal(git.join("config")),
                seal(git.join("hooks")),
                pin(git.join("objects/info")),
            ]
        );
        // The project's parent is writable (a project in the temp directory): the project
        // is pinned too.
        assert_eq!(plan(&at_root, &[repo.clone(), root.clone()]).unwrap()[..2], [pin(repo.clone()), pin(git.clone())]);

        let worktree = root.join("worktree");
        std::fs::create_dir_all(worktree.join(".agents")).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(
            plan(&protected(&worktree, &worktree), std::slice::from_ref(&worktree)).unwrap(),
            vec![seal(worktree.join(".agents")), seal(worktree.join(".git"))]
        );

        let plain = root.join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(plan(&protected(&plain, &plain), std::slice::from_ref(&plain)).unwrap(), vec![]);
        assert_eq!(
            missing(&protected(&plain, &plain)),
            vec![plain.join(".agents"), plain.join(".claude"), plain.join(".git")]
        );
        // In a writable parent, the project is pinned even with nothing to seal in it.
        assert_eq!(plan(&protected(&plain, &plain), &[plain.clone(), root.clone()]).unwrap(), vec![pin(plain.clone())]);

        let linked = root.join("linked");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(&plain, linked.join(".agents")).unwrap();
        assert!(plan(&protected(&linked, &linked), std::slice::from_ref(&linked))
            .unwrap_err()
            .contains("symbolic link"));
    }

    /// A git directory's protected names, in `PROTECTED`'s order.
    fn in_git(git: &Path) -> Vec<PathBuf> {
        [
            "config",
            "config.worktree",
            "commondir",
            "hooks",
            "modules",
            "worktrees",
            "info/attributes",
            "objects/info/alternates",
        ]
        .iter()
        .map(|n| git.join(n))
        .collect()
    }

    /// From a folder below the root: `.agents` and `.claude` on every level up to the root,
    /// the git directory's names of each repository on the way, `.git` itself where there
    /// is none; nothing above the project, nothing for a folder outside it but the root's.
    #[test]
    fn protected_paths_run_from_the_working_directory_up_to_the_project_root() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap().join("p");
        for d in [".git/hooks", "sub/.git", "sub/deep"] {
            std::fs::create_dir_all(project.join(d)).unwrap();
        }
        let deep = project.join("sub/deep");
        let (sub, git, subgit) = (project.join("sub"), project.join(".git"), project.join("sub/.git"));
        let mut expected = vec![deep.join(".agents"), deep.join(".claude"), deep.join(".git")];
        expected.extend([sub.join(".agents"), sub.join(".claude")]);
        expected.extend(in_git(&subgit));
        expected.extend([project.join(".agents"), project.join(".claude")]);
        expected.extend(in_git(&git));
        assert_eq!(protected(&project, &deep), expected);
        assert_eq!(protected(&project, dir.path()), protected(&project, &project));
        let all = protected(&project, &deep);
        let gaps = missing(&all);
        assert!(!gaps.contains(&git.join("hooks")) && gaps.contains(&git.join("config")), "{gaps:?}");
        for name in ["commondir", "modules", "info/attributes"] {
            assert!(gaps.contains(&git.join(name)), "{name}: {gaps:?}");
        }
    }
}
