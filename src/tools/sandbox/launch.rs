//! Starting one contained command: what is prepared in elelem for it (the protected paths
//! for its working directory, the mounts, the kept rule set, argument and environment
//! strings — `TMPDIR` set to this run's own temp directory, `temp.rs` — the session's
//! sockets to hide, `sockets.rs`), then `spawn.rs`'s clone where this
//! machine gives user namespaces, else a `pre_exec` on the caller's `Command` (`contain`,
//! Landlock and a network namespace only).

use super::sockets::Hidden;
use super::spawn::{self, Contained, Request};
use super::watch::{Submodules, Watch};
use super::{rules, seals, Io, Mode, Settings};
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What every contained command of a run in `dir` gets.
struct Setup {
    settings: Settings,
    namespaces: bool,
    seals: Vec<seals::Seal>,
    missing: Vec<PathBuf>,
    submodules: Option<Submodules>,
    ruleset: Arc<OwnedFd>,
    dir: PathBuf,
    project: PathBuf,
}

fn setup(project: &Path, cwd: Option<&str>) -> anyhow::Result<Setup> {
    let settings = super::settings();
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let dir = cwd.map_or_else(|| project.clone(), |cwd| project.join(cwd));
    let dir = dir.canonicalize().unwrap_or(dir);
    let namespaces = seals::namespaces_work();
    // The index is read once here; `Submodules` looks at it again once the command ended.
    let submodules = super::gitlinks::pointers(&project);
    let protected = seals::protected_with(&project, &dir, submodules.clone());
    let (seals, missing, submodules) = if namespaces && settings.mode == Mode::WorkspaceWrite {
        let writable = rules::writable_roots(&project, &settings);
        let plan = seals::plan(&protected, &writable).map_err(|e| anyhow::anyhow!("cannot set up the sandbox: {e}"))?;
        // A little before now: a file system's clock is coarser than this one.
        let now = std::time::SystemTime::now();
        let started = now.checked_sub(std::time::Duration::from_millis(100)).unwrap_or(now);
        let submodules = Submodules { before: submodules, project: project.clone(), started };
        (plan, seals::missing(&protected), Some(submodules))
    } else {
        (Vec::new(), Vec::new(), None)
    };
    // In the session's shared network namespace (loopback only) the namespace keeps the
    // outside away, and Landlock's TCP rules, which know ports and not addresses, would
    // keep a server and its client apart: they are left out.
    let shared_net = namespaces && !settings.network && super::netns::shared().is_some();
    let rule_settings = Settings { network: settings.network || shared_net, ..settings.clone() };
    let ruleset = rules::cached(&rule_settings, &project, &protected, namespaces)
        .map_err(|e| anyhow::anyhow!("cannot build the sandbox's rule set: {e}"))?;
    Ok(Setup { settings, namespaces, seals, missing, submodules, ruleset, dir, project })
}

/// `TMPDIR`, `TMP` and `TEMP` for a contained command: this run's own temp directory
/// (`temp.rs`), writable where the system's may not be (none in read-only mode, where
/// nothing is writable, nor when none could be made: the variables are then left as they
/// are).
fn temp_vars(setup: &Setup) -> Vec<(&'static str, PathBuf)> {
    if setup.settings.mode != Mode::WorkspaceWrite {
        return Vec::new();
    }
    super::temp::dir(&setup.project)
        .map(|dir| super::temp::VARS.iter().map(|var| (*var, dir.clone())).collect())
        .unwrap_or_default()
}

/// A contained command that runs: its process (the first of its own PID namespace) and the
/// protected paths to look at once it has ended.
pub struct Started {
    child: Contained,
    watch: Watch,
}

impl Started {
    pub fn pid(&self) -> i32 {
        self.child.pid()
    }

    /// Something that kills the command from anywhere, also once it has ended (then it
    /// does nothing): a copy of its pidfd.
    pub fn killer(&self) -> std::io::Result<super::spawn::Killer> {
        self.child.killer()
    }

    /// Waits for the command to exit; its status. Its PID namespace, and so every process
    /// it started, is gone by then.
    pub async fn wait(&mut self) -> std::io::Result<i32> {
        self.child.wait().await
    }

