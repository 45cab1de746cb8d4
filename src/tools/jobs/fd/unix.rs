//! A job's descriptors on Unix: non-blocking, polled by the runtime (`AsyncFd`).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

pub struct Fd(AsyncFd<OwnedFd>);

impl Fd {
    /// `fd` made non-blocking, on the runtime.
    pub fn new(fd: OwnedFd) -> io::Result<Self> {
        // SAFETY: fcntl on an open descriptor we own.
        unsafe {
            let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // SAFETY: the descriptor is owned by the AsyncFd, open and the same for its whole life.
        let registered = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE | Interest::WRITABLE) };
        Ok(Fd(registered?))
    }

    /// Reads once; 0 at the end (end of file, or EIO on a terminal's master).
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut ready = self.0.readable().await?;
            // SAFETY: read(2) into our buffer of its length.
            let n = unsafe { libc::read(self.0.get_ref().as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::EAGAIN) => ready.clear_ready(),
                Some(libc::EINTR) => {}
                Some(libc::EIO) => return Ok(0),
                _ => return Err(error),
            }
        }
    }

    /// Writes all of `bytes`, for at most `limit`; how many were written (fewer when the
    /// job did not read them in time).
    pub async fn write_all(&self, bytes: &[u8], limit: Duration) -> io::Result<usize> {
        let mut written = 0;
        let write = async {
            while written < bytes.len() {
                let mut ready = self.0.writable().await?;
                let rest = &bytes[written..];
                // SAFETY: write(2) from our slice of its length.
                let n = unsafe { libc::write(self.0.get_ref().as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
                if n >= 0 {
                    written += n as usize;
                    continue;
                }
                let error = io::Error::last_os_error();
                match error.raw_os_error() {
                    Some(libc::EAGAIN) => ready.clear_ready(),
                    Some(libc::EINTR) => {}
                    _ => return Err(error),
                }
            }
            Ok::<(), io::Error>(())
        };
        let done = tokio::time::timeout(limit, write).await;
        match done {
            Ok(Err(error)) => Err(error),
            _ => Ok(written),
        }
    }
}
