//! The import rules of ARCHITECTURE.md, checked on the source: each layer names only the
//! layers below it. A forbidden `crate::` path (or `super::` climbing out of a layer)
//! fails this test with the file and line.

use std::path::{Path, PathBuf};

/// Which top-level modules each layer may name through `crate::`.
const RULES: &[(&str, &[&str])] = &[
    ("protocol", &[]),
    ("bytes", &[]),
    ("agent", &["protocol", "bytes"]),
    ("providers", &["protocol", "bytes"]),
    ("pacing", &["agent", "protocol"]),
    ("tools", &["agent", "protocol", "process_tree"]),
    ("plugins", &["agent", "protocol", "process_tree"]),
    ("process_tree", &[]),
    ("clipboard", &[]),
    ("sanitize", &["bytes"]),
    ("editor", &[]),
    (
        "startup",
        &["agent", "protocol", "plugins", "tools", "providers", "sessions", "data_dir", "process_tree", "pacing"],
    ),
    ("signals", &[]),
    ("data_dir", &[]),
    ("json_lines", &["bytes"]),
    ("sessions", &["agent", "protocol", "data_dir", "json_lines"]),
    ("tool_outcome", &["protocol", "sanitize"]),
    (
        "tui",
        &["agent", "protocol", "startup", "sanitize", "signals", "data_dir", "clipboard", "editor", "tool_outcome"],
    ),
    ("repl", &["agent", "protocol", "sanitize", "signals", "startup", "clipboard", "editor", "tool_outcome"]),
    ("ask", &["agent", "protocol", "sanitize", "json_lines"]),
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a file names through `crate::` (outside comments).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let name = if name.is_empty() && after.starts_with('{') { "{".to_string() } else { name };
            found.push((n + 1, name));
            rest = &after[1..];
        }
    }
    found
}

#[test]
fn every_layer_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut broken = Vec::new();
    for (layer, allowed) in RULES {
        let mut paths = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            files(&dir, &mut paths);
        } else {
            paths.push(src.join(format!("{layer}.rs")));
        }
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            for (line, name) in crate_paths(&text) {
                if name != *layer && !allowed.contains(&name.as_str()) {
                    broken.push(format!("{}:{line}: {layer} names crate::{name}", path.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "forbidden imports:\n{}", broken.join("\n"));
}

#[test]
fn the_scanner_sees_grouped_and_nested_paths() {
    let found = crate_paths("use crate::{agent, tools};\nlet x = crate::tools::all(); // crate::tui\n");
    assert_eq!(found, vec![(1, "{".to_string()), (2, "tools".to_string())]);
}

#[test]
fn no_built_in_tool_is_named_outside_its_module_and_registration() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tools = ["read", "write", "edit", "execute", "glob", "grep", "list"];
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let mut broken = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        // A tool's own module and the tool set's registration; the stub plays a model,
        // which names the tools it was offered.
        if rel.starts_with("tools/") || rel == "providers/stub.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            if line.contains("such as") || line.contains("\"edit\" => edit(") {
                continue; // an example of a file's format in a message; `/context edit`
            }
            for tool in tools {
                if line.contains(&format!("\"{tool}\"")) {
                    broken.push(format!("{rel}:{}: names the tool {tool:?}", n + 1));
                }
            }
        }
    }
    assert!(broken.is_empty(), "tool names outside their modules:\n{}", broken.join("\n"));
}
