//! The `grep` tool: lines matching a regular expression, as `file:line:text`, in the files
//! under a path (optionally filtered by a glob), skipping binary files and what `.gitignore`
//! excludes. Capped, with a count of what was left out.
//!
//! Built on ripgrep's libraries: `ignore`'s parallel walker, `grep-searcher` over each file
//! (buffered, binary files quit at their first NUL byte) and `grep-regex`. Files finish in
//! any order, so what is kept is ordered by path before the cap applies: the result is the
//! same on every run. Only the first `GREP_CAP` lines by path are ever held.

use super::glob::PathGlob;
use super::regular;
use crate::agent::{Tool, ToolContext};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::WalkState;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// Matching lines shown at most.
pub const GREP_CAP: usize = 200;
/// Characters kept of a matching line.
pub const LINE_CAP: usize = 300;
/// Files bigger than this are skipped.
const FILE_CAP: u64 = 16 * 1024 * 1024;

pub fn tool() -> Tool {
    Tool::builtin(
        "grep",
        "Search file contents with a Rust regex, binary and .gitignored files skipped: \
         `file:line:text` lines and the match count.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "glob": {"type": "string"},
                "ignore_case": {"type": "boolean"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        grep,
    )
    .with_aliases(&["search", "rg", "search_files"])
    .read_only()
    .summarized_by("pattern")
    .touches_paths(&["path"])
}

async fn grep(mut args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let cancel = ctx.cancel.clone();
    if args.get("path").is_some() {
        args["path"] = Value::String(super::walk_root(&args, &ctx));
    }
    ctx.blocking(move || search(&args, &cancel)).await
}

/// What one search asks for.
struct Query {
    root: String,
    matcher: RegexMatcher,
    filter: Option<PathGlob>,
}

fn search(args: &Value, cancel: &CancellationToken) -> Value {
    let query = match Query::new(args) {
        Ok(query) => query,
        Err(message) => return json!({"error": message}),
    };
    let found = Mutex::new(Found::default());
    super::walker(Path::new(&query.root)).build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new().binary_detection(BinaryDetection::quit(0)).line_number(true).build();
        let (query, found) = (&query, &found);
        Box::new(move |entry| {
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else { return WalkState::Continue };
            if let Some(hits) = query.search_entry(&mut searcher, &entry) {
                if let Ok(mut found) = found.lock() {
                    found.add(entry.into_path(), hits);
                }
            }
            WalkState::Continue
        })
    });
    if cancel.is_cancelled() {
        return json!({"error": "interrupted"});
    }
    found.into_inner().map_or_else(|_| json!({"error": "the search failed"}), Found::into_result)
}

impl Query {
    fn new(args: &Value) -> Result<Query, String> {
        let pattern = args["pattern"].as_str().unwrap_or_default();
        let root = args["path"].as_str().unwrap_or(".").to_string();
        let ignore_case = args["ignore_case"].as_bool().unwrap_or(false);
        // The `regex` crate's parser gives the message; the search runs on grep-regex.
        regex::RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .build()
            .map_err(|e| format!("invalid regex {pattern:?}: {e}"))?;
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(ignore_case)
            .crlf(true)
            .line_terminator(Some(b'\n'))
            .build(pattern)
            .map_err(|e| format!("invalid regex {pattern:?}: {e}"))?;
        let filter = args["glob"].as_str().map(PathGlob::new).transpose()?;
        if !Path::new(&root).exists() {
            return Err(format!("cannot search {root}: no such file or directory"));
        }
        Ok(Query { root, matcher, filter })
    }

    /// The matching lines of one walked entry; `None` for what is not searched (not a
    /// regular file, filtered out, too big, binary, unreadable) or has no match.
    fn search_entry(&self, searcher: &mut Searcher, entry: &ignore::DirEntry) -> Option<Hits> {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return None;
        }
        let relative = entry.path().strip_prefix(&self.root).unwrap_or(entry.path());
        if self.filter.as_ref().is_some_and(|f| entry.depth() > 0 && !f.is_match(relative)) {
            return None;
        }
        let (file, meta) = regular::open_listed(entry.path()).ok()?;
        if meta.len() > FILE_CAP {
            return None;
        }
        let mut sink = HitSink { shown: super::shown(&self.root, entry.path()), hits: Hits::default(), binary: false };
        searcher.search_file(&self.matcher, &file, &mut sink).ok()?;
        (!sink.binary && sink.hits.count > 0).then_some(sink.hits)
    }
}

/// The matches of one file: how many, and the first `GREP_CAP` as result lines.
#[derive(Default)]
struct Hits {
    count: usize,
    lines: Vec<String>,
}

/// Collects one file's matches; a file found to be binary is dropped whole.
struct HitSink {
    shown: String,
    hits: Hits,
    binary: bool,
}

impl Sink for HitSink {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.hits.count += 1;
        if self.hits.lines.len() < GREP_CAP {
            let bytes = found.bytes();
            let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            let number = found.line_number().unwrap_or(0);
            self.hits.lines.push(format!("{}:{number}:{}", self.shown, cut(&String::from_utf8_lossy(bytes))));
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, std::io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// Everything found so far: totals, and the result lines of the files first by path,
/// pruned to the few that can still be among the first `GREP_CAP` lines.
#[derive(Default)]
struct Found {
    matches: usize,
    files: usize,
    kept: BTreeMap<PathBuf, Vec<String>>,
    kept_lines: usize,
}

impl Found {
    fn add(&mut self, path: PathBuf, hits: Hits) {
        self.matches += hits.count;
        self.files += 1;
        self.kept_lines += hits.lines.len();
        self.kept.insert(path, hits.lines);
        while let Some(last) = self.kept.last_entry() {
            let n = last.get().len();
            if self.kept_lines - n < GREP_CAP {
                break;
            }
            last.remove();
            self.kept_lines -= n;
        }
    }

    fn into_result(self) -> Value {
        let lines: Vec<String> = self.kept.into_values().flatten().take(GREP_CAP).collect();
        let mut result = json!({"content": lines.join("\n"), "matches": self.matches, "files": self.files});
        if self.matches > GREP_CAP {
            result["note"] = json!(format!(
                "showing the first {GREP_CAP} of {} matches; {} left out. Narrow the pattern, path or glob.",
                self.matches,
                self.matches - GREP_CAP
            ));
        }
        result
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_CAP) {
        Some((at, _)) => format!("{}… [line cut]", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_lines_by_path_are_kept() {
        let mut found = Found::default();
        let hits = |n: usize, name: &str| Hits { count: n, lines: (1..=n).map(|i| format!("{name}:{i}:x")).collect() };
        found.add(PathBuf::from("b"), hits(150, "b"));
        found.add(PathBuf::from("c"), hits(100, "c"));
        found.add(PathBuf::from("a/z"), hits(100, "a/z"));
        found.add(PathBuf::from("a.txt"), hits(1, "a.txt"));
        assert_eq!(found.kept.keys().collect::<Vec<_>>(), vec![Path::new("a/z"), Path::new("a.txt"), Path::new("b")]);
        let result = found.into_result();
        let content = result["content"].as_str().unwrap_or_default();
        assert_eq!(content.lines().count(), GREP_CAP);
        assert!(content.starts_with("a/z:1:x\n"));
        assert!(content.contains("\na.txt:1:x\nb:1:x\n"));
        assert!(content.ends_with("\nb:99:x"));
        assert_eq!(result["matches"], 351);
        assert_eq!(result["files"], 4);
    }
}
