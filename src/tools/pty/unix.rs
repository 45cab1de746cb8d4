//! Pseudo-terminals on Unix: `/dev/ptmx`, `TIOCGPTPEER` (Linux) or `ptsname`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::{COLUMNS, ROWS};

/// A new pseudo-terminal: its master (non-blocking) and its slave, both closed at exec.
pub fn open() -> io::Result<(OwnedFd, OwnedFd)> {
    // SAFETY: posix_openpt returns a new descriptor we own, or -1.
    let master = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
    if master < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: it was just opened and nothing else owns it.
    let master = unsafe { OwnedFd::from_raw_fd(master) };
    let fd = master.as_raw_fd();
    // SAFETY: calls on our open master; `open_slave` opens its slave.
    unsafe {
        if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
            return Err(io::Error::last_os_error());
        }
        let slave = open_slave(fd);
        if slave < 0 {
            return Err(io::Error::last_os_error());
        }
        let slave = OwnedFd::from_raw_fd(slave);
        let size = libc::winsize { ws_row: ROWS, ws_col: COLUMNS, ws_xpixel: 0, ws_ypixel: 0 };
        libc::ioctl(slave.as_raw_fd(), libc::TIOCSWINSZ, &size);
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((master, slave))
    }
}

/// Makes `cmd`'s child take its stdin, a terminal's slave, as its controlling terminal,
/// in a session of its own (`setsid`, unless the sandbox makes the session already).
pub fn make_controlling(cmd: &mut tokio::process::Command, setsid: bool) {
    // SAFETY: between fork and exec the closure only makes system calls (setsid,
    // ioctl) on the child's own descriptors; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if setsid && libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Opens the slave of the master `fd`: `TIOCGPTPEER`, without a path.
///
/// # Safety
/// `fd` is an open, unlocked master.
#[cfg(target_os = "linux")]
unsafe fn open_slave(fd: libc::c_int) -> libc::c_int {
    libc::ioctl(fd, libc::TIOCGPTPEER, libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC)
}

/// Opens the slave of the master `fd` by its name (macOS has no `TIOCGPTPEER`).
///
/// # Safety
/// `fd` is an open, unlocked master (`ptsname`'s shared buffer is read under a lock).
#[cfg(not(target_os = "linux"))]
unsafe fn open_slave(fd: libc::c_int) -> libc::c_int {
    static PTSNAME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _held = PTSNAME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let name = libc::ptsname(fd);
    if name.is_null() {
        return -1;
    }
    libc::open(name, libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slave_is_a_terminal_of_the_given_size() {
        let (_master, slave) = open().unwrap();
        // SAFETY: isatty and TIOCGWINSZ on an open descriptor.
        let (tty, size) = unsafe {
            let mut size: libc::winsize = std::mem::zeroed();
            (libc::isatty(slave.as_raw_fd()), (libc::ioctl(slave.as_raw_fd(), libc::TIOCGWINSZ, &mut size), size))
        };
        assert_eq!(tty, 1);
        assert_eq!((size.0, size.1.ws_col, size.1.ws_row), (0, COLUMNS, ROWS));
    }
}
