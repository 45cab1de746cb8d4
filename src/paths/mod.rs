//! Path safety, a ground-floor module (it imports only `safe_file`): where a path a tool
//! was given points (this file) and opening it without following a symlink on the way
//! (`no_follow`). The kernel's toolbox, the tools, the permissions gate, the checkpoints,
//! `@` mentions and the session files all use it.
//!
//! Where a path points is worked out once per call: the toolbox resolves each argument a
//! tool declares with `Tool::touches_paths` before any hook runs, and the permissions
//! gate, the checkpoints and the tool itself all use that one answer
//! (`ToolContext::path`), so what was checked is what is opened.
//!
//! Resolving: a leading `~` (alone or `~/…`) is the home directory, for the tools as for
//! the rules; other paths are made absolute against the working directory; `.` and `..`
//! are taken in order; and every existing prefix is replaced by its canonical form (a
//! symlink resolves to where it points, a dangling one is followed by hand), so the
//! result names the file the call really reaches, with no symlink left in what exists.

pub mod no_follow;

use std::path::{Component, Path, PathBuf};

/// A path argument of one call: the argument, the text the model gave, and where it
/// points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedPath {
    pub arg: String,
    pub given: String,
    pub real: PathBuf,
}

/// The home directory (`$HOME`, when set and not empty).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// Where paths given to tools start: the process's working directory.
pub fn working_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// `path` with a leading `~` (alone or before `/`) replaced by `home`; `~user` and `~2`
/// are names like any other.
pub fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(path),
    }
}

/// `path` made absolute against `base` (`~` against `home`), `.` and `..` taken in order,
/// and every existing prefix replaced by its canonical form, so a symlink that points
/// elsewhere resolves to where it points.
pub fn resolve(path: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    resolve_within(path, base, home, 0)
}

/// `path` made absolute against `base` (`~` against `home`) with `.` and `..` taken, the
/// file system not consulted: what the path says before any symlink is followed.
pub fn lexical(path: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    let expanded = expand_home(path, home);
    let mut out = if expanded.is_absolute() { PathBuf::from("/") } else { base.to_path_buf() };
    for component in expanded.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// Dangling symlinks followed by hand before giving up (a loop of links).
const MAX_LINKS: usize = 40;

fn resolve_within(path: &str, base: &Path, home: Option<&Path>, links: usize) -> PathBuf {
    let expanded = expand_home(path, home);
    let mut resolved = if expanded.is_absolute() { PathBuf::from("/") } else { canonical(base) };
    let mut exists = true;
    for component in expanded.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => resolved = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                if exists {
                    match std::fs::canonicalize(&resolved) {
                        Ok(real) => resolved = real,
                        // A dangling symlink still points somewhere: follow it by hand.
                        Err(_) => match std::fs::read_link(&resolved) {
                            Ok(target) if links < MAX_LINKS => {
                                resolved.pop();
                                let target = target.to_string_lossy().into_owned();
                                resolved = resolve_within(&target, &resolved, None, links + 1);
                                exists = false;
                            }
                            _ => exists = false,
                        },
                    }
                }
            }
        }
    }
    resolved
}

/// `path` in canonical form, or as it is when it cannot be (it does not exist).
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilde_is_home_only_alone_or_before_a_slash() {
        let home = Path::new("/h");
        assert_eq!(expand_home("~", Some(home)), PathBuf::from("/h/"));
        assert_eq!(expand_home("~/x", Some(home)), PathBuf::from("/h/x"));
        assert_eq!(expand_home("~x/y", Some(home)), PathBuf::from("~x/y"));
        assert_eq!(expand_home("./~/x", Some(home)), PathBuf::from("./~/x"));
        assert_eq!(expand_home("~/x", None), PathBuf::from("~/x"));
    }

    #[test]
    fn lexical_takes_dots_without_looking() {
        assert_eq!(lexical("a/./b/../c", Path::new("/p"), None), PathBuf::from("/p/a/c"));
        assert_eq!(lexical("/x/../y", Path::new("/p"), None), PathBuf::from("/y"));
        assert_eq!(lexical("~/k", Path::new("/p"), Some(Path::new("/h"))), PathBuf::from("/h/k"));
    }
}
