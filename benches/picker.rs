//! The `@` file picker on a 100,000-file tree (issue 12 item 11): each keystroke re-ranks
//! the paths, so one rank must fit well inside a frame. Budget: < 16 ms per keystroke for a
//! fresh query (every path scored) and less for a query that extends the last one. Also
//! timed: listing a real 100,000-file tree once (the background walk, not on any keystroke's
//! path). Run with `cargo bench --bench picker`.

use criterion::{criterion_group, criterion_main, Criterion};
use elelem::tui::popups::file_index::{FileIndex, Ranker};
use std::time::Duration;

/// 100,000 paths shaped like a big repository: nested directories, varied names.
fn paths() -> Vec<String> {
    let dirs = ["src", "lib", "tests", "docs", "crates", "packages", "vendor", "tools"];
    let subs = ["core", "ui", "net", "agent", "render", "parser", "util", "io", "config", "cli"];
    let stems = ["main", "mod", "lib", "handler", "widget", "buffer", "stream", "model", "index", "event"];
    let exts = ["rs", "ts", "md", "json", "py", "toml", "c", "h"];
    (0..100_000usize)
        .map(|i| {
            format!(
                "{}/{}{}/{}/{}_{}.{}",
                dirs[i % dirs.len()],
                subs[(i / 8) % subs.len()],
                i % 37,
                subs[(i / 80) % subs.len()],
                stems[(i / 3) % stems.len()],
                i,
                exts[(i / 7) % exts.len()]
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let paths = paths();
    let mut group = c.benchmark_group("picker: rank 100k paths");
    group.sample_size(20).measurement_time(Duration::from_secs(5));
    for query in ["s", "src/ui", "handler_123"] {
        let mut ranker = Ranker::new(FileIndex::from_paths(paths.clone()));
        ranker.rank("");
        // Alternating two queries scores every path each time: two fresh ranks per
        // iteration, the empty query and this one.
        group.bench_function(format!("empty query then {query:?} (two full ranks)"), |b| {
            b.iter(|| {
                ranker.rank("");
                ranker.rank(query).len()
            })
        });
    }
    // Typing `src/core1/mod` one character at a time, from an empty query (15 ranks an
    // iteration: two full ones to start, then one per keystroke).
    let typed = "src/core1/mod";
    let mut ranker = Ranker::new(FileIndex::from_paths(paths.clone()));
    group.bench_function(format!("typing {typed:?} ({} keystrokes)", typed.len()), |b| {
        b.iter(|| {
            ranker.rank("x");
            ranker.rank("");
            (1..=typed.len()).map(|n| ranker.rank(&typed[..n]).len()).sum::<usize>()
        })
    });
    group.finish();
    walk(c, &paths);
}

/// The background walk of a 100,000-file tree on disk (empty files, the paths above).
fn walk(c: &mut Criterion, paths: &[String]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for path in paths {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a directory of the tree");
        }
        std::fs::write(&path, "").expect("a file of the tree");
    }
    let mut group = c.benchmark_group("picker: list a 100k-file tree");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.bench_function("walk (2 threads, gitignore-aware)", |b| {
        b.iter(|| {
            let index = FileIndex::walk(dir.path().to_path_buf());
            index.wait();
            let mut ranker = Ranker::new(index);
            ranker.rank("");
            ranker.counts().0
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
