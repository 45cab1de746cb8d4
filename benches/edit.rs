//! The worst cases of `edit` with an `old` that is not in the file (issue 9 item 4): the
//! plan — read, search, nearest-lines hint — must answer within a fraction of a second
//! where the character-level diff took 22 s and over 120 s. Run with `cargo bench --bench
//! edit`; the budget is < 0.25 s per plan.

use criterion::{criterion_group, criterion_main, Criterion};
use elelem::tools::edit::plan;
use serde_json::json;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A file of `lines` lines with one line of `long` characters in the middle (`long` for
/// every line when `all_long`), and an `old` as long as that line that is not in the file.
fn case(dir: &std::path::Path, name: &str, lines: usize, long: usize, all_long: bool) -> serde_json::Value {
    let wide: String = "let value = compute(a, b); ".chars().cycle().take(long).collect();
    let text: String = (0..lines)
        .map(|i| if all_long || i == lines / 2 { format!("{i} {wide}\n") } else { format!("line {i} of the file\n") })
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the bench file");
    let old = format!("{}\n{}", wide.replace("a, b", "b, a"), wide);
    json!({"path": path.to_string_lossy(), "old": old, "new": "x"})
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let cases = [
        ("5,000 lines, one of 2,000 chars", case(dir.path(), "one_long.rs", 5_000, 2_000, false)),
        ("2,000 lines of 10,000 chars", case(dir.path(), "all_long.rs", 2_000, 10_000, true)),
    ];
    let mut group = c.benchmark_group("edit: old not found");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, args) in &cases {
        let error = rt.block_on(plan(args, &CancellationToken::new())).expect_err("old is not in the file");
        assert!(error.contains("was not found"), "{error}");
        group.bench_function(*name, |b| b.iter(|| rt.block_on(plan(args, &CancellationToken::new()))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
