//! The project's files for the `@` picker, and how they rank for what is typed.
//!
//! `FileIndex::walk` lists the files under a root once, on a thread of its own (the
//! `ignore` crate's parallel walker: `.gitignore`, `.ignore` and hidden files skipped, as
//! the `glob` and `grep` tools do), handing them over in batches while it walks, so the
//! picker is usable before a big tree is finished. `Ranker` scores paths with
//! `nucleo-matcher` (helix's fuzzy matcher, path mode: matches after `/` and at word starts
//! score higher) and ranks incrementally: a query that extends the last one rescores only
//! the last one's matches, and paths that arrived since are scored once. Only the best
//! `LIMIT` are sorted.

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use parking_lot::{Condvar, Mutex};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files listed at most (beyond this the walk stops).
pub const MAX_FILES: usize = 500_000;
/// Ranked results kept (the popup shows a window of them).
pub const LIMIT: usize = 50;
/// Paths a walker thread collects before handing them over.
const BATCH: usize = 512;

#[derive(Default)]
struct Shared {
    state: Mutex<Walked>,
    finished: Condvar,
}

#[derive(Default)]
struct Walked {
    /// Paths found and not yet taken by the ranker.
    new: Vec<String>,
    found: usize,
    done: bool,
}

/// The files under a root, as `/`-separated paths relative to it.
#[derive(Clone, Default)]
pub struct FileIndex {
    shared: Arc<Shared>,
}

impl FileIndex {
    /// Starts listing `root` on a background thread.
    pub fn walk(root: PathBuf) -> FileIndex {
        let index = FileIndex::default();
        let shared = index.shared.clone();
        let spawned = std::thread::Builder::new().name("elelem-files".into()).spawn(move || {
            walk_into(&root, &shared);
            shared.state.lock().done = true;
            shared.finished.notify_all();
        });
        if spawned.is_err() {
            index.shared.state.lock().done = true;
        }
        index
    }

    /// An index of these paths, already complete (tests and benchmarks).
    pub fn from_paths(paths: Vec<String>) -> FileIndex {
        let index = FileIndex::default();
        {
            let mut state = index.shared.state.lock();
            state.found = paths.len();
            state.new = paths;
            state.done = true;
        }
        index
    }

    /// The walk has finished.
    pub fn done(&self) -> bool {
        self.shared.state.lock().done
    }

    /// Blocks until the walk has finished.
    pub fn wait(&self) {
        let mut state = self.shared.state.lock();
        while !state.done {
            self.shared.finished.wait(&mut state);
        }
    }

    fn take_new(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.state.lock().new)
    }
}

fn walk_into(root: &Path, shared: &Arc<Shared>) {
    let walker = ignore::WalkBuilder::new(root).require_git(false).follow_links(false).threads(2).build_parallel();
    walker.run(|| {
        let shared = shared.clone();
        let mut batch = Batch { shared, paths: Vec::with_capacity(BATCH) };
        Box::new(move |entry| {
            let Ok(entry) = entry else { return ignore::WalkState::Continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            if let Some(path) = relative(root, entry.path()) {
                batch.paths.push(path);
            }
            if batch.paths.len() >= BATCH && !batch.flush() {
                return ignore::WalkState::Quit;
            }
            ignore::WalkState::Continue
        })
    });
}

/// One walker thread's paths not yet handed over; handed over when full and when the
/// thread's walk ends (drop).
struct Batch {
    shared: Arc<Shared>,
    paths: Vec<String>,
}

impl Batch {
    /// Hands the paths over; `false` once the index is full.
    fn flush(&mut self) -> bool {
        let mut state = self.shared.state.lock();
        let room = MAX_FILES.saturating_sub(state.found);
        self.paths.truncate(room);
        state.found += self.paths.len();
        state.new.append(&mut self.paths);
        state.found < MAX_FILES
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.flush();
    }
}

/// `path` relative to `root` with `/` separators; `None` for paths a mention cannot name
/// (not UTF-8, or with whitespace: a mention ends at whitespace).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    let joined = parts?.join("/");
    (!joined.is_empty() && !joined.contains(char::is_whitespace)).then_some(joined)
}

/// Ranks an index's paths for a query, keeping what it can between keystrokes.
pub struct Ranker {
    index: FileIndex,
    paths: Vec<String>,
    matcher: Matcher,
    query: String,
    atom: Option<Atom>,
    /// (score, path) of every path in `paths[..scanned]` that matches `query`, unordered.
    matches: Vec<(u16, u32)>,
    scanned: usize,
    /// The best matches, best first.
    top: Vec<u32>,
    chars: Vec<char>,
}

impl Ranker {
    pub fn new(index: FileIndex) -> Ranker {
        Ranker {
            index,
            paths: Vec::new(),
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
            query: String::new(),
            atom: None,
            matches: Vec::new(),
            scanned: 0,
            top: Vec::new(),
            chars: Vec::new(),
        }
    }

