//! The paths a contained command may not read, resolved before they become holes of the
//! Landlock grant (issue 37). Landlock grants inodes, and the grant walks the real tree
//! from `/` (`rules::cover`), so a hole must be named by its real path: with `$HOME` under
//! a symlinked `/home` (Fedora Atomic's `/var/home`, automounted NFS homes) or `~/.ssh`
//! linked into a dotfiles repository, a hole named through the link would leave the real
//! directory granted. Each path is resolved as far as it exists, links followed (a dangling
//! link to its target), the rest joined on.
//!
//! What is unreadable: the user's `SECRETS` under the (resolved) home directory, every entry
//! but `skills/` of the agents' settings folders there (`SETTINGS_DIRS`: elelem's own
//! `~/.agents`, whose `mcp.json` and `hooks.json` may hold tokens), and the settings'
//! unreadable paths (elelem's data directory, `paths.deny`, `sandbox.unreadable`).

use super::{SECRETS, SETTINGS_DIRS, SKILLS};
use std::path::{Path, PathBuf};

/// How many links a dangling one may lead through before the rest is taken as it is.
const LINKS: usize = 8;

/// `path` resolved as far as it exists (see the module doc); absolute paths only, as
/// given (a relative one is returned unchanged).
pub fn resolve(path: &Path) -> PathBuf {
    resolve_in(path, LINKS)
}

fn resolve_in(path: &Path, links: usize) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    // A dangling link: where it points, which the user may create later.
    if links > 0 {
        if let Ok(target) = std::fs::read_link(path) {
            let target = match path.parent() {
                Some(parent) if target.is_relative() => parent.join(target),
                _ => target,
            };
            return resolve_in(&target, links - 1);
        }
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if parent != path => resolve_in(parent, links).join(name),
        _ => path.to_path_buf(),
    }
}

/// The paths no contained command may read, resolved: the user's secrets and settings
/// folders under `home`, then `extra`. Also the settings folders that were listed, whose
/// later changes (a new `mcp.json`) make grants built from this list stale.
pub fn unreadable(home: Option<&Path>, extra: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut paths = Vec::new();
    let mut listed = Vec::new();
    if let Some(home) = home {
        let home = resolve(home);
        paths.extend(SECRETS.iter().map(|secret| resolve(&home.join(secret))));
        for dir in SETTINGS_DIRS {
            let dir = resolve(&home.join(dir));
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            listed.push(dir.clone());
            for entry in entries.flatten() {
                if entry.file_name() != SKILLS {
                    paths.push(resolve(&entry.path()));
                }
            }
        }
    }
    paths.extend(extra.iter().map(|p| resolve(p)));
    (paths, listed)
}

/// The user's home directory, resolved (`$HOME`, when set and not empty).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| resolve(Path::new(&h)))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn paths_resolve_through_links_as_far_as_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("var/home/u/.ssh")).unwrap();
        symlink(root.join("var/home"), root.join("home")).unwrap();
        assert_eq!(resolve(&root.join("home/u/.ssh")), root.join("var/home/u/.ssh"));
        assert_eq!(resolve(&root.join("home/u/.npmrc")), root.join("var/home/u/.npmrc"), "missing: joined on");
        assert_eq!(resolve(&root.join("home/u/.config/gh")), root.join("var/home/u/.config/gh"));
        symlink(root.join("dotfiles/npmrc"), root.join("var/home/u/.npmrc")).unwrap();
        assert_eq!(resolve(&root.join("home/u/.npmrc")), root.join("dotfiles/npmrc"), "a dangling link: its target");
        symlink(root.join("loop"), root.join("loop")).unwrap();
        assert!(resolve(&root.join("loop")).starts_with(&root), "a loop of links ends");
    }

    #[test]
    fn every_entry_of_the_agents_settings_folders_is_unreadable_but_skills() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real");
        for d in [".agents/skills/pdf", ".agents/plugins", ".claude/skills", ".codex", "dotfiles"] {
            std::fs::create_dir_all(real.join(d)).unwrap();
        }
        std::fs::write(real.join(".agents/mcp.json"), "{}").unwrap();
        std::fs::write(real.join("dotfiles/hooks.json"), "{}").unwrap();
        symlink(real.join("dotfiles/hooks.json"), real.join(".agents/hooks.json")).unwrap();
        std::fs::write(real.join(".claude/.credentials.json"), "{}").unwrap();
        std::fs::write(real.join(".codex/auth.json"), "{}").unwrap();
        let link = dir.path().join("link-to-home");
        symlink(&real, &link).unwrap();
        let denied = real.join("private");
        let (paths, listed) = unreadable(Some(&link), std::slice::from_ref(&denied));
        for path in [
            ".ssh",
            ".config/gh",
            ".cargo/credentials.toml",
            ".bash_history",
            ".agents/mcp.json",
            ".agents/plugins",
            "dotfiles/hooks.json",
            ".claude/.credentials.json",
            ".codex/auth.json",
            "private",
        ] {
            assert!(paths.contains(&real.join(path)), "{path}: {paths:?}");
        }
        assert!(!paths.iter().any(|p| p.ends_with("skills") || p.starts_with(&link)), "{paths:?}");
        assert_eq!(listed, vec![real.join(".agents"), real.join(".claude"), real.join(".codex")]);
    }
}
