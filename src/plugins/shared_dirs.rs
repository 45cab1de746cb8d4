//! Where files written for other agents live (`.agents/<kind>/`, `.claude/<kind>/`): the
//! project's folders from the working directory up to the project root, nearest first,
//! then the user's in the home directory; and a careful read of one such file (regular
//! files only, so a FIFO never blocks, and at most a cap of bytes).

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// A folder to look in and whether it belongs to the project (or the user).
#[derive(Clone, Debug, PartialEq)]
pub struct Folder {
    pub path: PathBuf,
    pub project: bool,
}

/// The `.agents/<kind>` and `.claude/<kind>` folders that exist, project ones first
/// (nearest the working directory first), then the home ones.
pub fn folders(kind: &str, cwd: &Path, root: &Path, home: Option<&Path>) -> Vec<Folder> {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut found = Vec::new();
    let mut add = |dir: &Path, project: bool| {
        for base in [".agents", ".claude"] {
            // A project's folder the sandbox could not clean up is never read.
            if project && super::trust::refusal(&dir.join(base)).is_some() {
                continue;
            }
            let path = dir.join(base).join(kind);
            if path.is_dir() && !found.iter().any(|f: &Folder| f.path == path) {
                found.push(Folder { path, project });
            }
        }
    };
    for dir in cwd.ancestors() {
        if home.is_some_and(|h| h == dir) {
            break; // the home folder's own `.agents/` is the user's, not the project's
        }
        add(dir, true);
        if dir == root {
            break;
        }
    }
    if let Some(home) = home {
        let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        add(&home, false);
    }
    found
}

/// Reads a regular file (following symlinks) of at most `cap` bytes; longer is an error,
/// as is anything that is not a regular file.
pub fn read_small(path: &Path, cap: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > cap {
        return Err(format!("{}: larger than {cap} bytes", path.display()));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > cap {
        return Err(format!("{}: larger than {cap} bytes", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// The user's home directory (`$HOME`, when set and not empty).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}
