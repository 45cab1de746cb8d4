//! The network namespace the contained commands of this run share (issue 40): made once,
//! at the first contained command with the network off, in a user namespace of its own,
//! with its loopback interface up and no other, so a background server and a later client
//! meet over `127.0.0.1` while the outside network stays unreachable. elelem holds the
//! two namespaces open by descriptor (`/proc/<pid>/ns/user` and `net` of the short-lived
//! process that made them), which keeps them alive after that process exits and until
//! elelem does; each command joins them (`spawn.rs`'s joiner). Where they cannot be made
//! (no user namespaces, or the loopback cannot be raised), each command gets a network
//! namespace of its own as before.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// The shared user and network namespaces, held open.
#[derive(Debug)]
pub struct SharedNet {
    user: OwnedFd,
    net: OwnedFd,
}

impl SharedNet {
    pub fn user_fd(&self) -> RawFd {
        self.user.as_raw_fd()
    }

    pub fn net_fd(&self) -> RawFd {
        self.net.as_raw_fd()
    }
}

/// This run's shared network namespace, made at the first call (`None` where it cannot be
/// made: commands then get one each).
pub fn shared() -> Option<&'static SharedNet> {
    static SHARED: OnceLock<Option<SharedNet>> = OnceLock::new();
    SHARED.get_or_init(|| make().ok()).as_ref()
}

/// What the maker reports (shared memory: `CLONE_VM | CLONE_VFORK`).
struct Made {
    user: AtomicI32,
    net: AtomicI32,
    error: AtomicI32,
}

const STACK: usize = 16 * 1024;

fn make() -> io::Result<SharedNet> {
    let made = Made { user: AtomicI32::new(-1), net: AtomicI32::new(-1), error: AtomicI32::new(0) };
    let mut stack = vec![0u8; STACK];
    let flags = libc::CLONE_VM
        | libc::CLONE_VFORK
        | libc::CLONE_FILES
        | libc::CLONE_NEWUSER
        | libc::CLONE_NEWNET
        | libc::SIGCHLD;
    // SAFETY: the stack and `made` outlive the child (CLONE_VFORK: clone returns once it
    // exited); every signal is blocked around the call so no handler of elelem's runs in
    // it; the child only makes system calls. It shares elelem's descriptor table, so the
    // two it opens are elelem's.
    unsafe {
        let top = stack.as_mut_ptr().add(STACK);
        let top = top.sub(top as usize % 16);
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(maker, top.cast(), flags, (&made as *const Made).cast_mut().cast());
        let error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(error);
        }
        let mut status = 0;
        libc::waitpid(pid, &mut status, 0);
    }
    drop(stack);
    let take = |fd: &AtomicI32| {
        let fd = fd.load(Ordering::SeqCst);
        // SAFETY: the maker opened it in elelem's table and nothing else owns it.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
    };
    let (user, net) = (take(&made.user), take(&made.net));
    match (user, net, made.error.load(Ordering::SeqCst)) {
        (Some(user), Some(net), 0) => Ok(SharedNet { user, net }),
        (_, _, errno) => Err(io::Error::from_raw_os_error(if errno == 0 { libc::EIO } else { errno })),
    }
}

/// The maker: raises the loopback interface of its new network namespace, opens its user
/// and network namespaces (into elelem's descriptor table), exits. System calls only.
extern "C" fn maker(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is elelem's `Made`, alive until this process exits.
    let made = unsafe { &*(arg as *const Made) };
    let fail = || {
        made.error.store(io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO), Ordering::SeqCst);
        // SAFETY: _exit ends this process only.
        unsafe { libc::_exit(1) }
    };
    // SAFETY: system calls on a zeroed `ifreq` and NUL-terminated literals.
    unsafe {
        let socket = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if socket < 0 {
            return fail();
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (i, byte) in b"lo\0".iter().enumerate() {
            request.ifr_name[i] = *byte as libc::c_char;
        }
        if libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request) < 0 {
            libc::close(socket);
            return fail();
        }
        request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(socket, libc::SIOCSIFFLAGS, &request) < 0 {
            libc::close(socket);
            return fail();
        }
        libc::close(socket);
        let user = libc::open(c"/proc/self/ns/user".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if user < 0 {
            return fail();
        }
        made.user.store(user, Ordering::SeqCst);
        let net = libc::open(c"/proc/self/ns/net".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if net < 0 {
            return fail();
        }
        made.net.store(net, Ordering::SeqCst);
        libc::_exit(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The namespace is made once (its loopback, and a server and client meeting there,
    /// are tested through the binary: `tests/it/tools/jobs.rs`).
    #[test]
    fn the_shared_namespace_is_made_once() {
        if !super::super::seals::namespaces_work() {
            return;
        }
        let first = shared().expect("the shared network namespace");
        let again = shared().expect("the same namespace");
        assert_eq!(first.net_fd(), again.net_fd());
    }
}
