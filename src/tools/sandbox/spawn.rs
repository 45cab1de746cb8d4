//! Starting a contained command without copying elelem: `clone(2)` with `CLONE_VM |
//! CLONE_VFORK` (what `posix_spawn` does), so the child shares elelem's memory until it
//! calls `execve` and no page table is copied — a `fork`, which `pre_exec` forces, costs
//! time that grows with elelem's size. The same call makes the child's namespaces (user,
//! mount, PID, and network unless it is on): the command is the first process of a PID
//! namespace of its own, so when it exits the kernel kills whatever it left running (its
//! background jobs, `setsid` daemons) and no sweep of /proc is needed; killing it (timeout,
//! cancel, output limit, drop) kills its whole tree. `/proc` stays elelem's (a new one
//! would not be covered by the Landlock rules made on the old one): there `$$` is 1 while
//! `/proc/self` and `ps` show the host's numbers.
//!
//! The command has no terminal (issue 37): the child makes itself a session of its own
//! (`setsid`), so it has no controlling terminal to inject input into (`TIOCSTI`), to take
//! the foreground of (`tcsetpgrp`) or to open as `/dev/tty`; its stdin is `/dev/null` and
//! every descriptor but 0, 1 and 2 closes at `execve` (one elelem inherited from whoever
//! started it, perhaps a terminal, included). elelem knows it as its own child from the
//! start (`process_tree::own`), though it looks like an orphan that left elelem's session.
//!
//! Everything the child needs (paths, arguments, environment as C strings, the mounts, the
//! Landlock rule set's descriptor) is made in elelem first: the child only makes system
//! calls, on a stack of its own, with every signal blocked until it has put the handlers
//! back to their defaults. elelem waits for it through a pidfd.

use super::seals::ChildSteps;
use super::sockets::Hidden;
use crate::process_tree::{self, Own};
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicI32, Ordering};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// What the child runs: `program` (a path) with `argv` and `envp`, its stdout and stderr
/// on `output`, its stdin `input` (`/dev/null` when none), after the sandbox's `steps`,
/// `hidden` and `ruleset`.
pub struct Request<'a> {
    pub program: CString,
    pub argv: Vec<CString>,
    pub envp: Vec<CString>,
    pub output: RawFd,
    pub input: Option<RawFd>,
    /// `input` is a terminal (a job's own pseudo-terminal, whose master elelem holds): the
    /// child makes it its controlling terminal once it leads a session of its own.
    pub terminal: bool,
    pub steps: &'a ChildSteps,
    /// The session's sockets, hidden after the steps' mounts.
    pub hidden: &'a Hidden,
    pub ruleset: RawFd,
    /// Make a network namespace (no network).
    pub no_network: bool,
    /// With `no_network`: the session's shared network namespace to join instead of making
    /// one (`netns.rs`).
    pub shared_net: Option<&'a super::netns::SharedNet>,
}

/// The data the child reads (shared memory: it lives on the parent's stack, which the
/// parent does not leave while the child runs, `CLONE_VFORK`).
struct Shared<'a> {
    request: &'a Request<'a>,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    stdin: RawFd,
    /// The step that failed (its errno), written by the child before it exits.
    error: AtomicI32,
    step: AtomicI32,
    /// Joining the shared network namespace (`joiner`): the command's pid as the joiner
    /// cloned it, the pidfd the clone made (in elelem's descriptor table, shared with the
    /// joiner), and the stack the command runs on.
    command_pid: AtomicI32,
    pidfd: AtomicI32,
    command_stack: *mut u8,
}

/// A started contained command: its pid (as elelem sees it) and a pidfd to wait on and
/// signal it.
pub struct Contained {
    pid: i32,
    pidfd: AsyncFd<OwnedFd>,
    reaped: bool,
    /// Let go once reaped (dropped after `Drop::drop` reaped it).
    _own: Own,
}

const STACK: usize = 64 * 1024;
/// `waitid`'s idtype for a pidfd.
const P_PIDFD: libc::idtype_t = 3;

/// The steps of the child, named for the error a failed one gives.
const STEPS: [&str; 10] = [
    "mounting",
    "redirecting",
    "the session",
    "chdir",
    "Landlock",
    "closing descriptors",
    "execve",
    "hiding the session's sockets",
    "the terminal",
    "joining the session's network",
];
const JOINING: i32 = 9;

/// The namespaces every contained command gets of its own.
const OWN_NAMESPACES: libc::c_int = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;

