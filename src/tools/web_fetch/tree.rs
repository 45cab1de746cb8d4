//! The parsed page made safe for the converter (htmd), which walks the tree recursively
//! and merges runs of alike inline siblings one removal at a time. In one pass with an
//! explicit stack: an element deeper than `MAX_TREE_DEPTH` gives its text to its ancestor
//! at that depth (whatever `nesting.rs` let through, the walk's depth is bounded), and
//! long runs of sibling inline elements each holding only text are merged the way htmd
//! would merge them, but in linear time (issue 37). A page within the limits converts
//! exactly as htmd alone converts it.

use markup5ever_rcdom::{Node, NodeData};
use std::rc::Rc;

/// Elements deep, at most (the document is at 0).
pub const MAX_TREE_DEPTH: usize = 512;
/// Children past which a node's runs of alike inline siblings are merged here.
const MERGE_AT: usize = 64;

/// htmd's block elements (its `dom_walker.rs`): never merged.
const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "pre",
    "script",
    "search",
    "section",
    "style",
    "summary",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// Elements whose children htmd reads one by one itself (lists, tables), never merging.
const READ_ONE_BY_ONE: &[&str] = &["ul", "ol", "table", "thead", "tbody", "tfoot", "tr"];

/// Bounds `document` for the walk; `skipped`: tags whose content is not text (scripts,
/// styles...). Returns how many elements past the depth limit were flattened.
pub fn prepare(document: &Rc<Node>, skipped: &[&str]) -> usize {
    let mut flattened = 0;
    let mut stack = vec![(document.clone(), 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth >= MAX_TREE_DEPTH {
            flattened += flatten(&node, skipped);
            continue;
        }
        if let NodeData::Element { name, .. } = &node.data {
            if !READ_ONE_BY_ONE.contains(&&*name.local) && node.children.borrow().len() > MERGE_AT {
                merge_runs(&node);
            }
        }
        for child in node.children.borrow().iter() {
            if matches!(child.data, NodeData::Element { .. }) {
                stack.push((child.clone(), depth + 1));
            }
        }
    }
    flattened
}

/// Replaces what `node` holds by its text; the number of elements it held.
fn flatten(node: &Rc<Node>, skipped: &[&str]) -> usize {
    let mut text = String::new();
    let mut elements = 0;
    let mut pending: Vec<Rc<Node>> = node.children.borrow().iter().rev().cloned().collect();
    while let Some(next) = pending.pop() {
        match &next.data {
            NodeData::Text { contents } => text.push_str(&contents.borrow()),
            NodeData::Element { name, .. } => {
                elements += 1;
                if !skipped.contains(&&*name.local) {
                    pending.extend(next.children.borrow().iter().rev().cloned());
                }
            }
            _ => {}
        }
    }
    if elements == 0 {
        return 0;
    }
    let old = std::mem::take(&mut *node.children.borrow_mut());
    drop(old);
    if !text.is_empty() {
        let child = Node::new(NodeData::Text { contents: std::cell::RefCell::new(text.into()) });
        child.parent.set(Some(Rc::downgrade(node)));
        node.children.borrow_mut().push(child);
    }
    elements
}

/// Merges each run of siblings htmd would combine (`dom_walker::can_combine`: inline
/// elements alike, each holding one text node) into its first, as htmd does.
fn merge_runs(node: &Rc<Node>) {
    let children = std::mem::take(&mut *node.children.borrow_mut());
    let mut kept: Vec<Rc<Node>> = Vec::with_capacity(children.len());
    for child in children {
        if let Some(last) = kept.last() {
            if let (Some(into), Some(from)) = (only_text(last), only_text(&child)) {
                if combinable(last, &child) {
                    if let (NodeData::Text { contents: into }, NodeData::Text { contents: from }) =
                        (&into.data, &from.data)
                    {
                        into.borrow_mut().push_tendril(&from.borrow());
                    }
                    continue;
                }
            }
        }
        kept.push(child);
    }
    *node.children.borrow_mut() = kept;
}

/// The one child of `node` when it is a text node.
fn only_text(node: &Rc<Node>) -> Option<Rc<Node>> {
    let children = node.children.borrow();
    match children.as_slice() {
        [only] if matches!(only.data, NodeData::Text { .. }) => Some(only.clone()),
        _ => None,
    }
}

/// htmd's test for two adjacent siblings it merges (each known to hold one text node).
fn combinable(first: &Node, second: &Node) -> bool {
    let (
        NodeData::Element {
            name: name1,
            attrs: attrs1,
            template_contents: template1,
            mathml_annotation_xml_integration_point: point1,
        },
        NodeData::Element {
            name: name2,
            attrs: attrs2,
            template_contents: template2,
            mathml_annotation_xml_integration_point: point2,
        },
    ) = (&first.data, &second.data)
    else {
        return false;
    };
    let (a, b) = (&*name1.local, &*name2.local);
    !BLOCK.contains(&a)
        && a != "a"
        && (name1 == name2 || matches!((a, b), ("i", "em") | ("em", "i") | ("b", "strong") | ("strong", "b")))
        && template1.borrow().is_none()
        && template2.borrow().is_none()
        && attrs1 == attrs2
        && point1 == point2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(html: &str) -> Rc<Node> {
        htmd::HtmlToMarkdown::new().html_to_tree(html).unwrap()
    }

    fn depth(node: &Rc<Node>) -> usize {
        let mut stack = vec![(node.clone(), 0)];
        let mut deepest = 0;
        while let Some((node, d)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend(node.children.borrow().iter().map(|c| (c.clone(), d + 1)));
        }
        deepest
    }

    #[test]
    fn a_deep_tree_keeps_its_text_at_the_limit() {
        let html = format!("{}deep text{}", "<span>".repeat(2000), "</span>".repeat(2000));
        let document = tree(&html);
        assert!(prepare(&document, &[]) > 1000);
        assert!(depth(&document) <= MAX_TREE_DEPTH + 1);
        let markdown = htmd::HtmlToMarkdown::new().tree_to_markdown(&document);
        assert_eq!(markdown, "deep text");
    }

    #[test]
    fn merged_runs_convert_as_htmd_converts_them() {
        let runs: String = (0..200).map(|i| format!("<b>{i}</b><strong>s</strong><i>x</i> <code>c</code>")).collect();
        let html = format!("<p>{runs}</p><ul>{}</ul>", "<b>l</b>".repeat(100));
        let converter = htmd::HtmlToMarkdown::new();
        let expected = converter.convert(&html).unwrap();
        let document = tree(&html);
        assert_eq!(prepare(&document, &[]), 0);
        assert_eq!(converter.tree_to_markdown(&document), expected);
    }
}
