//! Streaming a ~1 MB Markdown reply into `MarkdownDoc` the way the UI follows output (height
//! and the bottom 40-row window after every delta), a 200 KB Rust file streamed in 500 deltas
//! with a cold highlight cache, and re-laying out a finished large doc at a new width.
//!
//! Before criterion runs, `shapes` prints the cost of streaming one long block of each shape
//! (3,000 and 8,000 one-line chunks, a frame after each chunk) next to the same text as short
//! paragraphs: the open block must cost no more per frame the longer it gets (issue 13), and
//! `thinking` the cost of a frame while 10 KB and 500 KB of thinking stream into the
//! conversation pane: it must not grow with the thinking's length (issue 27).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use elelem::tui::markdown::{MarkdownDoc, RenderOptions};

mod common;
use common::{one_megabyte_text, pieces, shape_chunk, SHAPES};

const DELTA: usize = 2000;
const WINDOW: usize = 40;

/// About `target` bytes of mixed Markdown: paragraphs, lists, code blocks and tables.
fn reply(target: usize, salt: u64) -> String {
    let mut out = String::with_capacity(target + 4096);
    let mut i = 0usize;
    while out.len() < target {
        out.push_str(&format!("## Section {i}\n\n"));
        out.push_str(&format!(
            "This is paragraph {i} with *emphasis*, **strong text**, `inline code` and a \
             [link](https://example.com/{i}). It goes on for a while so that it wraps over \
             several lines at common terminal widths, with some 漢字 and emoji 🎉 mixed in.\n\n"
        ));
        out.push_str("- first item with some words\n- second item\n  - nested item\n- third item\n\n");
        out.push_str(&format!(
            "```rust\nfn section_{i}(x: u32) -> u32 {{\n    // add things up\n    let y = x * 2 + {i} + {salt};\n    \
             println!(\"{{}}\", y);\n    y\n}}\n```\n\n"
        ));
        out.push_str(&format!(
            "| name | value | note |\n|------|------:|------|\n| alpha | {i} | first |\n| beta | {} | a longer note here |\n\n",
            i * 2
        ));
        out.push_str("> A quoted remark that is also\n> spread over two lines.\n\n");
        i += 1;
    }
    out
}

/// A reply that is one Rust file of about `target` bytes in a closed fence (ASCII only).
fn rust_file(target: usize, salt: u64) -> String {
    let mut out = String::from("Here is the file:\n\n```rust\n");
    let mut i = 0;
    while out.len() < target {
        out.push_str(&format!(
            "/// Doc comment {i}.\npub fn item_{i}_{salt}(x: &str) -> Option<u64> {{\n    let s = \"text {i}\";\n    \
             x.parse::<u64>().ok().map(|n| n * {i} + s.len() as u64) // step\n}}\n\n"
        ));
        i += 1;
    }
    out.push_str("```\n\nThe end.\n");
    out
}

fn deltas(text: &str) -> Vec<&str> {
    pieces(text, DELTA).collect()
}

fn stream(c: &mut Criterion) {
    let text = reply(1 << 20, 0);
    let chunks = deltas(&text);
    let mut group = c.benchmark_group("markdown");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function("stream_1mb_2000b_deltas_follow_bottom", |b| {
        b.iter(|| {
            let mut doc = MarkdownDoc::new(RenderOptions::default());
            for chunk in &chunks {
                doc.push_str(chunk);
                let height = doc.height(100);
                black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
            }
            doc
        })
    });
    // Every iteration streams different code, so no highlight comes from the cache.
    let mut salt = 0u64;
    group.bench_function("stream_1mb_cold_highlight_cache", |b| {
        b.iter_batched(
            || {
                salt += 1;
                reply(1 << 20, salt)
            },
            |text| {
                let mut doc = MarkdownDoc::new(RenderOptions::default());
                for chunk in deltas(&text) {
                    doc.push_str(chunk);
                    let height = doc.height(100);
                    black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
                }
                doc
            },
            BatchSize::PerIteration,
        )
    });

    // A model writing a whole file: one 200 KB code block arriving in 400-byte deltas, a frame
    // (height + bottom window) after every delta.
    let code = common::code_block_text() + "```\n";
    let code_chunks: Vec<&str> = code.as_bytes().chunks(400).map(|c| std::str::from_utf8(c).unwrap_or("")).collect();
    group.bench_function("stream_200kb_code_block_400b_deltas", |b| {
        b.iter(|| {
            let mut doc = MarkdownDoc::new(RenderOptions::default());
            for chunk in &code_chunks {
                doc.push_str(chunk);
                let height = doc.height(100);
                black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
            }
            doc
        })
    });

    // The same 200 KB file in 500 deltas, different in every iteration so nothing comes from
    // the highlight cache: the whole cost of highlighting a file as it streams in and finishes.
    let mut salt = 0u64;
    group.bench_function("stream_200kb_rust_file_500_deltas_cold", |b| {
        b.iter_batched(
            || {
                salt += 1;
                rust_file(200_000, salt)
            },
            |file| {
                let mut doc = MarkdownDoc::new(RenderOptions::default());
                let size = file.len().div_ceil(500);
                for chunk in file.as_bytes().chunks(size) {
                    doc.push_str(std::str::from_utf8(chunk).unwrap_or_default());
                    let height = doc.height(100);
                    black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
                }
                doc
            },
            BatchSize::PerIteration,
        )
    });

    let mut doc = MarkdownDoc::new(RenderOptions::default());
    doc.push_str(&text);
    let mut width = 80u16;
    // A width change lays out only the window shown (the rest is estimated until shown).
    group.bench_function("relayout_1mb_window_at_new_width", |b| {
        b.iter(|| {
            width = if width == 80 { 81 } else { 80 };
            let height = doc.height(width);
            let top = doc.settle(width, height / 2, 0, WINDOW);
            black_box(doc.lines(width, top, WINDOW))
        })
    });
    group.bench_function("window_of_laid_out_1mb_doc", |b| {
        b.iter(|| {
            let height = doc.height(width);
            let top = doc.settle(width, height / 2, 0, WINDOW);
            black_box(doc.lines(width, top, WINDOW))
        })
    });
    // The e2e rows' reply, at once, then its bottom window; and a width change of it.
    let e2e = one_megabyte_text();
    group.bench_function("push_1mb_at_once_then_bottom_window", |b| {
        b.iter(|| {
            let mut doc = MarkdownDoc::new(RenderOptions::default());
            doc.push_str(&e2e);
            let height = doc.height(120);
            let end = doc.settle(120, height, WINDOW, 0);
            black_box(doc.lines(120, end.saturating_sub(WINDOW), WINDOW));
            doc
        })
    });
    let mut doc = MarkdownDoc::new(RenderOptions::default());
    doc.push_str(&e2e);
    group.bench_function("width_change_of_1mb_then_bottom_window", |b| {
        b.iter(|| {
            width = if width == 120 { 100 } else { 120 };
            let height = doc.height(width);
            let end = doc.settle(width, height, WINDOW, 0);
            black_box(doc.lines(width, end.saturating_sub(WINDOW), WINDOW))
        })
    });
    group.finish();
}

