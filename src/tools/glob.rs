//! The `glob` tool: files whose path matches a glob pattern, under a directory, skipping
//! what `.gitignore` (and `.ignore`) exclude. `PathGlob` is shared with `grep`'s filter.

use crate::agent::{Tool, ToolContext};
use globset::{GlobBuilder, GlobMatcher};
use serde_json::{json, Value};
use std::path::Path;

/// Paths returned at most.
pub const GLOB_CAP: usize = 1000;

pub fn tool() -> Tool {
    Tool::builtin(
        "glob",
        "Find files by glob, .gitignored ones skipped; sorted paths. Without `/` a pattern \
         matches names anywhere (`*.{js,ts}`), with `/` the path under `path` (`src/**/*.rs`).",
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        glob,
    )
    .with_aliases(&["find", "find_files"])
    .read_only()
    .summarized_by("pattern")
    .touches_paths(&["path"])
}

/// A glob matched against a file name (pattern without `/`) or a relative path.
pub struct PathGlob {
    matcher: GlobMatcher,
    by_name: bool,
}

impl PathGlob {
    pub fn new(pattern: &str) -> Result<Self, String> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob pattern {pattern:?}: {}", e.kind()))?;
        Ok(PathGlob { matcher: glob.compile_matcher(), by_name: !pattern.contains('/') })
    }

    /// Whether `relative` (a path under the search root) matches.
    pub fn is_match(&self, relative: &Path) -> bool {
        if self.by_name {
            relative.file_name().is_some_and(|name| self.matcher.is_match(name))
        } else {
            self.matcher.is_match(relative)
        }
    }
}

async fn glob(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let pattern = super::str_arg(&args, "pattern")?.to_string();
    let root = super::walk_root(&args, &ctx);
    ctx.blocking(move || find(&pattern, &root)).await
}

fn find(pattern: &str, root: &str) -> Value {
    let glob = match PathGlob::new(pattern) {
        Ok(glob) => glob,
        Err(message) => return json!({"error": message}),
    };
    if let Err(message) = super::check_dir(root) {
        return json!({"error": message});
    }
    let mut paths = Vec::new();
    for entry in super::walker(Path::new(root)).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if glob.is_match(relative) {
            paths.push(super::shown(root, entry.path()));
        }
    }
    paths.sort();
    let count = paths.len();
    let mut result = json!({"paths": paths.iter().take(GLOB_CAP).collect::<Vec<_>>(), "count": count});
    if count > GLOB_CAP {
        result["note"] = json!(format!(
            "showing the first {GLOB_CAP} of {count} paths; {} left out. Narrow the pattern or path.",
            count - GLOB_CAP
        ));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_without_slash_matches_names_anywhere() {
        let glob = PathGlob::new("*.rs").unwrap();
        assert!(glob.is_match(Path::new("src/deep/x.rs")));
        assert!(!glob.is_match(Path::new("src/x.rsx")));
    }

    #[test]
    fn a_pattern_with_slash_matches_the_relative_path() {
        let glob = PathGlob::new("src/*.rs").unwrap();
        assert!(glob.is_match(Path::new("src/x.rs")));
        assert!(!glob.is_match(Path::new("src/deep/x.rs")));
        assert!(PathGlob::new("./src/**/*.rs").unwrap().is_match(Path::new("src/deep/x.rs")));
    }

    #[test]
    fn a_bad_pattern_is_a_clear_error() {
        assert!(PathGlob::new("src/[").err().unwrap().starts_with("invalid glob pattern \"src/[\""));
    }
}
