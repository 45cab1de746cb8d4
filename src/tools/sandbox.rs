//! The kernel sandbox for `execute`'s child (issue 29): the mode (`--sandbox`,
//! `ELELEM_SANDBOX`: `workspace-write`, `read-only`, or `off`, the default for now), the Landlock rule
//! set built in elelem (writes only under the project and the temp directory, minus
//! `.agents/`, `.git/hooks/`, `.git/config`; reads everywhere but the user's secrets; no TCP),
//! and the step run in the child between fork and exec (`pre_exec`): a new user and
//! network namespace, then the rule set. elelem itself is never restricted, nor `!command`.

use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, ABI,
};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// What a contained command may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    WorkspaceWrite,
    ReadOnly,
    Off,
}

impl Mode {
    pub fn parse(text: &str) -> Result<Mode, String> {
        match text {
            "workspace-write" => Ok(Mode::WorkspaceWrite),
            "read-only" => Ok(Mode::ReadOnly),
            "off" => Ok(Mode::Off),
            other => Err(format!("unknown sandbox mode {other:?} (workspace-write, read-only or off)")),
        }
    }
}

/// The run's mode and the extra paths no contained command may read (elelem's data
/// directory: sessions, trust store).
static CONFIG: OnceLock<(Mode, Vec<PathBuf>)> = OnceLock::new();

/// Sets the mode and the extra secret paths for this run (once, at start).
pub fn configure(mode: Mode, secrets: Vec<PathBuf>) {
    let _ = CONFIG.set((mode, secrets));
}

fn config() -> &'static (Mode, Vec<PathBuf>) {
    CONFIG.get_or_init(|| {
        let mode = std::env::var("ELELEM_SANDBOX").ok().and_then(|m| Mode::parse(&m).ok());
        (mode.unwrap_or(Mode::Off), Vec::new())
    })
}

/// The mode for this run: `--sandbox`, else `ELELEM_SANDBOX`, else `off` (opt-in until a
/// contained command can create files at the project's top level: see the module doc).
pub fn mode() -> Mode {
    config().0
}

/// The Landlock ABI version of this kernel (0 without Landlock).
pub fn kernel_abi() -> i64 {
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the VERSION flag
    // only returns a number.
    let version = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
    version.max(0)
}

/// Whether `execute` runs contained in this run: the mode is not `off` and the kernel has
/// Landlock with network rules (ABI 4, Linux 6.7).
pub fn active() -> bool {
    mode() != Mode::Off && kernel_abi() >= 4
}

/// The tools whose calls run contained in this run (and so need no approval).
pub fn contained_tools() -> Vec<String> {
    if active() {
        vec!["execute".to_string()]
    } else {
        Vec::new()
    }
}

/// The sentence shown once at start when the sandbox was asked for but cannot be had.
pub fn unavailable_notice() -> Option<String> {
    (mode() != Mode::Off && !active()).then(|| {
        format!(
            "The sandbox for execute is not available here (Landlock ABI {} < 4): commands run with your rights \
             and are asked about as before.",
            kernel_abi()
        )
    })
}

/// For a contained command that failed with a refusal the sandbox may have caused, the
/// sentence the model can act on.
pub fn failure_note(finished: &super::run_command::Finished) -> Option<String> {
    let failed = matches!(finished.ending, super::run_command::Ending::Exited(s) if s != 0);
    let refused = ["Permission denied", "Operation not permitted", "Read-only file system", "Network is unreachable"]
        .iter()
        .any(|words| finished.content.contains(words));
    (active() && failed && refused).then(|| {
        let writes = match mode() {
            Mode::ReadOnly => "it may write nowhere (read-only mode)",
            _ => {
                "it may write only inside the project and the temp directory, not .agents/, .git/hooks/ or .git/config"
            }
        };
        format!(
            "blocked by the sandbox, probably: the command ran contained ({}); {writes}; it cannot read ~/.ssh and the \
             user's other secrets; network is off. If it must do more, ask the user to run it with !command or \
             to start elelem with --sandbox off.",
            match mode() {
                Mode::ReadOnly => "read-only",
                _ => "workspace-write",
            }
        )
    })
}

/// The user's files a contained command may not read, under `home`.
pub const SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pgpass",
];

/// Paths inside the project a contained command may not write: they decide what the next
/// run of elelem or git executes.
pub const PROTECTED: &[&str] = &[".agents", ".git/hooks", ".git/config"];

