//! The status line's text for a width, its parts dropped least important first so what
//! matters is never cut: the key hints shrink to what Esc does, then the token counts go
//! (the session's first), then the provider's name (the model stays), and only then does a
//! notice leave the line — whole, for the strip above the prompt (`Composed::overflow`),
//! never cut. The activity, YOLO and the mode stay; only a screen too narrow even for them
//! cuts the line's end. A pure function of its parts: `Status` gathers them.

use crate::tui::wrap::truncate;
use unicode_width::UnicodeWidthStr;

/// What the line may say, most of it optional; text from outside (names, notices) already
/// sanitized.
pub struct Parts {
    pub provider: String,
    pub model: String,
    /// What the agent is doing (`◐ thinking`, `waiting for your approval`).
    pub activity: String,
    /// The token counts, in full and without the session's totals.
    pub tokens: String,
    pub short_tokens: String,
    pub yolo: bool,
    /// The mode's label when it is not ask (`plan mode`).
    pub mode: Option<&'static str>,
    pub notice: Option<String>,
    /// The key hints on the right, and the part of them that is never dropped while
    /// there is room for it (what Esc does while a turn runs), maybe empty.
    pub hints: &'static str,
    pub must: &'static str,
}

/// The line as drawn: the left side, the hints on the right, and a notice that did not
/// fit beside the rest (shown whole above the prompt instead).
#[derive(Debug, Default, PartialEq)]
pub struct Composed {
    pub left: String,
    pub hints: &'static str,
    pub overflow: Option<String>,
}

/// How much of the optional parts a try keeps.
#[derive(Clone, Copy)]
struct Keep {
    all_hints: bool,
    /// 2: all the tokens, 1: the turn's, 0: none.
    tokens: u8,
    provider: bool,
    notice: bool,
    mode_key: bool,
}

impl Parts {
    fn left(&self, keep: Keep) -> String {
        let mut left =
            if keep.provider { format!(" {} · {}", self.provider, self.model) } else { format!(" {}", self.model) };
        left.push_str(&format!(" │ {}", self.activity));
        let tokens = match keep.tokens {
            2 => &self.tokens,
            1 => &self.short_tokens,
            _ => "",
        };
        if !tokens.is_empty() {
            left.push_str(&format!(" │ {tokens}"));
        }
        if self.yolo {
            left.push_str(" │ YOLO: no approvals");
        }
        if let Some(mode) = self.mode {
            left.push_str(&format!(" │ {mode}"));
            if keep.mode_key {
                left.push_str(" (Shift+Tab)");
            }
        }
        if let (true, Some(notice)) = (keep.notice, &self.notice) {
            left.push_str(&format!(" │ {notice}"));
        }
        left
    }

    fn hints(&self, keep: Keep) -> &'static str {
        if keep.all_hints {
            self.hints
        } else {
            self.must
        }
    }

    /// The line for `width` columns.
    pub fn compose(&self, width: usize) -> Composed {
        let all = Keep { all_hints: true, tokens: 2, provider: true, notice: true, mode_key: true };
        // Each step drops one more part, least important first; a notice that fits beside
        // none of them leaves, and the parts come back as far as they fit without it.
        let steps = [
            all,
            Keep { all_hints: false, ..all },
            Keep { all_hints: false, tokens: 1, ..all },
            Keep { all_hints: false, tokens: 0, ..all },
            Keep { all_hints: false, tokens: 0, provider: false, ..all },
        ];
        let without_notice = steps.map(|keep| Keep { notice: false, ..keep });
        let last = Keep { mode_key: false, ..without_notice[without_notice.len() - 1] };
        let tries = if self.notice.is_some() { &steps[..] } else { &[] };
        let gap = |hints: &str| if hints.is_empty() { 0 } else { hints.width() + 2 };
        let overflow = |keep: Keep| self.notice.clone().filter(|_| !keep.notice);
        for &keep in tries.iter().chain(&without_notice).chain([&last]) {
            let (left, hints) = (self.left(keep), self.hints(keep));
            if left.width() + gap(hints) <= width {
                return Composed { left, hints, overflow: overflow(keep) };
            }
        }
        // Too narrow even for what is left: what Esc does while there is room for it, and
        // the left side cut.
        let hints = if width >= 3 * self.must.width() { self.must } else { "" };
        let left = truncate(&self.left(last), width.saturating_sub(gap(hints)));
        Composed { left, hints, overflow: overflow(last) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(notice: Option<&str>) -> Parts {
        Parts {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            activity: "◐ responding".into(),
            tokens: "turn ↑12k ↓678 3s · session ↑40k ↓2.1k · 80% cached".into(),
            short_tokens: "turn ↑12k ↓678 3s".into(),
            yolo: false,
            mode: Some("plan mode"),
            notice: notice.map(str::to_string),
            hints: "Esc interrupt · Tab focus · ^O context · ? help ",
            must: "Esc interrupt ",
        }
    }

    #[test]
    fn everything_fits_a_wide_line() {
        let line = parts(Some("queued")).compose(200);
        assert_eq!(line.hints, "Esc interrupt · Tab focus · ^O context · ? help ");
        assert!(line.left.contains("anthropic · claude") && line.left.ends_with("│ queued"), "{line:?}");
        assert_eq!(line.overflow, None);
    }

    #[test]
    fn the_hints_then_the_tokens_then_the_provider_go_before_a_notice_is_moved() {
        let notice = "mode: plan — only read-only tools run until you accept the model's plan";
        let line = parts(Some("edit allowed")).compose(110);
        assert!(line.left.ends_with("│ plan mode (Shift+Tab) │ edit allowed"), "{line:?}");
        assert!(line.left.starts_with(" anthropic · claude") && !line.left.contains("turn"), "{line:?}");
        assert_eq!(line.hints, "Esc interrupt ");
        let line = parts(Some("edit allowed")).compose(80);
        assert_eq!(line.overflow.as_deref(), Some("edit allowed"), "{line:?}");
        assert_eq!(line.left, " claude-sonnet-4-5 │ ◐ responding │ plan mode (Shift+Tab)");
        let line = parts(Some(notice)).compose(80);
        assert_eq!(line.overflow.as_deref(), Some(notice), "moved whole: {line:?}");
        assert!(line.left.contains("plan mode") && !line.left.contains('…'), "{line:?}");
        assert!(line.left.width() + line.hints.width() + 2 <= 80);
    }

    #[test]
    fn a_narrow_line_keeps_what_esc_does_and_cuts_the_rest() {
        let line = parts(None).compose(44);
        assert_eq!(line.hints, "Esc interrupt ");
        assert!(line.left.ends_with('…') && line.left.width() + 16 <= 44, "{line:?}");
    }
}
