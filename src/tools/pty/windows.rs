//! No pseudo-terminal for a job on Windows (ConPTY is not used): `open` says so.

use std::io;
use std::os::windows::io::OwnedHandle;

/// Always an error: a job with `"pty": true` cannot run on Windows.
pub fn open() -> io::Result<(OwnedHandle, OwnedHandle)> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "a job with a terminal of its own (\"pty\": true) is not available on Windows; run it without \"pty\"",
    ))
}

/// Nothing to do: `open` never gives a terminal on Windows.
pub fn make_controlling(_cmd: &mut tokio::process::Command, _setsid: bool) {}
