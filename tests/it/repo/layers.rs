//! The import rules of ARCHITECTURE.md (read from its table), checked on the source: each layer names only the
//! layers below it. A forbidden `crate::` path (or `super::` climbing out of a layer)
//! fails this test with the file and line.

use std::path::{Path, PathBuf};

/// The rows of ARCHITECTURE.md's import-rule table: each layer and the layers it may name
/// through `crate::` (the backticked names of the first two columns).
fn rules() -> Vec<(String, Vec<String>)> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    let table = doc.split("| layer | may import |").nth(1).expect("ARCHITECTURE.md has the import-rule table");
    let names = |cell: &str| -> Vec<String> { cell.split('`').skip(1).step_by(2).map(str::to_string).collect() };
    let mut rules = Vec::new();
    for row in table.lines().skip(2).take_while(|line| line.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').collect();
        let (Some(layer), Some(allowed)) = (cells.get(1), cells.get(2)) else { continue };
        for layer in names(layer) {
            rules.push((layer, names(allowed)));
        }
    }
    rules
}

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
    let rules = rules();
    let mut top: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
        .filter(|name| name != "lib" && name != "main")
        .collect();
    top.sort();
    let missing: Vec<&String> = top.iter().filter(|name| !rules.iter().any(|(layer, _)| layer == *name)).collect();
    assert!(missing.is_empty(), "layers of src/ missing from ARCHITECTURE.md's import-rule table: {missing:?}");
    for (layer, allowed) in &rules {
        let mut paths = Vec::new();
        // A layer is a folder, a file, or both (`startup.rs` with its child modules in `startup/`).
        let dir = src.join(layer);
        if dir.is_dir() {
            files(&dir, &mut paths);
        }
        let file = src.join(format!("{layer}.rs"));
        if file.is_file() || !dir.is_dir() {
            paths.push(file);
        }
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            for (line, name) in crate_paths(&text) {
                if name != *layer && !allowed.contains(&name) {
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
            if line.contains("such as") || line.contains("\"edit\" => edit(") || line.contains("\"list\" => list(") {
                continue; // an example of a file's format in a message; `/context edit`, `/context list`
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

#[test]
fn impl_app_lives_only_where_architecture_md_says() {
    // ARCHITECTURE.md ("The TUI"): `impl App` lives in app.rs and keys.rs and their folders only.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    assert!(
        doc.contains("`impl App` lives in these two files and their folders (`app/`, `keys/`) only"),
        "the rule changed: update this test"
    );
    let allowed = ["tui/app.rs", "tui/keys.rs"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let mut broken = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&path).unwrap();
        let found = text.lines().any(|line| line.trim_start().starts_with("impl App {"));
        // Their folders too: `app/` (agent events, drawing, the read-only view), `keys/`
        // (global keys, commands, mouse).
        let own = allowed.iter().any(|file| rel.starts_with(&format!("{}/", file.trim_end_matches(".rs"))));
        if found && !allowed.contains(&rel.as_str()) && !own {
            broken.push(rel);
        }
    }
    assert!(broken.is_empty(), "impl App outside {allowed:?}: {broken:?}");
}

#[test]
fn every_colour_a_pane_or_popup_draws_comes_from_the_theme() {
    // ARCHITECTURE.md ("The TUI"): every style a pane draws comes from `theme.rs`, so the
    // light palette (and NO_COLOR) reach all of it; a colour named in a pane does not.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    assert!(doc.contains("every style a pane draws comes from `theme.rs`"), "the rule changed: update this test");
    let tui = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut paths = Vec::new();
    files(&tui.join("panes"), &mut paths);
    files(&tui.join("popups"), &mut paths);
    paths.extend(["app.rs", "keys.rs", "regions.rs"].map(|f| tui.join(f)));
    let mut broken = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("Color::") {
                broken.push(format!("{}:{}: {}", path.strip_prefix(&tui).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    assert!(broken.is_empty(), "colours named outside theme.rs:\n{}", broken.join("\n"));
}