/// Starts `request`'s command contained. Fails (and nothing runs) if a step fails.
///
/// With the session's shared network namespace (`Request::shared_net`) the command cannot
/// be cloned into it directly: a new user namespace is a child of the caller's, and only
/// one that descends from the namespace owning the network may join it. So a first clone
/// (`joiner`, sharing elelem's memory and descriptor table) joins the shared user and
/// network namespaces and clones the command from there, as elelem's child
/// (`CLONE_PARENT`), into mount and PID namespaces of its own, which its rights in the
/// shared user namespace let it make (a user namespace of its own it could not: elelem's
/// user is mapped in none of them); it then exits. The command's user is unmapped there
/// as in a namespace of its own, so `execve` leaves it no capability.
pub fn spawn(request: &Request) -> io::Result<Contained> {
    let null = std::fs::File::open("/dev/null")?;
    let argv: Vec<*const libc::c_char> =
        request.argv.iter().map(|a| a.as_ptr()).chain(std::iter::once(std::ptr::null())).collect();
    let envp: Vec<*const libc::c_char> =
        request.envp.iter().map(|a| a.as_ptr()).chain(std::iter::once(std::ptr::null())).collect();
    let joining = request.no_network && request.shared_net.is_some();
    let mut stack = vec![0u8; if joining { 2 * STACK } else { STACK }];
    let shared = Shared {
        request,
        argv,
        envp,
        stdin: request.input.unwrap_or(null.as_raw_fd()),
        error: AtomicI32::new(0),
        step: AtomicI32::new(-1),
        command_pid: AtomicI32::new(0),
        pidfd: AtomicI32::new(-1),
        command_stack: stack.as_mut_ptr(),
    };
    let mut flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD;
    if joining {
        flags |= libc::CLONE_FILES;
    } else {
        flags |= libc::CLONE_PIDFD | OWN_NAMESPACES;
        if request.no_network {
            flags |= libc::CLONE_NEWNET;
        }
    }
    let entry: extern "C" fn(*mut libc::c_void) -> libc::c_int = if joining { joiner } else { child };
    // SAFETY: the stack is ours and outlives the child's use of it (CLONE_VFORK: clone
    // returns once the child has exec'd or exited; the joiner's command runs on the lower
    // half, the joiner on the upper); `shared` likewise. All signals are blocked around the
    // call so no handler of elelem's runs in the child on shared memory; the old mask is
    // put back right after.
    let clone = || unsafe {
        let top = shared.command_stack.add(stack_len(joining));
        let top = top.sub(top as usize % 16);
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid =
            libc::clone(entry, top.cast(), flags, (&shared as *const Shared).cast_mut().cast(), shared.pidfd.as_ptr());
        let error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(error);
        }
        if !joining {
            return Ok(pid);
        }
        // The joiner has exited (or its clone would not have returned): reap it; the
        // command, if it was made, is elelem's child.
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
        match shared.command_pid.load(Ordering::SeqCst) {
            command if command > 0 => Ok(command),
            _ => Err(io::Error::from_raw_os_error(shared.error.load(Ordering::SeqCst).max(1))),
        }
    };
    let (pid, own) = match process_tree::own(clone, |pid| Some(*pid)) {
        Ok(started) => started,
        Err(error) if shared.step.load(Ordering::SeqCst) == JOINING => {
            return Err(io::Error::new(error.kind(), format!("{}: {error}", STEPS[JOINING as usize])))
        }
        Err(error) => return Err(error),
    };
    drop(stack);
    // SAFETY: CLONE_PIDFD wrote a descriptor we now own.
    let pidfd = unsafe { OwnedFd::from_raw_fd(shared.pidfd.load(Ordering::SeqCst)) };
    // SAFETY: the pidfd is owned by the AsyncFd, open and the same for its whole life.
    let pidfd = unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) }?;
    let mut contained = Contained { pid, pidfd, reaped: false, _own: own };
    let step = shared.step.load(Ordering::SeqCst);
    if step >= 0 {
        let errno = shared.error.load(Ordering::SeqCst);
        contained.kill();
        let _ = contained.reap(0);
        let name = STEPS.get(step as usize).copied().unwrap_or("setup");
        let error = io::Error::from_raw_os_error(errno);
        return Err(io::Error::new(error.kind(), format!("{name}: {error}")));
    }
    Ok(contained)
}

/// Where the first clone's stack ends (its top): the whole stack, or its upper half when
/// the joiner runs there and the command on the lower half.
fn stack_len(joining: bool) -> usize {
    if joining {
        2 * STACK
    } else {
        STACK
    }
}

