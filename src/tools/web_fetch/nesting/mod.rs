//! Caps how deep a page nests before the HTML parser sees it (issue 37). html5ever's tree
//! builder searches its stack of open elements for most tags and reopens the active
//! formatting elements before text, so 400,000 nested `<div>` take minutes and 200,000
//! unclosed `<b><i>` build a tree whose conversion overflows the stack. This pass, linear
//! in the page, follows the open elements the way the tree builder keeps them
//! (`open_elements.rs`: implied ends of `<p>`, `<li>`, `<dd>`, `<option>`, table cells
//! and rows; scopes; formatting elements reopened before text) and drops the start tags
//! (and as many end tags of the same name) that would open more than `MAX_DEPTH` elements
//! or `MAX_FORMATTING` formatting elements, and cuts attributes past
//! `html_scan::MAX_ATTRIBUTES`. Their text stays, in the element that would have held them.
//! Where it cannot tell what the parser does, it keeps an element open rather than close
//! it, so it may see a page deeper than it is, not shallower. A page within the limits
//! comes back untouched (borrowed). The tree the parser builds is bounded once more,
//! exactly, by `tree.rs`.

mod end;
mod start;

use super::elements::{Name, Tag};
use super::html_scan::{Scanner, Tag as Token};
use super::open_elements::{Open, OpenElements};
pub use super::open_elements::{MAX_DEPTH, MAX_FORMATTING};
use std::borrow::Cow;
use std::collections::HashMap;

/// The page with its nesting capped, and how many tags were dropped or cut.
pub struct Capped<'a> {
    pub html: Cow<'a, str>,
    pub changed: usize,
}

