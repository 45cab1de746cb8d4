//! Unified diffs for `write` and `edit`: what a change did (in the tool's result) and what
//! it would do (in the approval question), computed with the `similar` crate. Bounded: a
//! diff that takes longer than `TIMEOUT` is finished coarser rather than later.

use similar::TextDiff;
use std::time::Duration;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Time the diff algorithm may take before it settles for a less minimal diff.
const TIMEOUT: Duration = Duration::from_millis(200);

/// A unified diff from `old` to `new` with `a/PATH` and `b/PATH` headers; empty when equal.
/// A file that did not exist (`old` is `None`) is diffed from `/dev/null`.
pub fn unified(path: &str, old: Option<&str>, new: &str) -> String {
    let before = old.unwrap_or("");
    if old.is_some() && before == new {
        return String::new();
    }
    let from = if old.is_some() { format!("a/{path}") } else { "/dev/null".to_string() };
    let to = format!("b/{path}");
    TextDiff::configure()
        .timeout(TIMEOUT)
        .diff_lines(before, new)
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&from, &to)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_shows_as_minus_and_plus() {
        let diff = unified("f.txt", Some("one\ntwo\nthree\n"), "one\n2\nthree\n");
        assert_eq!(diff, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    }

    #[test]
    fn a_new_file_is_diffed_from_dev_null() {
        assert_eq!(unified("n.txt", None, "hi\n"), "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n");
    }

    #[test]
    fn no_change_is_an_empty_diff() {
        assert_eq!(unified("f", Some("same\n"), "same\n"), "");
    }
}
