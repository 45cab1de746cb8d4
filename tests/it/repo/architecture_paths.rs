//! ARCHITECTURE.md cannot drift from the tree: every `.rs` path it names exists. A path is
//! read from the repository root, from `src/`, from `src/tui/` (the TUI's sections name
//! files from there) or from `tests/it/`; a bare file name must exist somewhere under
//! `src/`, `tests/`, `benches/` or `examples/`.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every token of `text` that ends in `.rs`, made of the characters a path holds.
fn rs_paths(text: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '.');
    let mut found = Vec::new();
    for token in text.split(|c: char| !is_path_char(c)) {
        let token = token.trim_end_matches('.');
        if token.ends_with(".rs") && token.len() > 3 {
            found.push(token.trim_start_matches("./").to_string());
        }
    }
    found.sort();
    found.dedup();
    found
}

fn file_names(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            file_names(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn exists(path: &str, everywhere: &[PathBuf]) -> bool {
    if !path.contains('/') {
        return everywhere.iter().any(|p| p.file_name().is_some_and(|n| n == path));
    }
    ["", "src", "src/tui", "tests/it"].iter().any(|base| root().join(base).join(path).is_file())
}

#[test]
fn every_rs_path_architecture_md_names_exists() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut everywhere = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        file_names(&root().join(dir), &mut everywhere);
    }
    let missing: Vec<String> = rs_paths(&doc).into_iter().filter(|p| !exists(p, &everywhere)).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names files that do not exist: {missing:#?}");
}

#[test]
fn the_scanner_finds_paths_in_prose_and_code_spans() {
    let text = "See `src/tui/app.rs`, (agent/tool.rs) and keys.rs. Not `rs` or foo.rsx; ./x/y.rs.";
    assert_eq!(rs_paths(text), ["agent/tool.rs", "keys.rs", "src/tui/app.rs", "x/y.rs"]);
}

#[test]
fn a_missing_path_is_seen() {
    let mut everywhere = Vec::new();
    file_names(&root().join("src"), &mut everywhere);
    assert!(
        exists("tui/app.rs", &everywhere) && exists("src/tui/app.rs", &everywhere) && exists("app.rs", &everywhere)
    );
    assert!(!exists("tui/settle_nowhere.rs", &everywhere) && !exists("nowhere_at_all.rs", &everywhere));
}
