//! Where the sandbox never starts a command itself (macOS, where the caller runs it through
//! `contain`; Windows, where nothing is contained): `start` says `None`, and `Started` and
//! `Killer` name nothing that can exist.

use super::Io;
use std::ffi::OsString;
use std::path::Path;

/// A command `start` started: none here.
pub enum Started {}

impl Started {
    pub fn pid(&self) -> i32 {
        match *self {}
    }

    pub fn killer(&self) -> std::io::Result<Killer> {
        match *self {}
    }

    pub async fn wait(&mut self) -> std::io::Result<i32> {
        match *self {}
    }

    pub fn kill(&mut self) {
        match *self {}
    }

    pub fn settle(&mut self) -> Option<String> {
        match *self {}
    }
}

/// Kills a started command from anywhere: none here.
pub enum Killer {}

impl Killer {
    pub fn kill(&self) {
        match *self {}
    }
}

/// No command starts outside a `Command` here: the caller runs it through `contain`.
pub fn start(
    _command: &str,
    _project: &Path,
    _cwd: Option<&str>,
    _removed: &[OsString],
    _io: &Io,
) -> anyhow::Result<Option<Started>> {
    Ok(None)
}
