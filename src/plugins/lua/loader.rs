//! Where plugin files are: `~/.agents/plugins/*.lua`, then `.agents/plugins/*.lua`, each
//! folder in file-name order. The project folder is read only in a trusted project; the
//! caller decides trust.

use crate::plugins::trust::ProjectTrust;
use std::path::{Path, PathBuf};

/// The two plugin folders and whether the project's may load.
#[derive(Clone, Debug)]
pub struct Folders {
    /// `~/.agents/plugins` (none without a home directory).
    pub user: Option<PathBuf>,
    /// `.agents/plugins` in the project.
    pub project: PathBuf,
    /// Asked at each scan: trusting the project and `/reload` loads its files.
    pub trust: ProjectTrust,
}

/// The files to load, and the project files left out because the project is not trusted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub files: Vec<PathBuf>,
    pub skipped: Vec<PathBuf>,
}

impl Folders {
    pub fn new(home: Option<&Path>, project_root: &Path, trusted_project: bool) -> Self {
        Self::with_trust(home, project_root, ProjectTrust::fixed(trusted_project))
    }

    pub fn with_trust(home: Option<&Path>, project_root: &Path, trust: ProjectTrust) -> Self {
        Folders {
            user: home.map(|h| h.join(".agents").join("plugins")),
            project: project_root.join(".agents").join("plugins"),
            trust,
        }
    }

    pub fn scan(&self) -> Found {
        let mut found = Found::default();
        if let Some(user) = &self.user {
            found.files.extend(lua_files(user));
        }
        // The same folder twice (elelem started in the home directory) loads once.
        if self.user.as_deref() != Some(self.project.as_path()) {
            let project = lua_files(&self.project);
            if self.trust.is_trusted() {
                found.files.extend(project);
            } else {
                found.skipped = project;
            }
        }
        found
    }
}

/// `*.lua` regular files in `dir`, by file name; nothing when the folder is missing.
fn lua_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "lua") && path.is_file())
        .collect();
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, names: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        for name in names {
            std::fs::write(dir.join(name), "").unwrap();
        }
    }

    #[test]
    fn user_files_come_first_each_folder_by_name_and_untrusted_project_files_are_skipped() {
        let root = tempfile::tempdir().unwrap();
        let (home, project) = (root.path().join("home"), root.path().join("project"));
        write(&home.join(".agents/plugins"), &["b.lua", "a.lua", "notes.txt"]);
        write(&project.join(".agents/plugins"), &["c.lua"]);
        let names = |files: &[PathBuf]| -> Vec<String> {
            files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect()
        };
        let trusted = Folders::new(Some(&home), &project, true).scan();
        assert_eq!(names(&trusted.files), ["a.lua", "b.lua", "c.lua"]);
        assert!(trusted.skipped.is_empty());
        let untrusted = Folders::new(Some(&home), &project, false).scan();
        assert_eq!(names(&untrusted.files), ["a.lua", "b.lua"]);
        assert_eq!(names(&untrusted.skipped), ["c.lua"]);
    }
}