/// The places to grant so that everything under `roots` is covered except `holes` (and
/// whatever lies under them). Landlock grants by allow-list and a grant on a directory
/// covers its whole subtree, so an ancestor of a hole is not granted itself: each of its
/// entries is, except the holes. The price: an ancestor of a hole gets no right of its own
/// (its listing cannot be read, no new entry can be created in it).
pub fn cover(roots: &[PathBuf], holes: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots {
        cover_one(root, holes, &mut out);
    }
    out
}

fn cover_one(path: &Path, holes: &[PathBuf], out: &mut Vec<PathBuf>) {
    if holes.iter().any(|h| path.starts_with(h)) {
        return;
    }
    if !holes.iter().any(|h| h.starts_with(path)) {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    for entry in entries.flatten() {
        cover_one(&entry.path(), holes, out);
    }
}

/// The rule set for `mode` with `project` as the writable root; `None` when off.
fn build(mode: Mode, project: &Path) -> anyhow::Result<Option<RulesetCreated>> {
    if mode == Mode::Off {
        return Ok(None);
    }
    let abi = ABI::V4;
    let mut ruleset =
        Ruleset::default().handle_access(AccessFs::from_all(abi))?.handle_access(AccessNet::from_all(abi))?.create()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut secrets: Vec<PathBuf> = home.iter().flat_map(|h| SECRETS.iter().map(move |s| h.join(s))).collect();
    secrets.extend(config().1.iter().cloned());
    for path in cover(&[PathBuf::from("/")], &secrets) {
        ruleset = add(ruleset, &path, AccessFs::from_read(abi))?;
    }
    // Devices common tools write to.
    for dev in ["/dev/null", "/dev/zero", "/dev/tty", "/dev/full", "/dev/pts", "/dev/shm"] {
        ruleset = add(ruleset, Path::new(dev), AccessFs::from_all(abi))?;
    }
    if mode == Mode::WorkspaceWrite {
        let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
        let mut holes: Vec<PathBuf> = PROTECTED.iter().map(|p| project.join(p)).collect();
        holes.extend(secrets);
        let temp = std::env::temp_dir().canonicalize().unwrap_or_else(|_| std::env::temp_dir());
        let mut temp_holes = holes.clone();
        // The home directory may lie in the temp directory; it is not writable through it
        // (the project is granted on its own).
        temp_holes.extend(home.into_iter().filter(|h| h.starts_with(&temp) && !project.starts_with(h)));
        for path in cover(std::slice::from_ref(&project), &holes).into_iter().chain(cover(&[temp], &temp_holes)) {
            ruleset = add(ruleset, &path, AccessFs::from_all(abi))?;
        }
    }
    Ok(Some(ruleset))
}

/// Grants `access` on `path` (only the file rights when it is not a directory).
fn add(ruleset: RulesetCreated, path: &Path, access: landlock::BitFlags<AccessFs>) -> anyhow::Result<RulesetCreated> {
    let Ok(fd) = PathFd::new(path) else { return Ok(ruleset) };
    let access = if path.is_dir() { access } else { access & AccessFs::from_file(ABI::V4) };
    Ok(ruleset.add_rule(PathBeneath::new(fd, access))?)
}

/// Restricts `cmd`'s child to `mode`, with `project` as the writable root. Fails (and the
/// command is not run) when the rule set cannot be built.
pub fn contain(cmd: &mut tokio::process::Command, project: &Path) -> anyhow::Result<()> {
    let mode = mode();
    if !active() {
        return Ok(());
    }
    let Some(ruleset) = build(mode, project).map_err(|e| anyhow::anyhow!("cannot build the sandbox: {e}"))? else {
        return Ok(());
    };
    let ruleset = Mutex::new(Some(ruleset));
    // SAFETY: between fork and exec the closure only makes system calls (unshare, prctl,
    // landlock_restrict_self) on a rule set built before the fork; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            // No network: a fresh network namespace has only a down loopback. Where user
            // namespaces are refused, Landlock's TCP rules still deny connect and bind.
            let _ = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET);
            let taken = ruleset.lock().ok().and_then(|mut r| r.take());
            if let Some(ruleset) = taken {
                ruleset.restrict_self().map_err(|_| std::io::Error::from_raw_os_error(libc::EPERM))?;
            }
            Ok(())
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn modes_parse() {
        assert_eq!(Mode::parse("read-only"), Ok(Mode::ReadOnly));
        assert_eq!(Mode::parse("off"), Ok(Mode::Off));
        assert!(Mode::parse("loose").is_err());
    }
}
