//! A document too big to lay out whole (a reply arriving at once, a width change): frames lay
//! out only what they show, and what they show is exactly what a whole render shows, whether
//! at the bottom, at the top, or paged through across blocks that were only estimated.

use super::doc::EXACT_BATCH;
use super::tests::SAMPLE;
use super::{render, MarkdownDoc, RenderOptions};
use ratatui::text::Line;

const PAGE: usize = 40;

/// `SAMPLE` repeated past a few exact batches, with numbered paragraphs between.
fn big() -> String {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 4 * EXACT_BATCH {
        text.push_str(SAMPLE);
        text.push_str(&format!(
            "\nParagraph {i} that is long enough to wrap over more than one line at forty columns.\n\n"
        ));
        i += 1;
    }
    text
}

/// `big()` and a document holding it, pushed at once.
fn big_doc() -> (String, MarkdownDoc) {
    let text = big();
    let mut doc = MarkdownDoc::default();
    doc.push_str(&text);
    (text, doc)
}

fn whole(text: &str, width: u16) -> Vec<Line<'static>> {
    render(text, width, RenderOptions::default())
}

#[test]
fn a_big_reply_at_once_lays_out_only_the_bottom_it_shows() {
    let (text, mut doc) = big_doc();
    let height = doc.height(100);
    assert_eq!(doc.laid_out_blocks(), 0, "measuring estimates");
    let end = doc.settle(100, height, PAGE, 0);
    let shown = doc.laid_out_blocks();
    assert!(shown > 0 && shown <= PAGE, "laid out {shown} blocks for a {PAGE}-row window");
    let all = whole(&text, 100);
    assert_eq!(doc.lines(100, end - PAGE, PAGE), all[all.len() - PAGE..]);
    assert_eq!(doc.height(100), end);
}

#[test]
fn after_a_width_change_the_bottom_lays_out_few_blocks_and_shows_the_true_last_lines() {
    let (text, mut doc) = big_doc();
    let height = doc.height(100);
    let end = doc.settle(100, height, PAGE, 0);
    let _ = doc.lines(100, end - PAGE, PAGE);
    let height = doc.height(60);
    assert_eq!(doc.laid_out_blocks(), 0);
    let end = doc.settle(60, height, PAGE, 0);
    assert!(doc.laid_out_blocks() <= PAGE);
    let all = whole(&text, 60);
    assert_eq!(doc.lines(60, end - PAGE, PAGE), all[all.len() - PAGE..]);
}

#[test]
fn scrolling_to_the_top_after_a_resize_shows_what_a_full_layout_shows() {
    let (text, mut doc) = big_doc();
    let _ = doc.height(100);
    let top = doc.settle(70, 0, 0, PAGE);
    assert_eq!(top, 0);
    assert!(doc.laid_out_blocks() <= PAGE);
    assert_eq!(doc.lines(70, 0, PAGE), whole(&text, 70)[..PAGE]);
}

#[test]
fn paging_up_from_the_bottom_across_estimates_neither_skips_nor_repeats() {
    let (text, mut doc) = big_doc();
    let height = doc.height(50);
    let mut top = doc.settle(50, height, PAGE, 0) - PAGE;
    let mut pages = vec![doc.lines(50, top, PAGE)];
    while top > 0 {
        let anchor = doc.settle(50, top, PAGE, 0);
        top = anchor.saturating_sub(PAGE);
        pages.push(doc.lines(50, top, anchor - top));
    }
    let shown: Vec<Line<'static>> = pages.into_iter().rev().flatten().collect();
    let all = whole(&text, 50);
    assert_eq!(shown.len(), all.len());
    assert!(shown == all, "paging up shows the whole document once, in order");
    assert_eq!(doc.height(50), all.len(), "once everything was shown, heights are exact");
}

#[test]
fn paging_down_from_the_top_across_estimates_neither_skips_nor_repeats() {
    let (text, mut doc) = big_doc();
    let mut top = doc.settle(90, 0, 0, PAGE);
    let mut shown = Vec::new();
    while top < doc.height(90) {
        top = doc.settle(90, top, 0, PAGE);
        shown.extend(doc.lines(90, top, PAGE));
        top += PAGE;
    }
    assert!(shown == whole(&text, 90), "paging down shows the whole document once, in order");
}

#[test]
fn a_row_inside_an_estimated_block_keeps_its_offset_there() {
    let (_, mut doc) = big_doc();
    let height = doc.height(80);
    let middle = doc.settle(80, height / 2, 0, PAGE);
    // The window from there is laid out: asking again moves nothing.
    assert_eq!(doc.settle(80, middle, 0, PAGE), middle);
    let lines = doc.lines(80, middle, PAGE);
    assert_eq!(lines.len(), PAGE);
}