    /// Kills the command and every process it started.
    pub fn kill(&mut self) {
        self.child.kill();
    }

    /// Once it has ended: removes the protected paths it created; the note for the model.
    pub fn settle(&mut self) -> Option<String> {
        self.watch.settle()
    }
}

/// Starts `bash -c command` contained, in `cwd` (relative to `project`), connected as `io`
/// says, without the variables named in `removed`. `None` when this machine gives no user
/// namespaces: the caller runs it through `contain` instead.
pub fn start(
    command: &str,
    project: &Path,
    cwd: Option<&str>,
    removed: &[OsString],
    io: &Io,
) -> anyhow::Result<Option<Started>> {
    let setup = setup(project, cwd)?;
    if !setup.namespaces {
        return Ok(None);
    }
    let steps = seals::ChildSteps::new(&setup.seals, false, true, Some(&setup.dir))?;
    let lost: Vec<(String, String)> = std::env::vars_os()
        .filter(|(name, _)| removed.contains(name))
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    let hidden = Hidden::for_command(project, &setup.dir, &lost)?;
    let bash = spawn::find_program("bash").ok_or_else(|| anyhow::anyhow!("cannot find bash on PATH"))?;
    let temp = temp_vars(&setup);
    let set: Vec<(&str, OsString)> = temp
        .iter()
        .map(|(var, dir)| (*var, dir.as_os_str().to_os_string()))
        .chain(io.env.iter().map(|(var, value)| (*var, OsString::from(value))))
        .collect();
    let envp = std::env::vars_os()
        .filter(|(name, _)| !removed.contains(name) && !set.iter().any(|(var, _)| name == var))
        .chain(set.iter().map(|(var, value)| (OsString::from(var), value.clone())))
        .map(|(name, value)| {
            let mut pair = name;
            pair.push("=");
            pair.push(value);
            spawn::c_string(&pair)
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut argv = io.argv.iter().map(|arg| spawn::c_string(arg.as_ref())).collect::<std::io::Result<Vec<_>>>()?;
    argv.push(spawn::c_string(std::ffi::OsStr::from_bytes(command.as_bytes()))?);
    let request = Request {
        program: spawn::c_string(bash.as_os_str())?,
        argv,
        envp,
        output: io.output.as_raw_fd(),
        input: io.input.map(|fd| fd.as_raw_fd()),
        terminal: io.terminal,
        steps: &steps,
        hidden: &hidden,
        ruleset: setup.ruleset.as_raw_fd(),
        no_network: !setup.settings.network,
        shared_net: super::netns::shared().filter(|_| !setup.settings.network),
    };
    let child = spawn::spawn(&request).map_err(|e| anyhow::anyhow!("cannot start bash in the sandbox: {e}"))?;
    Ok(Some(Started { child, watch: Watch::new(setup.missing, setup.submodules) }))
}

/// Restricts `cmd`'s child to the sandbox without namespaces of its own making (this
/// machine gives none, `start` said so): Landlock, with the protected paths as holes of
/// the grant, and a network namespace when one can be had. Like `start`'s, the child has no
/// terminal: a session of its own (`setsid`, so the caller must not also ask for a process
/// group, which would make it a group leader that cannot), its descriptors past 2 closed
/// at exec; the caller starts it through `process_tree::own`.
pub fn contain(cmd: &mut tokio::process::Command, project: &Path, cwd: Option<&str>) -> anyhow::Result<()> {
    let setup = setup(project, cwd)?;
    for (var, dir) in temp_vars(&setup) {
        cmd.env(var, dir);
    }
    let child = seals::ChildSteps::new(&setup.seals, setup.namespaces, setup.settings.network, Some(&setup.dir))?;
    let ruleset = Arc::clone(&setup.ruleset);
    // SAFETY: between fork and exec the closure only makes system calls (setsid, unshare,
    // chdir, prctl, landlock_restrict_self, close_range) on strings and a rule set made
    // before the fork; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            child.run()?;
            rules::restrict_self(&ruleset)?;
            if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(())
}
