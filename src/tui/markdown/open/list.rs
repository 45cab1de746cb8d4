//! An open block holding a list at its top level (a model writing a long list): the lines of
//! finished items are kept, and a frame renders only from the last finished item (the
//! "context" item) to the end. Owns the rules that make that exact; it must not parse or wrap.
//!
//! A finished item never changes, with two exceptions the state guards against: the list
//! turning loose (a blank line between items later on puts blank lines between all of them),
//! and link reference definitions (a block that may hold one is never split). Rendering from
//! the context item must give that item the lines it had in the whole render (same number,
//! same spacing): the lines are compared every frame, and the list's spacing with the spacing
//! seen when the item was kept. Any mismatch renders the block whole again.

use ratatui::text::Line;

use super::whole::{is_clean, may_define_links, render_open, LayoutArgs, Parsed};
use crate::tui::markdown::parse::{ItemMark, Spacing};

pub(crate) struct OpenList {
    /// Bytes of the tail before the context item's first line.
    cut: usize,
    /// Lines before the context item.
    frozen: usize,
    /// Lines of the context item (up to the next item's first line).
    context: usize,
    /// How the context item's list was spaced when it was kept.
    spacing: Spacing,
}

impl OpenList {
    /// The state after a whole render of `text`, keeping what is finished.
    pub(crate) fn start(text: &str, parsed: &Parsed) -> Option<Self> {
        if may_define_links(text) {
            return None;
        }
        let mut list = OpenList { cut: 0, frozen: 0, context: 0, spacing: Spacing::default() };
        if let Some(keep) = next_keep(text, parsed, 0) {
            list.apply(keep);
        }
        Some(list)
    }

    /// How much is kept (0: nothing), for tests.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.frozen
    }

    /// Lays out `text` into `lines` (which hold what the last call left); false when the kept
    /// lines cannot be trusted.
    pub(crate) fn layout(&mut self, text: &str, lines: &mut Vec<Line<'static>>, frame: &mut LayoutArgs<'_>) -> bool {
        let Some(rest) = text.get(self.cut..) else { return false };
        if self.cut == 0 || may_define_links(rest) {
            return false;
        }
        let parsed = render_open(rest, frame);
        let marks = &parsed.marks;
        let (Some(first), Some(next)) = (marks.items.first(), marks.items.get(1)) else { return false };
        let context_end = parsed.starts.get(next.node).copied().unwrap_or(0);
        let spacing = marks.lists.first().copied().unwrap_or_default();
        let same = first.node == 0
            && first.list == 0
            && indent_only(rest, first.offset)
            && context_end == self.context
            && parsed.lines.get(..context_end) == lines.get(self.frozen..self.frozen + self.context)
            && !(self.spacing.loose && spacing.tight)
            && !(self.spacing.tight && spacing.loose);
        if !same {
            return false;
        }
        let keep = next_keep(rest, &parsed, 1);
        lines.truncate(self.frozen);
        lines.extend(parsed.lines);
        if let Some(keep) = keep {
            self.apply(keep);
        }
        true
    }

    fn apply(&mut self, keep: Keep) {
        self.cut += keep.bytes;
        self.frozen += keep.lines;
        self.context = keep.context;
        self.spacing = keep.spacing;
    }
}

/// How far the kept part of a list grows.
struct Keep {
    bytes: usize,
    lines: usize,
    context: usize,
    spacing: Spacing,
}

/// Everything before the last finished item of `parsed` (a render of `rest`, the tail from
/// the cut) can be kept, if that item is past item `min` and its list's spacing is known.
fn next_keep(rest: &str, parsed: &Parsed, min: usize) -> Option<Keep> {
    let items = &parsed.marks.items;
    let j = items.len().checked_sub(2).filter(|&j| j >= min)?;
    let (item, next): (ItemMark, ItemMark) = (items[j], items[j + 1]);
    let spacing = parsed.marks.lists.get(item.list).copied().unwrap_or_default();
    let line = rest.get(..item.offset)?.rfind('\n').map_or(0, |i| i + 1);
    if spacing.loose == spacing.tight
        || !indent_only(&rest[line..], item.offset - line)
        || !(parsed.clean || is_clean(&rest[..line]))
    {
        return None;
    }
    let (top, end) = (*parsed.starts.get(item.node)?, *parsed.starts.get(next.node)?);
    Some(Keep { bytes: line, lines: top, context: end - top, spacing })
}

/// The first `offset` bytes of `text` are spaces (an item's indentation).
fn indent_only(text: &str, offset: usize) -> bool {
    text.get(..offset).is_some_and(|indent| indent.bytes().all(|b| b == b' '))
}
