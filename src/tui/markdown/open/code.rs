//! The code block still streaming in at the end of a reply: one `OpenCode` per `MarkdownDoc`,
//! the only streaming highlighter. Re-highlighting such a block from its fence on every frame
//! would cost its whole size each time (syntect is stateful), so `OpenCode` keeps the
//! highlighted complete lines with syntect's state after them (`highlight::Streamed`) and per
//! update highlights only the lines that arrived, plus the unfinished last line from a copy of
//! the state. When the block is finished, `Highlighter::code` goes on from that same
//! `Streamed` (the latest one the document's highlighter started), so a block is highlighted
//! once, not again whole.
//! `highlight` serves any open block, top level or nested in a list or quote. `layout` also
//! keeps the laid-out lines of a long top-level fence (a model writing a whole file), so such a
//! frame lays out only the new lines too.
//!
//! Both give exactly the lines of a whole render (the streaming tests compare them after every
//! chunk). Whenever that could be in doubt (a possible closing fence, a tiny width, a short
//! block, an info string the parser would rewrite, a highlighter panic on the unfinished line)
//! `layout` returns `None` and the caller renders the tail whole, still highlighting through
//! `highlight`. When syntect panics the whole block turns plain, as a whole render shows it.

use std::sync::Arc;

use ratatui::text::Line;

use crate::sanitize::sanitize;
use crate::tui::highlight::{fence_lang, plain_lines, CodeColors, Highlighter, SharedStream, Streamed};
use crate::tui::markdown::lines::layout;
use crate::tui::markdown::nodes::{Code, Node, Prefix};
use crate::tui::markdown::paint::OpenHighlighter;
use crate::tui::markdown::parse::code_label;
use crate::tui::markdown::style::{Palette, RenderOptions};
use crate::tui::wrap::expand_tabs;

/// Code bodies shorter than this are laid out by a whole render of the tail.
const MIN_BYTES: usize = 4096;

/// Per-document state of the open code block.
#[derive(Default)]
pub(crate) struct OpenCode {
    /// Highlighting of the growing block (shared with the highlighter for when it finishes).
    stream: Option<SharedStream>,
    /// Set while `layout` is laying out a long top-level block incrementally.
    laid_out: Option<LaidOut>,
}

impl OpenHighlighter for OpenCode {
    fn highlight(
        &mut self,
        highlighter: &Highlighter,
        code: &str,
        lang: &str,
        colors: CodeColors,
    ) -> Vec<Line<'static>> {
        OpenCode::highlight(self, highlighter, code, lang, colors)
    }
}

/// Where `layout` stopped.
struct LaidOut {
    /// The fence line, with its newline.
    fence: String,
    width: u16,
    /// Bytes of the tail (from the fence line) whose complete lines are laid out.
    done: usize,
    /// `stream.done.len()` and `stream.lines.len()` when those lines were laid out.
    stream_done: usize,
    code_lines: usize,
    /// Laid-out lines that belong to complete code lines (the rest are the last line's).
    complete: usize,
}

