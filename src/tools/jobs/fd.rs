//! Reading a job's output and writing its input through non-blocking descriptors on the
//! runtime (a pipe's end, or a terminal's master: there, EIO once the job's side is all
//! closed means the end, as end of file does on a pipe).
//! On Windows (`fd/windows.rs`) a pipe's handle is read or written by a thread of its own.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::Fd;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::Fd;
