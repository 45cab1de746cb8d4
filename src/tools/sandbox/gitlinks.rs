//! The project's submodules as git sees them: the gitlink entries of its index (and the
//! paths `.gitmodules` names). `git status` at the project's root enters each submodule
//! that has a `.git` and runs git there, with that repository's configuration (its
//! `core.fsmonitor`, for one, is a command). So each one's `.git` is a protected path
//! (`seals::protected`), and a submodule a contained command registers while it runs is
//! looked at once it has ended (`watch.rs`). Reads the index itself: running git on the
//! user's repository is what must not happen.

use std::path::{Path, PathBuf};

/// The index's mode of a gitlink (a submodule's commit).
const GITLINK: u32 = 0o160000;

/// `<submodule>/.git` for every submodule of the repository whose work tree is `project`
/// (none when `project` holds no repository or its index cannot be read).
pub fn pointers(project: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let git = project.join(".git");
    if let Some(dir) = git_dir(&git, project) {
        let index = std::fs::read(dir.join("index")).unwrap_or_default();
        paths.extend(gitlinks(&index, hash_size(&dir)).into_iter().filter_map(|name| relative(&name)));
    }
    if let Ok(modules) = std::fs::read_to_string(project.join(".gitmodules")) {
        paths.extend(module_paths(&modules).into_iter().filter_map(|name| relative(name.as_bytes())));
    }
    paths.sort();
    paths.dedup();
    paths.into_iter().map(|path| project.join(path).join(".git")).collect()
}

/// The git directory `.git` leads to: itself, or the one a `gitdir:` file names.
fn git_dir(git: &Path, project: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(git).ok()?;
    if meta.is_dir() {
        return Some(git.to_path_buf());
    }
    let text = std::fs::read_to_string(git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(project.join(target))
}

/// 32 when the repository's objects are named by SHA-256, else 20 (SHA-1).
fn hash_size(git_dir: &Path) -> usize {
    let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let sha256 = config.lines().any(|line| {
        let line = line.trim().to_ascii_lowercase();
        line.starts_with("objectformat") && line.ends_with("sha256")
    });
    if sha256 {
        32
    } else {
        20
    }
}

/// A path of the index or `.gitmodules` as a relative path inside the work tree (`None`
/// for one that would leave it).
fn relative(name: &[u8]) -> Option<PathBuf> {
    let text = std::str::from_utf8(name).ok()?.trim_end_matches('/');
    let path = Path::new(text);
    let inside = !text.is_empty() && path.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    inside.then(|| path.to_path_buf())
}

/// The `path = …` values of a `.gitmodules` file.
fn module_paths(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "path").then(|| value.trim().trim_matches('"').to_string())
        })
        .collect()
}

/// The names of the gitlink entries of an index file (versions 2 to 4, `hash` bytes of
/// object name); what cannot be read ends the list there.
pub fn gitlinks(index: &[u8], hash: usize) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let Some(header) = index.get(..12) else { return found };
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]) as usize;
    if &header[..4] != b"DIRC" || !(2..=4).contains(&version) {
        return found;
    }
    let mut at = 12;
    let mut name: Vec<u8> = Vec::new();
    for _ in 0..count {
        let Some(entry) = read_entry(index, at, hash, version, &mut name) else { break };
        if entry.mode & 0o170000 == GITLINK {
            found.push(name.clone());
        }
        at = entry.next;
    }
    found
}

/// One entry's mode and where the next begins; `name` becomes its name.
struct Entry {
    mode: u32,
    next: usize,
}

fn read_entry(index: &[u8], at: usize, hash: usize, version: u32, name: &mut Vec<u8>) -> Option<Entry> {
    // ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the object name.
    let mode_at = at + 24;
    let mode = u32::from_be_bytes(index.get(mode_at..mode_at + 4)?.try_into().ok()?);
    let flags_at = at + 40 + hash;
    let flags = u16::from_be_bytes(index.get(flags_at..flags_at + 2)?.try_into().ok()?);
    let extended = version >= 3 && flags & 0x4000 != 0;
    let name_at = flags_at + 2 + if extended { 2 } else { 0 };
    if version == 4 {
        // The name is the previous one less its last `strip` bytes, then what follows.
        let (strip, used) = offset_varint(index.get(name_at..)?)?;
        let rest = index.get(name_at + used..)?;
        let end = rest.iter().position(|b| *b == 0)?;
        name.truncate(name.len().checked_sub(strip)?);
        name.extend_from_slice(&rest[..end]);
        return Some(Entry { mode, next: name_at + used + end + 1 });
    }
    let rest = index.get(name_at..)?;
    let end = rest.iter().position(|b| *b == 0)?;
    name.clear();
    name.extend_from_slice(&rest[..end]);
    // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
    let length = name_at - at + end;
    Some(Entry { mode, next: at + (length + 8) / 8 * 8 })
}

/// Git's offset varint (index version 4): the value and the bytes it took.
fn offset_varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut byte = *bytes.first()?;
    let mut value = (byte & 0x7f) as usize;
    while byte & 0x80 != 0 {
        used += 1;
        byte = *bytes.get(used)?;
        value = value.checked_add(1)?.checked_mul(128)? + (byte & 0x7f) as usize;
    }
    Some((value, used + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git").args(args).current_dir(dir).output().expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// A repository with two files and gitlinks at `lib` and `deep/er/mod`, its index
    /// written in `version`.
    fn repository(version: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("deep")).expect("mkdir");
        std::fs::write(root.join("a.txt"), "a").expect("write");
        std::fs::write(root.join("deep/z.txt"), "z").expect("write");
        git(root, &["add", "a.txt", "deep/z.txt"]);
        let sha = "0123456789012345678901234567890123456789";
        for path in ["lib", "deep/er/mod"] {
            git(root, &["update-index", "--add", "--cacheinfo", &format!("160000,{sha},{path}")]);
        }
        git(root, &["update-index", "--index-version", version]);
        dir
    }

    fn has_git() -> bool {
        Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
    }

    #[test]
    fn the_gitlinks_of_an_index_of_each_version_are_found() {
        if !has_git() {
            return;
        }
        for version in ["2", "3", "4"] {
            let repo = repository(version);
            let root = repo.path();
            assert_eq!(pointers(root), [root.join("deep/er/mod/.git"), root.join("lib/.git")], "version {version}");
        }
    }

    #[test]
    fn gitmodules_paths_count_and_paths_leaving_the_tree_do_not() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let modules = "[submodule \"x\"]\n\tpath = vendor/x\n\turl = ../x\n[submodule \"y\"]\n\tpath = ../outside\n";
        std::fs::write(dir.path().join(".gitmodules"), modules).expect("write");
        assert_eq!(pointers(dir.path()), [dir.path().join("vendor/x/.git")]);
    }

    #[test]
    fn a_damaged_index_gives_what_it_could_read_and_never_panics() {
        if !has_git() {
            return;
        }
        let repo = repository("2");
        let index = std::fs::read(repo.path().join(".git/index")).expect("the index");
        for cut in 0..index.len() {
            let _ = gitlinks(&index[..cut], 20);
        }
        assert!(gitlinks(b"DIRC\0\0\0\x09\xff\xff\xff\xff", 20).is_empty());
        assert_eq!(offset_varint(&[0x80, 0x01]), Some((129, 2)));
    }
}