    /// Ranks for `query` and returns the best paths (indices for `path`), best first.
    pub fn rank(&mut self, query: &str) -> &[u32] {
        let arrived = self.index.take_new();
        let grew = !arrived.is_empty();
        self.paths.extend(arrived);
        let changed = query != self.query || self.atom.is_none();
        if changed {
            let narrowing = self.atom.is_some() && query.starts_with(self.query.as_str());
            self.query = query.to_string();
            self.atom = Some(Atom::new(query, CaseMatching::Smart, Normalization::Smart, AtomKind::Fuzzy, false));
            if narrowing {
                self.rescore_matches();
            } else {
                self.matches.clear();
                self.scanned = 0;
            }
        }
        if changed || grew {
            self.score_new();
            self.select_top();
        }
        &self.top
    }

    fn rescore_matches(&mut self) {
        let Some(atom) = &self.atom else { return };
        let (paths, matcher, chars) = (&self.paths, &mut self.matcher, &mut self.chars);
        self.matches.retain_mut(|(score, i)| match atom.score(Utf32Str::new(&paths[*i as usize], chars), matcher) {
            Some(s) => {
                *score = s;
                true
            }
            None => false,
        });
    }

    fn score_new(&mut self) {
        let Some(atom) = &self.atom else { return };
        for (i, path) in self.paths.iter().enumerate().skip(self.scanned) {
            if let Some(score) = atom.score(Utf32Str::new(path, &mut self.chars), &mut self.matcher) {
                self.matches.push((score, i as u32));
            }
        }
        self.scanned = self.paths.len();
    }

    /// Best score first; then shorter paths, then by name.
    fn select_top(&mut self) {
        let paths = &self.paths;
        let order = |a: &(u16, u32), b: &(u16, u32)| {
            let (pa, pb) = (&paths[a.1 as usize], &paths[b.1 as usize]);
            b.0.cmp(&a.0).then(pa.len().cmp(&pb.len())).then(pa.cmp(pb))
        };
        let mut best = self.matches.clone();
        if best.len() > LIMIT {
            best.select_nth_unstable_by(LIMIT, order);
            best.truncate(LIMIT);
        }
        best.sort_unstable_by(order);
        self.top = best.into_iter().map(|(_, i)| i).collect();
    }

    pub fn path(&self, i: u32) -> &str {
        self.paths.get(i as usize).map_or("", String::as_str)
    }

    /// Character positions of `path(i)` that the query matched (for highlighting).
    pub fn matched_chars(&mut self, i: u32) -> Vec<u32> {
        let mut indices = Vec::new();
        if let (Some(atom), Some(path)) = (&self.atom, self.paths.get(i as usize)) {
            atom.indices(Utf32Str::new(path, &mut self.chars), &mut self.matcher, &mut indices);
        }
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// Paths listed so far, and how many match the query.
    pub fn counts(&self) -> (usize, usize) {
        (self.paths.len(), self.matches.len())
    }

    /// The walk is still going.
    pub fn indexing(&self) -> bool {
        !self.index.done()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(ranker: &mut Ranker, query: &str) -> Vec<String> {
        let top = ranker.rank(query).to_vec();
        top.into_iter().map(|i| ranker.path(i).to_string()).collect()
    }

    #[test]
    fn ranks_fuzzy_matches_best_first_and_narrows_incrementally() {
        let paths = ["src/main.rs", "src/tui/mod.rs", "docs/manual.md", "src/agent/mentions.rs", "Cargo.toml"];
        let mut ranker = Ranker::new(FileIndex::from_paths(paths.iter().map(|p| p.to_string()).collect()));
        let all = ranked(&mut ranker, "");
        assert_eq!(all.len(), 5);
        assert_eq!(all[0], "Cargo.toml", "shortest first when nothing is typed");
        let s = ranked(&mut ranker, "src/ma");
        assert_eq!(s.first().map(String::as_str), Some("src/main.rs"));
        assert!(!s.contains(&"Cargo.toml".to_string()));
        assert_eq!(ranked(&mut ranker, "src/mai"), ["src/main.rs"]);
        assert_eq!(ranked(&mut ranker, "zzz"), Vec::<String>::new());
        // Back to a shorter query: everything is scored again.
        assert_eq!(ranked(&mut ranker, "man")[0], "docs/manual.md");
        let best = ranker.rank("mn")[0];
        assert_eq!(ranker.matched_chars(best).len(), 2);
    }

    #[test]
    fn the_walk_skips_gitignored_and_hidden_files_and_names_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["src/main.rs", "target/debug/main", "notes.log", ".hidden/secret.rs", "a b.txt", "keep.log"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n!keep.log\n").unwrap();
        let index = FileIndex::walk(root.to_path_buf());
        index.wait();
        let mut ranker = Ranker::new(index);
        let mut all = ranked(&mut ranker, "");
        all.sort();
        assert_eq!(all, ["keep.log", "src/main.rs"]);
    }
}
