//! Where a tool's path arguments point: resolved the way the tool will open them
//! (relative to the working directory, `..` taken, symlinks followed as far as the path
//! exists), then inside the project root, under a directory a `paths` rule names, or
//! outside. A leading `~` is read as the home directory, whether or not the tool expands
//! it: asking once too often is the safe mistake.

use std::path::{Component, Path, PathBuf};

/// The `paths` entry of a permissions file: `{"allow": ["/tmp", "~/notes"], "deny": ["~/.ssh"]}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathRules {
    /// Directories (resolved) a tool may reach without asking.
    pub allow: Vec<PathBuf>,
    /// Directories (resolved) no tool may reach, inside the project or not.
    pub deny: Vec<PathBuf>,
}

impl PathRules {
    /// Reads `{"allow": [...], "deny": [...]}`; entries are resolved against `base`.
    pub fn parse(value: &serde_json::Value, base: &Path, home: Option<&Path>) -> Result<Self, String> {
        let object = value.as_object().ok_or(r#""paths": expected {"allow": [directories], "deny": [directories]}"#)?;
        let mut rules = PathRules::default();
        for (key, list) in object {
            let target = match key.as_str() {
                "allow" => &mut rules.allow,
                "deny" => &mut rules.deny,
                _ => return Err(format!("\"paths\": unknown key {key:?}; expected allow or deny")),
            };
            let list = list.as_array().filter(|l| l.iter().all(serde_json::Value::is_string));
            let list = list.ok_or_else(|| format!("\"paths\".{key}: expected a list of directories"))?;
            target.extend(list.iter().filter_map(serde_json::Value::as_str).map(|dir| resolve(dir, base, home)));
        }
        Ok(rules)
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}

/// Where one path argument points, for the gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Under the project root.
    Inside,
    /// Under a directory a `paths.allow` rule names.
    Allowed,
    /// Under a directory a `paths.deny` rule names.
    Denied(PathBuf),
    /// Anywhere else: asked about even for an allowed tool.
    Outside(PathBuf),
}

/// The project's root and where relative paths start.
#[derive(Clone, Debug)]
pub struct Places {
    pub root: PathBuf,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
}

impl Places {
    /// Where `path` (as a tool was given it) points. `deny` rules win over `allow` rules,
    /// and both over the project root.
    pub fn place(&self, path: &str, allow: &[&PathBuf], deny: &[&PathBuf]) -> Place {
        let resolved = resolve(path, &self.cwd, self.home.as_deref());
        if deny.iter().any(|dir| resolved.starts_with(dir)) {
            Place::Denied(resolved)
        } else if allow.iter().any(|dir| resolved.starts_with(dir)) {
            Place::Allowed
        } else if resolved.starts_with(&self.root) {
            Place::Inside
        } else {
            Place::Outside(resolved)
        }
    }
}

/// `path` made absolute against `base` (`~` against `home`), `.` and `..` taken in order,
/// and every existing prefix replaced by its canonical form, so a symlink in the project
/// that points elsewhere resolves to where it points.
pub fn resolve(path: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    resolve_within(path, base, home, 0)
}

/// Dangling symlinks followed by hand before giving up (a loop of links).
const MAX_LINKS: usize = 40;

fn resolve_within(path: &str, base: &Path, home: Option<&Path>, links: usize) -> PathBuf {
    let expanded = match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(path),
    };
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

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(dir: &Path) -> Places {
        let root = canonical(&dir.join("project"));
        Places { cwd: root.clone(), root, home: Some(canonical(&dir.join("home"))) }
    }

    fn setup() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project/src")).unwrap();
        std::fs::create_dir_all(dir.path().join("home/.ssh")).unwrap();
        dir
    }

    #[test]
    fn paths_in_the_project_are_inside() {
        let dir = setup();
        let p = places(dir.path());
        for path in ["a.txt", "src/new/deep.rs", "./src/../b", p.root.join("c").to_str().unwrap()] {
            assert_eq!(p.place(path, &[], &[]), Place::Inside, "{path}");
        }
    }

    #[test]
    fn parent_directories_absolute_paths_and_home_are_outside() {
        let dir = setup();
        let p = places(dir.path());
        let home = p.home.clone().unwrap();
        let outside = |path: &str| matches!(p.place(path, &[], &[]), Place::Outside(_));
        assert!(outside("../x"));
        assert!(outside("src/../../x"));
        assert!(outside("/tmp/elelem-x"));
        assert!(outside("~/.profile"));
        assert!(outside(home.join(".ssh/id_rsa").to_str().unwrap()));
        assert_eq!(p.place("~/.ssh/id_rsa", &[], &[]), Place::Outside(home.join(".ssh/id_rsa")));
    }

    #[test]
    fn a_symlink_in_the_project_that_points_outside_is_outside() {
        let dir = setup();
        let p = places(dir.path());
        std::os::unix::fs::symlink(dir.path().join("home"), p.root.join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("home/none"), p.root.join("dangling")).unwrap();
        assert_eq!(p.place("link/.ssh/x", &[], &[]), Place::Outside(p.home.clone().unwrap().join(".ssh/x")));
        assert_eq!(p.place("dangling", &[], &[]), Place::Outside(p.home.clone().unwrap().join("none")));
        assert_eq!(p.place("link/../x", &[], &[]), Place::Outside(canonical(dir.path()).join("x")));
        assert_eq!(p.place("link/../project/a", &[], &[]), Place::Inside, "`..` after the link, as the kernel does");
        std::os::unix::fs::symlink(p.root.join("loop"), p.root.join("loop")).unwrap();
        assert_eq!(p.place("loop", &[], &[]), Place::Inside, "a loop of links ends");
    }

    #[test]
    fn rules_name_directories_and_deny_wins() {
        let dir = setup();
        let p = places(dir.path());
        let rules = PathRules::parse(
            &serde_json::json!({"allow": ["~", "/nonexistent-elelem"], "deny": ["~/.ssh", "secrets"]}),
            &p.root,
            p.home.as_deref(),
        )
        .unwrap();
        let (allow, deny): (Vec<&PathBuf>, Vec<&PathBuf>) = (rules.allow.iter().collect(), rules.deny.iter().collect());
        assert_eq!(p.place("~/notes/a.md", &allow, &deny), Place::Allowed);
        assert!(matches!(p.place("~/.ssh/id_rsa", &allow, &deny), Place::Denied(_)));
        assert!(matches!(p.place("secrets/key", &allow, &deny), Place::Denied(_)), "inside the project too");
        assert_eq!(p.place("~2/x", &allow, &deny), Place::Inside, "~2 is a relative name");
    }

    #[test]
    fn bad_path_rules_are_named() {
        let err = |v: serde_json::Value| PathRules::parse(&v, Path::new("/"), None).unwrap_err();
        assert_eq!(
            err(serde_json::json!(["/tmp"])),
            r#""paths": expected {"allow": [directories], "deny": [directories]}"#
        );
        assert_eq!(err(serde_json::json!({"allow": "/tmp"})), r#""paths".allow: expected a list of directories"#);
        assert_eq!(err(serde_json::json!({"ask": []})), r#""paths": unknown key "ask"; expected allow or deny"#);
    }
}