impl OpenCode {
    /// Highlighted lines of the open block's `code` (as the parser gives it, sanitized) in
    /// `lang`, going on from the last call when `code` extends what that call saw.
    pub(crate) fn highlight(
        &mut self,
        highlighter: &Highlighter,
        code: &str,
        lang: &str,
        colors: CodeColors,
    ) -> Vec<Line<'static>> {
        let code = expand_tabs(code);
        let body = code.strip_suffix('\n').unwrap_or(&code);
        // Everything up to the last newline is complete; the rest is the line being written.
        let (complete, last) = match body.rfind('\n') {
            Some(i) => body.split_at(i + 1),
            None => ("", body),
        };
        let stream = Streamed::lock(self.stream(highlighter, lang, colors, complete));
        match stream.last(last) {
            Some(last) => {
                let mut lines = Vec::with_capacity(stream.lines().len() + 1);
                lines.extend_from_slice(stream.lines());
                lines.push(last);
                lines
            }
            None => plain_lines(body, colors),
        }
    }

    /// The stream brought up to `complete` (whole lines, tabs expanded): the current one when
    /// `complete` extends what it has highlighted, else a new one started by `highlighter`.
    fn stream(&mut self, highlighter: &Highlighter, lang: &str, colors: CodeColors, complete: &str) -> &SharedStream {
        let current = self.stream.take().filter(|s| {
            let s = Streamed::lock(s);
            s.is(lang, colors) && complete.starts_with(s.done())
        });
        if current.is_none() {
            self.laid_out = None;
        }
        let stream = self.stream.insert(current.unwrap_or_else(|| highlighter.start_stream(lang, colors)));
        let mut locked = Streamed::lock(stream);
        let done = locked.done().len();
        locked.extend(complete.get(done..).unwrap_or(""));
        drop(locked);
        stream
    }

    /// Lays out `tail` (a top-level fenced code block still streaming in, from its fence line)
    /// at `width`. `previous` is what this returned for an earlier, shorter version of the same
    /// tail, reused when it applies; `None` means: render the tail whole instead. Code is
    /// highlighted by `highlighter`.
    pub(crate) fn layout(
        &mut self,
        previous: Option<Vec<Line<'static>>>,
        tail: &str,
        width: u16,
        options: RenderOptions,
        highlighter: &Highlighter,
    ) -> Option<Vec<Line<'static>>> {
        let lines = self.try_layout(previous, tail, width, options, highlighter);
        if lines.is_none() {
            self.laid_out = None;
        }
        lines
    }

    fn try_layout(
        &mut self,
        previous: Option<Vec<Line<'static>>>,
        tail: &str,
        width: u16,
        options: RenderOptions,
        highlighter: &Highlighter,
    ) -> Option<Vec<Line<'static>>> {
        // The marker first: a tail that is not a fence is not searched for its first newline
        // (a reply that is one long line would cost its length per frame).
        let marker = tail.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let fence_end = tail.find('\n')? + 1;
        let fence = &tail[..fence_end];
        let run = fence.chars().take_while(|c| *c == marker).count();
        let info = fence[run..].trim();
        let plain_info = matches!(sanitize(fence), std::borrow::Cow::Borrowed(_))
            && !info.contains(['\\', '&'])
            && !(marker == '`' && info.contains('`'));
        if run < 3 || width < 8 || tail.len() - fence_end < MIN_BYTES || !plain_info {
            return None;
        }
        let palette = Palette::new(options);
        let (lang, colors) = (fence_lang(info), palette.code_colors());
        let label = code_label(lang);
        let complete_end = fence_end + tail[fence_end..].rfind('\n').map_or(0, |i| i + 1);
        let partial = &tail[complete_end..];
        let closes = |line: &str| line.trim_start().starts_with(marker);
        if closes(partial) || partial.contains('\r') {
            return None;
        }
        let continued = match (self.laid_out.take(), self.stream.as_ref().map(Streamed::lock), previous) {
            (Some(laid), Some(mut stream), Some(lines))
                if laid.fence == fence
                    && laid.width == width
                    && laid.done <= complete_end
                    && stream.done().len() == laid.stream_done
                    && stream.is(lang, colors) =>
            {
                let new = tail.get(laid.done..complete_end)?;
                if new.split_inclusive('\n').any(closes) {
                    return None;
                }
                let panicked = stream.panicked();
                stream.extend(&expand_tabs(&sanitize(new)));
                Some(if stream.panicked() && !panicked {
                    lay_out(stream.lines().to_vec(), Some(label), width, palette)
                } else {
                    let mut lines = lines;
                    lines.truncate(laid.complete);
                    lines.extend(lay_out(
                        stream.lines().get(laid.code_lines..).unwrap_or(&[]).to_vec(),
                        None,
                        width,
                        palette,
                    ));
                    lines
                })
            }
            _ => None,
        };
        let mut lines = match continued {
            Some(lines) => lines,
            None => {
                let body = &tail[fence_end..complete_end];
                if body.split_inclusive('\n').any(closes) {
                    return None;
                }
                let clean = sanitize(body);
                let complete = expand_tabs(&clean);
                let lines = Streamed::lock(self.stream(highlighter, lang, colors, &complete)).lines().to_vec();
                lay_out(lines, Some(label), width, palette)
            }
        };
        let stream = Streamed::lock(self.stream.as_ref()?);
        self.laid_out = Some(LaidOut {
            fence: fence.to_string(),
            width,
            done: complete_end,
            stream_done: stream.done().len(),
            code_lines: stream.lines().len(),
            complete: lines.len(),
        });
        if !partial.is_empty() {
            let last = stream.last(&expand_tabs(&sanitize(partial)))?;
            lines.extend(lay_out(vec![last], None, width, palette));
        }
        Some(lines)
    }
}

