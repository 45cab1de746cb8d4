//! Where files written for other agents live (`.agents/<kind>/`, `.claude/<kind>/`): the
//! project's folders from the working directory up to the project root, nearest first
//! (but those refused because a sandboxed command made them, `trust::refusal`), then the
//! user's in the home directory; and `Guard`, the careful read of one such file,
//! whose text reaches the model (through `safe_file`: a regular file only, so a FIFO never
//! blocks, at most a cap of bytes, never from a directory `paths.deny` names, and a
//! project's file never through a link out of the project).

use super::permissions::RuleSet;
use super::trust::project_agents;
use crate::safe_file::Reading;
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

/// How the files in these folders are read: the bounds `safe_file` checks, with the
/// project's root and `paths.deny`.
#[derive(Clone, Debug, Default)]
pub struct Guard {
    /// The project's root: a project folder's file may not lead out of it.
    pub root: PathBuf,
    /// The directories `paths.deny` names (the user's and the project's, canonical).
    pub deny: Vec<PathBuf>,
}

impl Guard {
    /// The guard for a session in `cwd`: `paths.deny` as the permissions gate reads it
    /// (the user's `~/.agents/permissions.json` and the project's, trusted or not), so a
    /// command or a skill can send the model nothing the tools may not read.
    pub fn load(cwd: &Path, root: &Path, home: Option<&Path>) -> anyhow::Result<Guard> {
        let mut deny = Vec::new();
        if let Some(home) = home {
            deny.extend(RuleSet::load(home, root, Some(home))?.paths.deny);
        }
        if project_agents(cwd, home).is_some() {
            deny.extend(RuleSet::load(cwd, root, home)?.paths.deny);
        }
        Ok(Guard { root: root.to_path_buf(), deny })
    }

    /// Reads a regular file of at most `cap` bytes as text (links followed, but for a
    /// project's file, `project`, only within the project); longer is an error, as is
    /// anything that is not a regular file or is under a denied directory. The error
    /// names the file.
    pub fn read(&self, path: &Path, project: bool, cap: u64) -> Result<String, String> {
        let reading = Reading::capped(cap).denying(&self.deny);
        let reading = if project { reading.within(&self.root) } else { reading };
        reading.text(path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The user's home directory (`$HOME`, when set and not empty).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}
