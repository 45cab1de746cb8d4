//! Where an `elelem mcp` call may work: the allowed roots (the server's directory and
//! the `--root` folders it was started with) and the check that a call's `cwd` lies
//! inside one of them, after symlinks are resolved (a link inside a root that points out
//! of it is outside).

use std::path::{Path, PathBuf};

/// The folders calls may work in, resolved once at start.
#[derive(Clone, Debug)]
pub struct Roots {
    /// The server's own directory: a call without `cwd` works there, and a relative
    /// `cwd` is read from there.
    home: PathBuf,
    allowed: Vec<PathBuf>,
}

/// Why a `cwd` was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RootError {
    #[error("cwd {0} is not a directory")]
    NotADirectory(String),
    #[error("cwd {cwd} is outside the allowed roots ({roots}); start `elelem mcp --root DIR` to allow another")]
    Outside { cwd: String, roots: String },
    #[error("--root {0} is not a directory")]
    BadRoot(String),
}

impl Roots {
    /// The server's directory and the extra roots, each resolved (a root that is not a
    /// directory is refused at start, not on the first call).
    pub fn new(home: &Path, extra: &[PathBuf]) -> Result<Roots, RootError> {
        let resolve = |path: &Path| {
            let path = if path.is_absolute() { path.to_path_buf() } else { home.join(path) };
            path.canonicalize()
                .ok()
                .filter(|p| p.is_dir())
                .ok_or_else(|| RootError::BadRoot(path.display().to_string()))
        };
        let home = resolve(home)?;
        let mut allowed = vec![home.clone()];
        for root in extra {
            allowed.push(resolve(root)?);
        }
        Ok(Roots { home, allowed })
    }

    /// The directory a call works in: `cwd` (absolute, or relative to the server's
    /// directory) resolved, when it is inside an allowed root; the server's directory
    /// without one.
    pub fn resolve(&self, cwd: Option<&str>) -> Result<PathBuf, RootError> {
        let Some(cwd) = cwd else { return Ok(self.home.clone()) };
        let asked = Path::new(cwd);
        let joined = if asked.is_absolute() { asked.to_path_buf() } else { self.home.join(asked) };
        let shown = || joined.display().to_string();
        let real =
            joined.canonicalize().ok().filter(|p| p.is_dir()).ok_or_else(|| RootError::NotADirectory(shown()))?;
        if self.allowed.iter().any(|root| real.starts_with(root)) {
            Ok(real)
        } else {
            let roots: Vec<String> = self.allowed.iter().map(|r| r.display().to_string()).collect();
            Err(RootError::Outside { cwd: shown(), roots: roots.join(", ") })
        }
    }

    /// Whether `dir` (absolute, as a session file records it) is inside an allowed root.
    pub fn allows(&self, dir: &str) -> bool {
        Path::new(dir).is_absolute() && self.resolve(Some(dir)).is_ok()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_cwd_must_resolve_inside_a_root() {
        let tree = tempfile::tempdir().unwrap();
        let base = tree.path().canonicalize().unwrap();
        for dir in ["server/sub", "extra", "elsewhere"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        std::os::unix::fs::symlink(base.join("elsewhere"), base.join("server/link")).unwrap();
        let roots = Roots::new(&base.join("server"), &[base.join("extra")]).unwrap();
        assert_eq!(roots.resolve(None).unwrap(), base.join("server"));
        assert_eq!(roots.resolve(Some("sub")).unwrap(), base.join("server/sub"));
        assert_eq!(roots.resolve(Some(base.join("extra").to_str().unwrap())).unwrap(), base.join("extra"));
        let outside = roots.resolve(Some(base.join("elsewhere").to_str().unwrap()));
        assert!(matches!(outside, Err(RootError::Outside { .. })), "{outside:?}");
        assert!(matches!(roots.resolve(Some("link")), Err(RootError::Outside { .. })));
        assert!(matches!(roots.resolve(Some("../server/../elsewhere")), Err(RootError::Outside { .. })));
        assert!(matches!(roots.resolve(Some("missing")), Err(RootError::NotADirectory(_))));
        assert!(roots.allows(base.join("server/sub").to_str().unwrap()));
        assert!(!roots.allows(base.join("elsewhere").to_str().unwrap()) && !roots.allows("sub"));
        assert!(matches!(Roots::new(&base.join("server"), &[base.join("nope")]), Err(RootError::BadRoot(_))));
    }
}
