//! Finding skills: each `<folder>/<name>/SKILL.md` under the skills folders, its front
//! matter checked (`name`: lowercase letters, digits and hyphens, equal to the folder's
//! name, at most 64 characters; `description`: not empty, at most 1024). The first skill of
//! a name wins (the project's nearest folder first). Bad files are kept as problems with
//! their file and line. Every `SKILL.md` is read through `shared_dirs::Guard` (here and by
//! the `skill` tool): a regular file only, never from a directory `paths.deny` names, and
//! a project's skill never through a link out of the project (a symlinked skill folder).

use super::super::front_matter;
use super::super::shared_dirs::{self, Folder, Guard};
use std::path::{Path, PathBuf};

/// A `SKILL.md` is read only up to this size.
pub const SKILL_FILE_CAP: u64 = 256 * 1024;
/// Entries looked at in one skills folder at most (before any `stat`).
const SKILLS_PER_FOLDER: usize = 500;
const NAME_MAX: usize = 64;
const DESCRIPTION_MAX: usize = 1024;

#[derive(Clone, Debug)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The skill's folder (its scripts and references are there).
    pub folder: PathBuf,
    /// Whether it came from the project (or the user's home).
    pub project: bool,
}

impl Skill {
    pub fn file(&self) -> PathBuf {
        self.folder.join("SKILL.md")
    }
}

/// What one look around found.
#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    pub skills: Vec<Skill>,
    /// `path:line: what is wrong` for each skipped file.
    pub problems: Vec<String>,
    /// How a `SKILL.md` is read.
    pub guard: Guard,
}

impl Catalogue {
    pub fn find(cwd: &Path, root: &Path, home: Option<&Path>, guard: Guard) -> Catalogue {
        let mut catalogue = Catalogue { guard, ..Catalogue::default() };
        for folder in shared_dirs::folders("skills", cwd, root, home) {
            catalogue.scan(&folder);
        }
        catalogue
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    fn scan(&mut self, folder: &Folder) {
        let Ok(entries) = std::fs::read_dir(&folder.path) else { return };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .take(SKILLS_PER_FOLDER)
            .map(|e| e.path())
            .filter(|p| p.join("SKILL.md").exists())
            .collect();
        dirs.sort();
        for dir in dirs {
            match load(&dir, &self.guard, folder.project) {
                Ok((name, description)) => {
                    if self.get(&name).is_none() {
                        self.skills.push(Skill { name, description, folder: dir, project: folder.project });
                    }
                }
                Err(problem) => self.problems.push(problem),
            }
        }
    }
}

/// The skill's name and description, or `path:line: problem`.
fn load(dir: &Path, guard: &Guard, project: bool) -> Result<(String, String), String> {
    let file = dir.join("SKILL.md");
    let at = |line: usize, message: &str| format!("{}:{line}: {message}", file.display());
    let text = guard.read(&file, project, SKILL_FILE_CAP)?;
    let doc = front_matter::parse(&text).map_err(|e| at(e.line, &e.message))?;
    if !doc.has_front_matter {
        return Err(at(1, "no front matter (`---` with name and description)"));
    }
    let line_of =
        |key: &str| text.lines().position(|l| l.trim_start().starts_with(&format!("{key}:"))).map_or(1, |i| i + 1);
    let name = doc.get("name").unwrap_or_default().trim().to_string();
    let folder_name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if name.is_empty() {
        return Err(at(1, "front matter has no `name`"));
    }
    if !valid_name(&name) {
        return Err(at(
            line_of("name"),
            &format!("name {name:?}: only lowercase letters, digits and hyphens, at most {NAME_MAX}"),
        ));
    }
    if name != folder_name {
        return Err(at(line_of("name"), &format!("name {name:?} differs from its folder {folder_name:?}")));
    }
    let description = doc.get("description").unwrap_or_default().trim().to_string();
    if description.is_empty() {
        return Err(at(1, "front matter has no `description`"));
    }
    if description.chars().count() > DESCRIPTION_MAX {
        return Err(at(line_of("description"), &format!("description longer than {DESCRIPTION_MAX} characters")));
    }
    Ok((name, description))
}

/// Lowercase letters, digits and single inner hyphens, 1 to 64 characters.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(valid_name("pdf-forms2"));
        for bad in ["", "PDF", "a_b", "-a", "a-", "a--b", "../x", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
