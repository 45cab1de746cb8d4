//! Where a tool's path arguments point: inside the project root, under a directory a
//! `paths` rule names, or outside. The path is the one the toolbox resolved for the call
//! (`paths`: `~` is home, `..` taken, symlinks followed as far as the path exists),
//! the same one the tool then opens.

#[cfg(test)]
use crate::paths::canonical;
pub use crate::paths::resolve;
use std::path::{Path, PathBuf};

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
        self.place_of(resolve(path, &self.cwd, self.home.as_deref()), allow, deny)
    }

    /// The project's protected place holding `resolved`, if any: an `.agents/` or
    /// `.claude/` folder (settings an agent loads), or anything of a repository's `.git`
    /// (its directory, or the file that points to one: the configuration, hooks,
    /// `commondir`, submodules' and worktrees' git directories there make git run code or
    /// read elsewhere, and the file tools never need to write the rest, which is git's own
    /// work), at the project's root or in any folder below it (elelem run from a subfolder
    /// reads the `.agents/` on its way up; git runs what the repository it is in says, a
    /// nested one or a submodule too), which decide what the next run of elelem or git
    /// executes. The sandbox's `PROTECTED` list is the part of these a contained command
    /// may not write.
    pub fn protected(&self, resolved: &Path) -> Option<&'static str> {
        let inside = resolved.strip_prefix(&self.root).ok()?;
        inside.iter().find_map(|name| match name.to_str() {
            Some(".agents") => Some(".agents"),
            Some(".claude") => Some(".claude"),
            Some(".git") => Some(".git"),
            _ => None,
        })
    }

    /// Where an already resolved path is.
    pub fn place_of(&self, resolved: PathBuf, allow: &[&PathBuf], deny: &[&PathBuf]) -> Place {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn places(dir: &Path) -> Places {
        let root = canonical(&dir.join("project"));
        Places { cwd: root.clone(), root, home: Some(canonical(&dir.join("home"))) }
    }

    #[test]
    fn protected_places_are_found_at_any_depth_of_the_project() {
        let places = Places { cwd: "/p".into(), root: "/p".into(), home: None };
        for path in [
            "/p/.agents/plugins/x.lua",
            "/p/.agents",
            "/p/sub/deep/.agents/permissions.json",
            "/p/.claude/settings.json",
            "/p/.git/hooks/pre-commit",
            "/p/.git/config",
            "/p/.git/commondir",
            "/p/.git/config.worktree",
            "/p/.git/info/attributes",
            "/p/.git/objects/info/alternates",
            "/p/.git/worktrees/wt/commondir",
            "/p/.git/HEAD",
            "/p/vendor/lib/.git/hooks/post-checkout",
            "/p/vendor/lib/.git/config",
            "/p/vendor/lib/.git",
            "/p/.git/modules/lib/hooks/pre-commit",
        ] {
            assert!(places.protected(Path::new(path)).is_some(), "{path}");
        }
        for path in ["/p/src/main.rs", "/p/docs/agents.md", "/p/.gitignore", "/p/.github/x", "/other/.agents/x"] {
            assert!(places.protected(Path::new(path)).is_none(), "{path}");
        }
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

    #[cfg(unix)]
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
