//! Unified diffs in colour: added lines green, removed lines red, hunk headers (`@@`) and
//! file headers (`---`, `+++`) dim. Used by the approval dialog and the tool log's
//! expanded view; long lines wrap under the same colour.

use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;
use ratatui::style::Style;
use ratatui::text::Line;

/// The style of one diff line.
pub fn line_style(line: &str, theme: &Theme) -> Style {
    if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@") {
        theme.dim()
    } else if line.starts_with('+') {
        theme.added()
    } else if line.starts_with('-') {
        theme.removed()
    } else {
        theme.text()
    }
}

/// `text` (a unified diff) wrapped to `width`, each line after `indent`, coloured.
pub fn diff_lines(text: &str, width: u16, theme: &Theme, indent: &str) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let style = line_style(line, theme);
        out.extend(wrap(line, width, style, indent, indent, theme.dim()));
    }
    out
}

/// Whether a text looks like a unified diff (it has a hunk header).
pub fn is_diff(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("@@ "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_removed_and_headers_get_their_styles() {
        let theme = Theme::new(true);
        assert_eq!(line_style("+new", &theme), theme.added());
        assert_eq!(line_style("-old", &theme), theme.removed());
        assert_eq!(line_style("@@ -1 +1 @@", &theme), theme.dim());
        assert_eq!(line_style("+++ b/x", &theme), theme.dim());
        assert_eq!(line_style(" same", &theme), theme.text());
        assert!(is_diff("--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"));
        assert!(!is_diff("$ ls"));
    }
}