/// The joiner: joins the session's user and network namespaces, clones the command into
/// mount and PID namespaces of its own as elelem's child, and exits. System calls only.
extern "C" fn joiner(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Shared`, alive until this process exits (CLONE_VFORK).
    let shared = unsafe { &*(arg as *const Shared) };
    let Some(net) = shared.request.shared_net else { return 127 };
    // SAFETY: setns on descriptors elelem holds open; the clone runs `child` on the lower
    // half of the stack, which nothing else uses, and returns once it exec'd or exited.
    unsafe {
        if libc::setns(net.user_fd(), libc::CLONE_NEWUSER) != 0 || libc::setns(net.net_fd(), libc::CLONE_NEWNET) != 0 {
            shared.error.store(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO), Ordering::SeqCst);
            shared.step.store(JOINING, Ordering::SeqCst);
            libc::_exit(127);
        }
        let top = shared.command_stack.add(STACK);
        let top = top.sub(top as usize % 16);
        let flags = libc::CLONE_VM
            | libc::CLONE_VFORK
            | libc::CLONE_PIDFD
            | libc::CLONE_PARENT
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWPID
            | libc::SIGCHLD;
        let pid = libc::clone(child, top.cast(), flags, arg, shared.pidfd.as_ptr());
        if pid < 0 {
            shared.error.store(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO), Ordering::SeqCst);
            shared.step.store(JOINING, Ordering::SeqCst);
            libc::_exit(127);
        }
        shared.command_pid.store(pid, Ordering::SeqCst);
        libc::_exit(0)
    }
}

/// The child: system calls only, on the data `arg` points to, then `execve`.
extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Shared`, alive until this process execs or exits.
    let shared = unsafe { &*(arg as *const Shared) };
    let fail = |step: i32| -> libc::c_int {
        shared.error.store(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO), Ordering::SeqCst);
        shared.step.store(step, Ordering::SeqCst);
        // SAFETY: _exit ends this process only, without running anything of elelem's.
        unsafe { libc::_exit(127) }
    };
    // SAFETY: system calls on descriptors, strings and arrays made before the clone.
    unsafe {
        default_signal_handlers();
        if shared.request.steps.mount().is_err() {
            return fail(0);
        }
        if shared.request.hidden.hide().is_err() {
            return fail(7);
        }
        if libc::dup2(shared.stdin, 0) < 0
            || libc::dup2(shared.request.output, 1) < 0
            || libc::dup2(shared.request.output, 2) < 0
        {
            return fail(1);
        }
        // No controlling terminal: a session of its own (and a process group, which the
        // PID namespace makes needless for killing it)...
        if libc::setsid() < 0 {
            return fail(2);
        }
        // ...but a job's own pseudo-terminal, when it has one.
        if shared.request.terminal && libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
            return fail(8);
        }
        if shared.request.steps.chdir().is_err() {
            return fail(3);
        }
        if super::rules::restrict_fd(shared.request.ruleset).is_err() {
            return fail(4);
        }
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) != 0 {
            return fail(5);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(shared.request.program.as_ptr(), shared.argv.as_ptr(), shared.envp.as_ptr());
    }
    fail(6)
}

/// Puts every caught signal's handler back to the default (they are elelem's code, which
/// must not run here), and SIGPIPE too (elelem ignores it; a command expects the default).
///
/// # Safety
/// In the child, with every signal blocked.
unsafe fn default_signal_handlers() {
    for signal in 1..libc::SIGRTMAX() {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut old) != 0 {
            continue;
        }
        if (old.sa_sigaction != libc::SIG_IGN && old.sa_sigaction != libc::SIG_DFL) || signal == libc::SIGPIPE {
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &new, std::ptr::null_mut());
        }
    }
}

impl Contained {
    /// The command's pid as elelem sees it.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Waits until the command exits; its status (128 + N when killed by signal N).
    pub async fn wait(&mut self) -> io::Result<i32> {
        loop {
            let mut ready = self.pidfd.readable().await?;
            if let Some(status) = reap(self.pidfd.get_ref(), libc::WNOHANG)? {
                self.reaped = true;
                return Ok(status);
            }
            ready.clear_ready();
        }
    }

    /// Reaps the command if it exited (`options`: `WNOHANG` or 0 to block).
    fn reap(&mut self, options: libc::c_int) -> io::Result<Option<i32>> {
        let reaped = reap(self.pidfd.get_ref(), options)?;
        self.reaped |= reaped.is_some();
        Ok(reaped)
    }

    /// A `Killer` for the command.
    pub fn killer(&self) -> io::Result<Killer> {
        Ok(Killer(self.pidfd.get_ref().try_clone()?))
    }

    /// Kills the command, and with it every process of its PID namespace.
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        // SAFETY: pidfd_send_signal on our open pidfd, no memory passed.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.pidfd.get_ref().as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            );
        }
    }
}

/// A copy of a contained command's pidfd: kills it (and its PID namespace) from anywhere,
/// also once it was reaped (then nothing happens: a pidfd never names another process).
#[derive(Debug)]
pub struct Killer(OwnedFd);

impl Killer {
    pub fn kill(&self) {
        // SAFETY: pidfd_send_signal on our open pidfd, no memory passed.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.0.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            );
        }
    }
}

impl Drop for Contained {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.reap(0);
        }
    }
}

/// Reaps the process of `pidfd` if it exited (`options`: `WNOHANG` or 0 to block); its
/// status (128 + N when killed by signal N).
fn reap(pidfd: &OwnedFd, options: libc::c_int) -> io::Result<Option<i32>> {
    // SAFETY: waitid writes only `info`; the pidfd is open.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::waitid(P_PIDFD, pidfd.as_raw_fd() as libc::id_t, &mut info, libc::WEXITED | options) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: waitid filled `info` (si_pid 0: nothing exited yet, with WNOHANG).
    let (pid, status) = unsafe { (info.si_pid(), info.si_status()) };
    if pid == 0 {
        return Ok(None);
    }
    Ok(Some(if info.si_code == libc::CLD_EXITED { status } else { 128 + status }))
}

/// `text` as a C string (an error when it holds a NUL byte).
pub fn c_string(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in an argument"))
}

/// Where `program` is on `PATH` (the first executable file of that name).
pub fn find_program(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}