/// `html` with no more than `MAX_DEPTH` elements open at once (as far as this pass
/// follows the parser), `MAX_FORMATTING` formatting elements to reopen, and
/// `MAX_ATTRIBUTES` attributes on a tag.
pub fn cap(html: &str) -> Capped<'_> {
    let mut pass = Pass::new(html);
    let mut scanner = Scanner::new(html);
    while let Some(tag) = scanner.next_tag() {
        match pass.tag(&tag) {
            Action::Keep => pass.keep(&tag),
            Action::Drop => pass.drop_tag(&tag),
            Action::Raw => {
                pass.keep(&tag);
                scanner.skip_raw_text(&tag.name);
            }
            Action::Stop => {
                pass.keep(&tag);
                scanner.stop();
            }
            Action::Bare => {
                let bare = format!("{}>", &html[tag.start..tag.name_end]);
                pass.replace(&tag, &bare);
            }
        }
    }
    let changed = pass.changed;
    let html = match pass.out {
        Some(mut out) => {
            out.push_str(&html[pass.copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(html),
    };
    Capped { html, changed }
}

/// What becomes of a tag.
enum Action {
    Keep,
    Drop,
    /// Kept; its content is raw text, skipped with its end tag.
    Raw,
    /// Kept; the rest of the page is text.
    Stop,
    /// Kept without its attributes.
    Bare,
}

impl From<bool> for Action {
    fn from(kept: bool) -> Self {
        if kept {
            Action::Keep
        } else {
            Action::Drop
        }
    }
}

struct Pass<'a> {
    html: &'a str,
    open: OpenElements,
    /// Start tags dropped, by name: as many end tags of the name are dropped too.
    dropped: HashMap<u64, usize>,
    /// The form the parser holds (its "form element pointer").
    form: Option<u32>,
    /// Tags and text put before their table so far.
    fostered: usize,
    /// Attributes the `<html>` and `<body>` tags gave their elements so far.
    merged: usize,
    out: Option<String>,
    copied: usize,
    changed: usize,
}

impl<'a> Pass<'a> {
    fn new(html: &'a str) -> Self {
        Pass {
            html,
            open: OpenElements::default(),
            dropped: HashMap::new(),
            form: None,
            fostered: 0,
            merged: 0,
            out: None,
            copied: 0,
            changed: 0,
        }
    }

    fn keep(&mut self, tag: &Token) {
        let Some(cut) = tag.cut else { return };
        let close = if tag.self_closing { "/>" } else { ">" };
        let kept = format!("{}{close}", &self.html[tag.start..cut]);
        self.replace(tag, &kept);
    }

    fn drop_tag(&mut self, tag: &Token) {
        if !tag.end_tag {
            *self.dropped.entry(tag.name.hash).or_default() += 1;
        }
        self.replace(tag, "");
    }

    fn replace(&mut self, tag: &Token, with: &str) {
        let html = self.html;
        let out = self.out.get_or_insert_with(|| String::with_capacity(html.len()));
        out.push_str(&html[self.copied..tag.start]);
        out.push_str(with);
        self.copied = tag.end;
        self.changed += 1;
    }

    fn tag(&mut self, tag: &Token) -> Action {
        if let Some(text) = tag.text_before {
            let fostering = self.fostering();
            if fostering && text.solid {
                // The text and the formatting elements reopened for it go before the table.
                self.fostered += 1 + self.open.closed_formatting();
                if self.fostered > MAX_FOSTERED {
                    self.open_cell(text.start);
                }
            }
            // Spaces in a table go in as they are; other text reopens the formatting elements.
            let html = self.open.top().is_none_or(|top| !top.foreign || top.integration_point());
            if html && (text.solid || !fostering) {
                self.open.reconstruct();
            }
        }
        if tag.end_tag {
            self.end(tag)
        } else {
            self.start(tag)
        }
    }

    /// Where a `<select>` is open in the default scope: html5ever reads a select's content
    /// as the body's (the "customizable select" rules), closing it on a nested `<select>` or
    /// an `<input>`.
    fn select_at(&self, len: usize) -> Option<usize> {
        self.open.in_scope(len, Tag::Select, &[])
    }

    /// `len` after the tree builder closed the elements with implied ends on top (but
    /// those of `except`).
    fn implied_ends(&self, mut len: usize, except: Option<Tag>) -> usize {
        while self.open.get(len.wrapping_sub(1)).is_some_and(|o| implied_end(o) && Some(o.name.tag) != except) {
            len -= 1;
        }
        len
    }

    /// Whether the parser would put content here before the table instead (foster
    /// parenting): in a table, outside its cells and caption.
    fn fostering(&self) -> bool {
        self.open.top().is_some_and(|o| {
            !o.foreign && matches!(o.name.tag, Tag::Table | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr)
        })
    }

    /// Opens a cell at `at` for the text that starts there, so it stays in the table; when
    /// no more elements may open, ends the table there instead.
    fn open_cell(&mut self, at: usize) {
        if at < self.copied {
            return;
        }
        let len = self.open.len();
        let inserted = if matches!(self.table_start(len, Open::html(Name::of(b"td"))), Action::Keep) {
            "<td>"
        } else {
            let table = self.open.search(len, |o| o.is(Tag::Table), |o| o.is(Tag::Template) || o.is(Tag::Frameset));
            let Some(table) = table else { return };
            self.open.pop_to(table);
            "</table>"
        };
        let html = self.html;
        let out = self.out.get_or_insert_with(|| String::with_capacity(html.len()));
        out.push_str(&html[self.copied..at]);
        out.push_str(inserted);
        self.copied = at;
        self.changed += 1;
    }

    /// Closes a `<p>` open in button scope.
    fn close_p(&self, len: usize) -> usize {
        self.open.in_scope(len, Tag::P, &[Tag::Button]).unwrap_or(len)
    }

    /// Whether the parser surely reads a raw-text element's content as text here: not in
    /// SVG or MathML, nor in a frameset (where it ignores the tag).
    fn raw_text(&self) -> bool {
        !self.open.any_foreign_or_frameset()
    }
}

const INPUT: u64 = super::elements::hash(b"input");
const SCRIPT: u64 = super::elements::hash(b"script");
const STYLE: u64 = super::elements::hash(b"style");

/// Start tags and runs of text put before their table (foster parenting), at most: each
/// one costs the parser a look through the table's parent's children. Past it, tags in
/// that place are dropped and text gets a cell of its own.
pub const MAX_FOSTERED: usize = 1000;

/// An element whose end the parser implies before most end tags (`dd`, `dt`, `li`,
/// `optgroup`, `option`, `p`, `rb`, `rp`, `rt`, `rtc`).
fn implied_end(open: &Open) -> bool {
    const RUBY: [u64; 4] = [
        super::elements::hash(b"rb"),
        super::elements::hash(b"rp"),
        super::elements::hash(b"rt"),
        super::elements::hash(b"rtc"),
    ];
    !open.foreign
        && (matches!(open.name.tag, Tag::Dd | Tag::Dt | Tag::Li | Tag::Optgroup | Tag::Option | Tag::P)
            || RUBY.contains(&open.name.hash))
}

/// `address`, `div` or `p`: the special elements the search for an open `<li>` passes.
fn is_address_div_p(open: &Open) -> bool {
    const ADDRESS: u64 = super::elements::hash(b"address");
    const DIV: u64 = super::elements::hash(b"div");
    !open.foreign && (open.name.tag == Tag::P || open.name.hash == ADDRESS || open.name.hash == DIV)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_after(html: &str) -> usize {
        let mut pass = Pass::new(html);
        let mut scanner = Scanner::new(html);
        while let Some(tag) = scanner.next_tag() {
            match pass.tag(&tag) {
                Action::Raw => scanner.skip_raw_text(&tag.name),
                Action::Stop => scanner.stop(),
                _ => {}
            }
        }
        pass.open.len()
    }

    #[test]
    fn implied_ends_are_followed() {
        assert_eq!(depth_after("<p>a<p>b<div>c<p>d"), 2); // div > p
        assert_eq!(depth_after("<ul><li>a<li>b<li>c"), 2);
        assert_eq!(depth_after("<dl><dt>a<dd>b<dt>c"), 2);
        assert_eq!(depth_after("<table><td>a<td>b<tr><td>c"), 4); // table tbody tr td
        assert_eq!(depth_after("<h1>a<h2>b"), 1);
        assert_eq!(depth_after("<span><div></span>"), 2); // a special element above: ignored
        assert_eq!(depth_after("<b><p>x</b>"), 1); // the adoption agency: b moved into the p, then closed
        assert_eq!(depth_after("<p><b>x</p>y<i>"), 2); // b reopened before y
        assert_eq!(depth_after("<script><div><div></script><p>"), 1);
        assert_eq!(depth_after("<svg><title><div></svg>"), 3);
        assert_eq!(depth_after("<svg><g><p>x"), 1); // p leaves the SVG
    }

    #[test]
    fn text_past_the_fostering_limit_gets_a_cell_and_stays() {
        let html = "<table>x".repeat(MAX_FOSTERED + 500);
        let capped = cap(&html);
        assert!(capped.html.contains("<td>x"), "{:.200}", capped.html);
        assert_eq!(capped.html.matches('x').count(), MAX_FOSTERED + 500);
    }

    #[test]
    fn a_page_within_the_limits_is_untouched() {
        let html = "<!doctype html><html><body><div><p>a<b>b</b><ul><li>x<li>y</ul></div></body></html>";
        let capped = cap(html);
        assert!(matches!(capped.html, Cow::Borrowed(_)));
        assert_eq!(capped.changed, 0);
    }

    #[test]
    fn deep_nesting_and_unclosed_formatting_are_capped() {
        let html = format!("{}x{}", "<div>".repeat(1000), "</div>".repeat(1000));
        let capped = cap(&html);
        assert_eq!(capped.html, format!("{}x{}", "<div>".repeat(MAX_DEPTH), "</div>".repeat(MAX_DEPTH)));
        let html = format!("{}x", "<b><i>".repeat(1000));
        let capped = cap(&html);
        assert_eq!(capped.html.matches('<').count(), MAX_DEPTH);
        assert!(capped.html.ends_with('x'));
        let html: String = (0..1000).map(|i| format!("<p><b id={i}>x</p>")).collect();
        assert!(cap(&html).html.matches("<b").count() <= MAX_FORMATTING);
    }
}
