//! The model's thinking in the conversation pane, laid out as it streams: its complete lines
//! are wrapped once and kept, and a frame wraps only the line still growing (re-wrapping the
//! whole text every frame made a long thinking stream quadratic). Owns that layout and the
//! collapsed view (the last few lines under a count of the hidden ones); the wrapping itself is
//! `wrap::wrap`, and the lines equal those of wrapping the whole (trimmed) text at once.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::sanitize::sanitize;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::wrap;

/// Lines of collapsed thinking shown once the reply has started.
pub const THINKING_TAIL: usize = 3;

/// Streamed thinking text (sanitized) and its layout at the last width.
#[derive(Default)]
pub struct ThinkingText {
    text: String,
    laid: Option<Laid>,
    /// Bytes wrapped so far (counted in test builds only).
    wrapped: Wrapped,
}

/// A count of bytes wrapped, kept in test builds only (nothing in others).
#[derive(Default)]
struct Wrapped(#[cfg(test)] usize);

impl Wrapped {
    fn add(&mut self, _bytes: usize) {
        #[cfg(test)]
        {
            self.0 += _bytes;
        }
    }
}

/// The layout of the text at one width and style.
struct Laid {
    width: u16,
    style: Style,
    /// Where the trimmed text starts.
    start: usize,
    /// Bytes of `text` whose lines are complete and laid out in `lines`.
    done: usize,
    lines: Vec<Line<'static>>,
    /// The lines of the last line (from `done` to the end of the trimmed text), for `tail_end`.
    tail: Vec<Line<'static>>,
    tail_end: usize,
}

impl ThinkingText {
    pub fn push_str(&mut self, delta: &str) {
        self.text.push_str(&sanitize(delta));
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Rows at `width` (the collapsed view's when `collapsed`), without a separator.
    pub fn height(&mut self, width: u16, theme: &Theme, collapsed: bool) -> usize {
        let all = self.layout(width, theme.thinking());
        match hidden(all, collapsed) {
            Some(_) => 1 + THINKING_TAIL,
            None => all,
        }
    }

    /// Rows `start..start + count` at `width` (of the collapsed view when `collapsed`).
    pub fn lines(
        &mut self,
        width: u16,
        theme: &Theme,
        collapsed: bool,
        start: usize,
        count: usize,
    ) -> Vec<Line<'static>> {
        let all = self.layout(width, theme.thinking());
        let Some(laid) = self.laid.as_ref() else { return Vec::new() };
        let row = |i: usize| laid.lines.get(i).or_else(|| laid.tail.get(i - laid.lines.len())).cloned();
        let end = start.saturating_add(count);
        match hidden(all, collapsed) {
            Some(hidden) => (start..end.min(1 + THINKING_TAIL))
                .filter_map(|i| match i {
                    0 => Some(Line::from(Span::styled(
                        format!("… {hidden} earlier lines of thinking (Ctrl+T expands)"),
                        theme.dim(),
                    ))),
                    i => row(hidden + i - 1),
                })
                .collect(),
            None => (start..end.min(all)).filter_map(row).collect(),
        }
    }

    /// Brings the layout up to date for `width` and `style`, wrapping only lines not laid out
    /// yet and the last line when it changed; returns the number of lines.
    fn layout(&mut self, width: u16, style: Style) -> usize {
        let text = &self.text;
        let start = text.len() - text.trim_start().len();
        let end = start + text[start..].trim_end().len();
        let laid = match self.laid.take() {
            Some(laid) if laid.width == width && laid.style == style && laid.start == start => laid,
            _ => Laid { width, style, start, done: start, lines: Vec::new(), tail: Vec::new(), tail_end: usize::MAX },
        };
        let laid = self.laid.insert(laid);
        if let Some(newline) = text[laid.done..end].rfind('\n') {
            let complete = &text[laid.done..laid.done + newline];
            for line in complete.split('\n') {
                laid.lines.extend(wrap_counted(line, width, style, &mut self.wrapped));
            }
            laid.done += newline + 1;
            laid.tail_end = usize::MAX;
        }
        if laid.tail_end != end {
            laid.tail = wrap_counted(&text[laid.done..end], width, style, &mut self.wrapped);
            laid.tail_end = end;
        }
        laid.lines.len() + laid.tail.len()
    }
}

/// Lines hidden by the collapsed view of `all` lines, when it hides any.
fn hidden(all: usize, collapsed: bool) -> Option<usize> {
    (collapsed && all > THINKING_TAIL + 1).then(|| all - THINKING_TAIL)
}

/// `wrap` of one line of thinking, counted in `wrapped`.
fn wrap_counted(line: &str, width: u16, style: Style, wrapped: &mut Wrapped) -> Vec<Line<'static>> {
    wrapped.add(line.len());
    wrap(line, width, style, "", "", style)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the cell showed before: the whole trimmed text wrapped at once.
    fn whole(text: &str, width: u16, theme: &Theme, collapsed: bool) -> Vec<Line<'static>> {
        let all = wrap(text.trim(), width, theme.thinking(), "", "", theme.thinking());
        if collapsed && all.len() > THINKING_TAIL + 1 {
            let hidden = all.len() - THINKING_TAIL;
            let mut lines = vec![Line::from(Span::styled(
                format!("… {hidden} earlier lines of thinking (Ctrl+T expands)"),
                theme.dim(),
            ))];
            lines.extend(all.into_iter().skip(hidden));
            lines
        } else {
            all
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Streamed in any chunks, the lines after each chunk are the whole text's.
        #[test]
        fn streamed_lines_equal_the_whole_texts(
            pieces in prop::collection::vec(
                prop::sample::select(vec![
                    "word ", "a", " ", "  ", "\n", "\n\n", "\t", "longerwordthatwraps ", "世界", "🎉 ", "x\u{301}",
                    "averyveryverylongwordthatwillnotfitanywhereatallinthiswidth", " \n ",
                ]),
                0..60,
            ),
            cuts in prop::collection::vec(1usize..20, 1..10),
            width in 1u16..40,
            collapsed in any::<bool>(),
            light in any::<bool>(),
        ) {
            let theme = if light { Theme::light(true) } else { Theme::new(true) };
            let mut thinking = ThinkingText::default();
            let mut text = String::new();
            let mut next = 0;
            for (i, piece) in pieces.iter().enumerate() {
                thinking.push_str(piece);
                text.push_str(piece);
                if i + 1 == next || i + 1 == pieces.len() {
                    next += cuts[i % cuts.len()];
                    let height = thinking.height(width, &theme, collapsed);
                    let lines = thinking.lines(width, &theme, collapsed, 0, height + 2);
                    prop_assert_eq!(lines.len(), height);
                    prop_assert_eq!(&lines, &whole(&text, width, &theme, collapsed), "{:?}", text);
                    let from = height.saturating_sub(2);
                    let tail = thinking.lines(width, &theme, collapsed, from, 1);
                    prop_assert_eq!(tail.as_slice(), &lines[from..(from + 1).min(height)]);
                }
            }
        }
    }

    /// A long thinking stream, a frame after each delta: each byte is wrapped about once on
    /// its way into a complete line, plus the growing last line per frame (re-wrapping the
    /// whole text each frame would wrap ~frames × length / 2 bytes).
    #[test]
    fn a_frame_wraps_only_the_growing_line() {
        let theme = Theme::new(true);
        let mut thinking = ThinkingText::default();
        let line = "Let me think about this step by step, considering each option carefully.\n";
        let mut longest_line = 0;
        let mut pushed = 0;
        while pushed < 500_000 {
            for piece in line.as_bytes().chunks(25) {
                thinking.push_str(std::str::from_utf8(piece).unwrap_or_default());
                let height = thinking.height(100, &theme, false);
                let _ = thinking.lines(100, &theme, false, height.saturating_sub(40), 40);
                pushed += piece.len();
                longest_line = longest_line.max(line.len());
            }
        }
        let wrapped = thinking.wrapped.0;
        let frames = pushed.div_ceil(25);
        assert!(wrapped <= pushed + frames * longest_line, "{wrapped} bytes wrapped for {pushed} bytes of thinking");
    }
}
