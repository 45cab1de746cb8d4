//! No sandbox on Windows: `available` is false, so `execute` is never contained and every
//! command is asked about; `start` starts nothing (`unstarted.rs`), `contain` refuses.
//! There is no temp directory of the sandbox's own (`temp`).

use std::path::Path;

/// A command cannot be contained on Windows: an error, never a silent unsandboxed run.
pub fn contain(_cmd: &mut tokio::process::Command, _project: &Path, _cwd: Option<&str>) -> anyhow::Result<()> {
    anyhow::bail!("no sandbox on Windows: the command was not run")
}

/// Commands are never contained on Windows.
pub fn available() -> bool {
    false
}

/// Why commands cannot be contained here, in a few words.
pub fn unavailable_why() -> String {
    "no sandbox on Windows".to_string()
}

/// The sandbox's temp directory: none on Windows, where nothing runs contained.
pub mod temp {
    use std::path::{Path, PathBuf};

    /// None is made on Windows.
    pub fn dir(_project: &Path) -> Option<PathBuf> {
        None
    }

    /// None was made.
    pub fn current() -> Option<PathBuf> {
        None
    }

    /// Nothing to remove.
    pub fn remove() {}
}