/// Streams `n` chunks of `shape`, a frame (height + bottom window) after every `every`, then
/// the end of the block and its frame; returns the seconds taken and the mean time of the
/// first and last tenth of the frames (with the chunks before each), in microseconds.
fn stream_shape(shape: &str, n: usize, every: usize) -> (f64, f64, f64) {
    let mut doc = MarkdownDoc::new(RenderOptions::default());
    let mut frames = Vec::with_capacity(n);
    let started = std::time::Instant::now();
    let mut frame = std::time::Instant::now();
    for i in 0..n {
        doc.push_str(&shape_chunk(shape, i));
        if (i + 1) % every == 0 || i + 1 == n {
            let height = doc.height(100);
            black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
            frames.push(frame.elapsed().as_secs_f64() * 1e6);
            frame = std::time::Instant::now();
        }
    }
    doc.push_str("\n\nEND-OF-SHAPE\n");
    let height = doc.height(100);
    black_box(doc.lines(100, height.saturating_sub(WINDOW), WINDOW));
    let total = started.elapsed().as_secs_f64();
    let tenth = (frames.len() / 10).max(1);
    let mean = |f: &[f64]| f.iter().sum::<f64>() / f.len() as f64;
    (total, mean(&frames[..tenth]), mean(&frames[frames.len() - tenth..]))
}

/// Prints the shapes' costs; `SHAPE_RUNS` (default 3) runs each, `SHAPE_CHUNKS` (default
/// "3000,8000") picks the lengths, `SHAPE_CHUNKS=0` skips them, `SHAPE_EVERY` (default 1)
/// draws a frame every that many chunks (the TUI's 3,000 chunks 1 ms apart get ~45 frames:
/// one every ~65 chunks).
fn shapes() {
    let runs: usize = std::env::var("SHAPE_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(3).max(1);
    let every: usize = std::env::var("SHAPE_EVERY").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let lengths = std::env::var("SHAPE_CHUNKS").unwrap_or_else(|_| "3000,8000".into());
    for n in lengths.split(',').filter_map(|n| n.trim().parse::<usize>().ok()).filter(|&n| n > 0) {
        for shape in SHAPES {
            let mut results: Vec<(f64, f64, f64)> = (0..runs).map(|_| stream_shape(shape, n, every)).collect();
            results.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (total, first, last) = results[runs / 2];
            println!(
                "shape {shape:>10} x {n}: {:8.1} ms total (median of {runs}), frame {first:7.1} us first tenth, {last:7.1} us last tenth",
                total * 1000.0
            );
        }
    }
}

/// Streams `bytes` of thinking into the conversation pane in 100-byte deltas, a frame (the
/// bottom 40 rows at 100 columns) after each; returns the mean frame time of the first and
/// last tenth, in microseconds.
fn stream_thinking(bytes: usize) -> (f64, f64) {
    use elelem::tui::panes::conversation::history::History;
    use elelem::tui::text::theme::Theme;
    let theme = Theme::new(true);
    let mut history = History::new(true);
    let line = "Let me think about what the user asked, and which files I should read first.\n";
    let text = line.repeat(bytes / line.len() + 1);
    let mut frames = Vec::new();
    for chunk in pieces(&text[..bytes], 100) {
        let started = std::time::Instant::now();
        history.thinking(chunk);
        black_box(history.visible(100, WINDOW, &theme, false));
        frames.push(started.elapsed().as_secs_f64() * 1e6);
    }
    let tenth = (frames.len() / 10).max(1);
    let mean = |f: &[f64]| f.iter().sum::<f64>() / f.len() as f64;
    (mean(&frames[..tenth]), mean(&frames[frames.len() - tenth..]))
}

/// Prints the frame cost of streaming thinking (`THINKING=0` skips it).
fn thinking() {
    if std::env::var("THINKING").is_ok_and(|v| v == "0") {
        return;
    }
    for bytes in [10_000, 500_000] {
        let (first, last) = stream_thinking(bytes);
        println!(
            "thinking {:>4} KB in 100 B deltas: frame {first:7.1} us first tenth, {last:7.1} us last tenth",
            bytes / 1000
        );
    }
}

criterion_group!(benches, stream);
criterion_main!(shapes, thinking, benches);
