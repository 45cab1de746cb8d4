//! The README is a front door and the reference lives in `docs/` (issue 39): README.md stays
//! at most 300 lines, `docs/` holds at least six pages, each page links back to the README,
//! and every relative link in README.md and `docs/*.md` leads to a file that exists — and,
//! when it names a `#section` of a Markdown file, to a heading that exists there (GitHub's
//! anchors: lower case, punctuation dropped, spaces as hyphens).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every `docs/*.md`, sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root().join("README.md"));
    docs
}

/// `text` without fenced code blocks and inline code spans, where `](` is not a link. A code
/// span may run over a line break, not over a blank line (as in CommonMark's paragraphs).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            in_code = false;
        }
        // Drop what is between backticks; a link's text may hold code, its target does not.
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// The targets of the Markdown links (and images) in `text`: what stands in `](…)`.
fn link_targets(text: &str) -> Vec<String> {
    let text = prose(text);
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_` kept, spaces as
/// `-`, everything else dropped (backticks, dots, parentheses, slashes).
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.insert(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The links of `text` (a file in `dir`, named `name`) that lead nowhere, each as
/// `name: target (why)`.
fn broken_links(name: &str, dir: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for target in link_targets(text) {
        if target.is_empty() {
            broken.push(format!("{name}: an empty link"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, section) = match target.split_once('#') {
            Some((file, section)) => (file, Some(section)),
            None => (target.as_str(), None),
        };
        let (path, body) = if file.is_empty() {
            (None, Some(text.to_string()))
        } else {
            let path = dir.join(file);
            if !path.exists() {
                broken.push(format!("{name}: {target} (no such file: {})", path.display()));
                continue;
            }
            let body = if file.ends_with(".md") { std::fs::read_to_string(&path).ok() } else { None };
            (Some(path), body)
        };
        if let (Some(section), Some(body)) = (section, body) {
            if !anchors(&body).contains(section) {
                let place = path.map_or_else(|| "this file".to_string(), |p| p.display().to_string());
                broken.push(format!("{name}: {target} (no heading with anchor #{section} in {place})"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_readme_and_docs_leads_somewhere() {
    let mut broken = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        broken.extend(broken_links(&name, path.parent().unwrap(), &text));
    }
    assert!(broken.is_empty(), "links that lead nowhere:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_door_and_docs_hold_the_reference() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines; at most 300 (the reference belongs in docs/)");
    let pages: Vec<PathBuf> = documents().into_iter().skip(1).collect();
    assert!(pages.len() >= 6, "docs/ has {} pages: {pages:?}", pages.len());
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        assert!(text.starts_with("# "), "{} does not start with its title", page.display());
        assert!(text.contains("](../README.md"), "{} does not link back to the README", page.display());
        let name = page.file_name().unwrap().to_string_lossy();
        assert!(readme.contains(&format!("](docs/{name}")), "the README does not link to docs/{name}");
    }
}

/// The checker itself finds what is broken: a missing file, a missing section, a missing
/// section of this file; and leaves code, web links and good links alone.
#[test]
fn the_link_checker_finds_a_missing_file_and_a_missing_section() {
    let dir = root().join("docs");
    let text = "# Page\n\n## Kept `here`, too\n\n[ok](../README.md) [ok](#kept-here-too) [web](https://x.org/a)\n\
                `[code](nowhere.md)` and `a span\n[broken](over.md) a line`\n```\n[block](nowhere.md)\n```\n\
                [gone](nowhere.md) [lost](../README.md#no-such-heading) [self](#missing)\n";
    let broken = broken_links("t.md", &dir, text);
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].contains("nowhere.md (no such file"), "{broken:#?}");
    assert!(broken[1].contains("#no-such-heading"), "{broken:#?}");
    assert!(broken[2].contains("#missing") && broken[2].contains("this file"), "{broken:#?}");
}
