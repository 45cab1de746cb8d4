//! The protected paths that did not exist when a contained command started (`seals::missing`):
//! nothing can be mounted on a path that does not exist, and nothing is written to the
//! user's tree to make one, so they are looked at again once the command's processes have
//! all ended (its PID namespace is gone, so no background job can race the look): whatever
//! the command put there — a directory, a file, a symbolic or hard link, something renamed
//! into place — is removed, without following links, and the model is told.

use std::path::{Path, PathBuf};

/// The missing protected paths of one command.
pub struct Watch {
    missing: Vec<PathBuf>,
    settled: bool,
}

impl Watch {
    pub fn new(missing: Vec<PathBuf>) -> Self {
        Watch { missing, settled: false }
    }

    /// Once the command's processes have all ended: removes what it created at a watched
    /// path; the sentence for the model when it did.
    pub fn settle(&mut self) -> Option<String> {
        if std::mem::replace(&mut self.settled, true) {
            return None;
        }
        let created: Vec<&PathBuf> = self.missing.iter().filter(|p| std::fs::symlink_metadata(p).is_ok()).collect();
        if created.is_empty() {
            return None;
        }
        let mut removed = Vec::new();
        let mut kept = Vec::new();
        for path in created {
            match remove(path) {
                Ok(()) => removed.push(path.display().to_string()),
                Err(e) => kept.push(format!("{} ({e})", path.display())),
            }
        }
        let mut note = String::from("blocked by the sandbox: ");
        if !removed.is_empty() {
            note.push_str(&format!(
                "the command created {}, which a contained command may not (it decides what the next run of elelem or \
                 git executes); it was removed.",
                removed.join(", ")
            ));
        }
        if !kept.is_empty() {
            note.push_str(&format!(" Could not remove {}: tell the user.", kept.join(", ")));
        }
        Some(note)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.settle();
    }
}

/// Removes `path` without following a link: a directory with everything under it, else
/// the entry itself.
fn remove(path: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_command_created_at_a_watched_path_is_removed_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = root.join("outside");
        std::fs::create_dir_all(outside.join("keep")).unwrap();
        std::fs::write(outside.join("file"), "mine").unwrap();
        let watched: Vec<PathBuf> =
            ["a/.agents", "b/.agents", "c/config", "d/hooks"].iter().map(|p| root.join(p)).collect();
        for d in ["a", "b", "c", "d"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let mut watch = Watch::new(watched.clone());
        std::fs::create_dir_all(root.join("a/.agents/commands")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("b/.agents")).unwrap();
        std::fs::hard_link(outside.join("file"), root.join("c/config")).unwrap();
        let note = watch.settle().unwrap();
        assert!(note.starts_with("blocked by the sandbox"), "{note}");
        assert!(note.contains("a/.agents") && note.contains("c/config") && !note.contains("d/hooks"), "{note}");
        for path in &watched {
            assert!(std::fs::symlink_metadata(path).is_err(), "{path:?}");
        }
        assert_eq!(std::fs::read_to_string(outside.join("file")).unwrap(), "mine");
        assert!(outside.join("keep").is_dir());
        assert_eq!(watch.settle(), None, "once");
        assert_eq!(Watch::new(watched).settle(), None, "nothing created");
    }
}
