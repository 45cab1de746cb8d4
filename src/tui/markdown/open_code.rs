//! The open tail of a streaming reply when it is a long fenced code block (a model writing a
//! whole file). Re-rendering such a tail from its fence on every frame costs its whole size;
//! `OpenCode` instead keeps the laid-out lines of the complete code lines, with syntect's
//! state after them, and per update lays out only the lines that arrived plus the unfinished
//! last line. Its lines are exactly those `render_block` gives for the same text (the
//! streaming tests compare them); whenever that could be in doubt (a possible closing fence,
//! a tiny width, a short block) it returns `None` and the caller renders the tail whole.

use super::layout::layout;
use super::render::{Node, Prefix};
use super::style::{Palette, RenderOptions};
use crate::tui::highlight::{find_syntax, plain_code, sets};
use crate::tui::highlight_stream::highlight_line;
use ratatui::text::Line;
use std::sync::Arc;
use syntect::highlighting::{HighlightState, Highlighter};
use syntect::parsing::{ParseState, ScopeStack};

/// Code bodies shorter than this are simply rendered whole.
const MIN_BYTES: usize = 4096;

/// Syntax state after the last complete line.
struct Syntax {
    parse: ParseState,
    highlight: HighlightState,
    failed: bool,
}

pub(super) struct OpenCode {
    /// The fence line, with its newline.
    fence: String,
    width: u16,
    /// Bytes of the tail (from the fence line) whose complete lines are laid out.
    done: usize,
    /// Laid-out lines that belong to complete code lines (the rest are the last line's).
    complete: usize,
    syntax: Option<Syntax>,
}

/// Lays out `tail` (a fenced code block still streaming in) at `width`, reusing `previous`
/// (state and lines of an earlier, shorter version of the same tail) when it applies.
pub(super) fn update(
    previous: Option<(OpenCode, Vec<Line<'static>>)>,
    tail: &str,
    width: u16,
    options: RenderOptions,
) -> Option<(OpenCode, Vec<Line<'static>>)> {
    let fence_end = tail.find('\n')? + 1;
    let fence = &tail[..fence_end];
    let marker = fence.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = fence.chars().take_while(|c| *c == marker).count();
    if run < 3 || width < 8 || tail.len() - fence_end < MIN_BYTES {
        return None;
    }
    let complete_end = fence_end + tail[fence_end..].rfind('\n').map_or(0, |i| i + 1);
    let (mut code, mut lines) = match previous {
        Some((code, lines)) if code.fence == fence && code.width == width && code.done <= complete_end => (code, lines),
        _ => (OpenCode::new(fence, width, options), Vec::new()),
    };
    let new = &tail[code.done.max(fence_end)..complete_end];
    let partial = &tail[complete_end..];
    let closes = |line: &str| line.trim_start().starts_with(marker);
    if new.split_inclusive('\n').any(closes) || closes(partial) || partial.contains('\r') {
        return None;
    }
    let palette = Palette::new(options);
    lines.truncate(code.complete);
    if !new.is_empty() {
        let styled = code.style(new, options.color, true);
        lines.extend(lay_out(styled, width, palette));
    }
    code.done = complete_end;
    code.complete = lines.len();
    if !partial.is_empty() {
        let styled = code.style(partial, options.color, false);
        lines.extend(lay_out(styled, width, palette));
    }
    Some((code, lines))
}

impl OpenCode {
    fn new(fence: &str, width: u16, options: RenderOptions) -> Self {
        let info = fence.trim_start_matches(['`', '~']).trim();
        let lang = info.split([' ', ',', '{', '}', '.']).find(|s| !s.is_empty()).unwrap_or("").to_string();
        let syntax = find_syntax(&lang).filter(|_| options.color).and_then(|syntax| {
            let theme = sets().theme.as_ref()?;
            let highlighter = Highlighter::new(theme);
            Some(Syntax {
                parse: ParseState::new(syntax),
                highlight: HighlightState::new(&highlighter, ScopeStack::new()),
                failed: false,
            })
        });
        OpenCode { fence: fence.to_string(), width, done: 0, complete: 0, syntax }
    }

    /// Styled code lines for `text` (complete lines ending in `\n`, or the unfinished last
    /// line). Complete lines advance the syntax state; the last line uses a copy of it.
    fn style(&mut self, text: &str, color: bool, advance: bool) -> Vec<Line<'static>> {
        let text = crate::tui::wrap::expand_tabs(&crate::sanitize::sanitize(text)).into_owned();
        let Some(syntax) = self.syntax.as_mut() else {
            return plain_code(&text, color);
        };
        let Some(theme) = sets().theme.as_ref() else { return plain_code(&text, color) };
        let highlighter = Highlighter::new(theme);
        let mut scratch;
        let state = if advance {
            syntax
        } else {
            scratch =
                Syntax { parse: syntax.parse.clone(), highlight: syntax.highlight.clone(), failed: syntax.failed };
            &mut scratch
        };
        let body = text.strip_suffix('\n').unwrap_or(&text);
        body.split('\n')
            .map(|line| {
                let line = format!("{line}\n");
                highlight_line(&line, &mut state.parse, &mut state.highlight, &highlighter, &mut state.failed)
            })
            .collect()
    }
}

fn lay_out(lines: Vec<Line<'static>>, width: u16, palette: Palette) -> Vec<Line<'static>> {
    layout(&[Node::Code { prefix: Prefix::default(), lines: Arc::new(lines) }], usize::from(width), palette)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::markdown::render as render_whole;

    fn big_code(n: usize) -> String {
        let mut text = String::from("```rust\n");
        for i in 0..n {
            text.push_str(&format!("fn f{i}() {{ /* a comment that is long enough to wrap at forty columns */ }}\n"));
            if i % 7 == 0 {
                text.push_str("let s = \"a string\n spanning lines\";\n\tindented();\n");
            }
        }
        text
    }

    #[test]
    fn incremental_lines_equal_a_whole_render_at_every_step() {
        let text = big_code(120);
        for width in [40u16, 100] {
            let options = RenderOptions { color: true };
            let mut state = None;
            let mut used = 0;
            let mut cut = 4200;
            while cut <= text.len() {
                let tail = &text[..cut];
                match update(state.take(), tail, width, options) {
                    Some((code, lines)) => {
                        assert_eq!(lines, render_whole(tail, width, options), "width {width}, cut {cut}");
                        used += 1;
                        state = Some((code, lines));
                    }
                    None => state = None,
                }
                cut += 97;
            }
            assert!(used > 10, "the incremental path was used");
        }
    }

    #[test]
    fn a_possible_closing_fence_or_a_short_block_falls_back() {
        let text = big_code(120);
        assert!(update(None, &format!("{text}``"), 80, RenderOptions::default()).is_none());
        assert!(update(None, "```rust\nfn main() {}\n", 80, RenderOptions::default()).is_none());
        assert!(update(None, "not code\n", 80, RenderOptions::default()).is_none());
    }
}