/// Code `lines` laid out at `width`, under the block's label row when `label` is given (the
/// first lines of a block), else as more lines of a block whose label is laid out already.
fn lay_out(lines: Vec<Line<'static>>, label: Option<&str>, width: u16, palette: Palette) -> Vec<Line<'static>> {
    let code = Code::Lines(Arc::new(lines));
    let label = label.map(str::to_string);
    layout(&[Node::Code { prefix: Prefix::default(), code, label }], usize::from(width), palette)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::highlight::plain_code;
    use crate::tui::markdown::{render as render_whole, render_with};

    const DARK: CodeColors = CodeColors::DARK;

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
            let options = RenderOptions { color: true, light: false };
            let (mut code, highlighter) = (OpenCode::default(), Highlighter::default());
            let mut previous = None;
            let mut used = 0;
            let mut cut = 4200;
            while cut <= text.len() {
                let tail = &text[..cut];
                previous = code.layout(previous.take(), tail, width, options, &highlighter);
                if let Some(lines) = &previous {
                    assert_eq!(lines, &render_whole(tail, width, options), "width {width}, cut {cut}");
                    used += 1;
                }
                cut += 97;
            }
            assert!(used > 10, "the incremental path was used");
        }
    }

    #[test]
    fn a_streamed_block_is_highlighted_once_even_after_it_finishes() {
        let mut text = String::from("Here is the file:\n\n```rust\n");
        for i in 0..400 {
            text.push_str(&format!("fn only_once_{i}(x: u64) -> u64 {{\n    x * {i} // step {i}\n}}\n"));
        }
        let code_lines = text.lines().count() - 3;
        text.push_str("```\n\nThe end.\n");
        let options = RenderOptions { color: true, light: false };
        let highlighter = Highlighter::default();
        let mut doc = crate::tui::markdown::MarkdownDoc::with_highlighter(options, highlighter.clone());
        let mut frames = 0;
        for chunk in text.as_bytes().chunks(400) {
            doc.push_str(std::str::from_utf8(chunk).unwrap_or_default());
            let height = doc.height(100);
            let _ = doc.lines(100, height.saturating_sub(40), 40);
            frames += 1;
        }
        let highlighted = highlighter.inject().lines_highlighted();
        // Each complete line once, plus at most one unfinished last line per frame.
        assert!(highlighted <= code_lines + frames, "{highlighted} lines highlighted for {code_lines} lines");
        let height = doc.height(100);
        assert_eq!(doc.lines(100, 0, height), render_whole(&text, 100, options));
    }

    #[test]
    fn a_possible_closing_fence_or_a_short_block_falls_back() {
        let text = big_code(120);
        let (mut code, h) = (OpenCode::default(), Highlighter::default());
        let options = RenderOptions::default();
        assert!(code.layout(None, &format!("{text}``"), 80, options, &h).is_none());
        assert!(code.layout(None, "```rust\nfn main() {}\n", 80, options, &h).is_none());
        assert!(code.layout(None, "not code\n", 80, options, &h).is_none());
        assert!(code.layout(None, &text.replacen("```rust", "```ru`st", 1), 80, options, &h).is_none());
    }

    #[test]
    fn streaming_gives_the_same_lines_as_highlighting_the_whole_block() {
        let code = "fn main() {\n    let s = \"a string\\twith tab\";\n    /* multi\n line comment */\n\tprintln!(\"{s}\");\n}\n";
        let (mut open, h) = (OpenCode::default(), Highlighter::default());
        for cut in (0..=code.len()).filter(|&cut| code.is_char_boundary(cut)) {
            let prefix = &code[..cut];
            assert_eq!(open.highlight(&h, prefix, "rust", DARK), h.uncached(prefix, "rust", DARK), "at {cut}");
        }
        assert_eq!(
            open.stream.as_ref().map(|s| Streamed::lock(s).lines().len()),
            Some(5),
            "one stream went on line by line"
        );
    }

    #[test]
    fn a_different_block_starts_over() {
        let (mut open, h) = (OpenCode::default(), Highlighter::default());
        let a = open.highlight(&h, "let x = 1;\nlet y = 2;\n", "rust", DARK);
        assert_eq!(a, h.uncached("let x = 1;\nlet y = 2;\n", "rust", DARK));
        let b = open.highlight(&h, "x = 1\ny = 2\n", "python", DARK);
        assert_eq!(b, h.uncached("x = 1\ny = 2\n", "python", DARK));
        let c = open.highlight(&h, "plain", "nosuchlang", DARK);
        assert_eq!(c, h.uncached("plain", "nosuchlang", DARK));
    }

    #[test]
    fn a_syntect_panic_while_streaming_falls_back_to_plain_text() {
        let h = Highlighter::default();
        let _panic = h.panic_on("BOOM");
        let code = "fn main() {\n    let a = 1;\n    BOOM();\n    let b = 2;\n}\n";
        let boom = code.find("BOOM").map_or(0, |i| i + "BOOM".len());
        let mut open = OpenCode::default();
        for cut in (0..=code.len()).filter(|&cut| code.is_char_boundary(cut)) {
            let prefix = &code[..cut];
            let lines = open.highlight(&h, prefix, "rust", DARK);
            assert_eq!(lines, h.uncached(prefix, "rust", DARK), "at {cut}");
            if cut >= boom {
                assert_eq!(lines, plain_code(prefix, DARK), "plain once the panic happened, at {cut}");
            }
        }
        let before = open.highlight(&h, &code[..boom - 1], "rust", DARK);
        let colours: std::collections::HashSet<_> =
            before.iter().flat_map(|l| l.spans.iter().map(|s| s.style)).collect();
        assert!(colours.len() > 2, "highlighted before the panic: {colours:?}");
    }

    #[test]
    fn a_syntect_panic_in_a_long_block_falls_back_to_plain_text() {
        let h = Highlighter::default();
        let _panic = h.panic_on("BOOM");
        let text = format!("{}BOOM();\n{}", big_code(60), &big_code(30)["```rust\n".len()..]);
        let boom = text.find("BOOM").map_or(0, |i| i + "BOOM".len());
        let options = RenderOptions::default();
        let mut code = OpenCode::default();
        let mut previous = None;
        let mut cut = 4200;
        while cut <= text.len() {
            let tail = &text[..cut];
            previous = code.layout(previous.take(), tail, 80, options, &h);
            let whole = render_with(tail, 80, options, &h);
            if let Some(lines) = &previous {
                assert_eq!(lines, &whole, "cut {cut}");
            }
            if cut >= boom {
                let body = &tail["```rust\n".len()..];
                let plain = render_with(&format!("```\n{body}"), 80, options, &h);
                // The label still says the fence's language.
                assert_eq!(whole[0].to_string(), "  rust  [copy]");
                assert_eq!(whole[1..], plain[1..], "the whole render is plain after the panic, cut {cut}");
            }
            cut += 89;
        }
        assert!(previous.is_some(), "the incremental path went on after the panic");
    }
}
