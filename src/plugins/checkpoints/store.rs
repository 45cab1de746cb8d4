//! The checkpoint store: for each turn, what every file a tool changed held before the
//! turn first changed it (its content, "did not exist", or "too large to checkpoint"), and
//! what elelem last left each file as, to notice changes made outside elelem. Contents are
//! kept once per distinct content (by SHA-256) in memory and written once to the session
//! file; the records it writes (`file_before`, `file_after`, `undo`) rebuild the same state
//! when a session is resumed. Undoing is `undo.rs`.

use crate::paths::no_follow;
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files larger than this are not checkpointed ("too large to checkpoint").
pub const MAX_CHECKPOINT_BYTES: u64 = 4 << 20;

/// Contents kept in memory at most, all checkpoints together; past it, further files are
/// reported as not checkpointed.
pub const MAX_STORED_BYTES: u64 = 64 << 20;

/// Where checkpoint records go: the session file (appended in order with its other events).
pub type Journal = Arc<dyn Fn(Value) + Send + Sync>;

/// What a file held at some moment, as far as undo cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// The file did not exist.
    Missing,
    /// Its content, by hash.
    Content(String),
    /// Larger than `MAX_CHECKPOINT_BYTES` (its size): not kept, cannot be restored.
    TooLarge(u64),
}

/// A file as it was before a turn first changed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub turn: usize,
    pub path: PathBuf,
    pub before: FileState,
    /// The file was changed outside elelem after elelem's previous write to it: undoing an
    /// earlier turn past this checkpoint would lose that change.
    pub changed_outside: bool,
}

/// A file read from disk: its state and, for a kept size, its bytes.
pub struct Snapshot {
    pub state: FileState,
    pub bytes: Option<Vec<u8>>,
}

/// Reads what `path` (absolute, resolved) holds now, no symlink followed on the way or at
/// the end (`paths::no_follow`); `None` for something that is not a regular file (a
/// symlink, a directory, a device: the tools refuse those anyway) or cannot be read.
pub fn snapshot(path: &Path) -> Option<Snapshot> {
    let file = match no_follow::open_read(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(Snapshot { state: FileState::Missing, bytes: None })
        }
        Err(_) => return None,
    };
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() > MAX_CHECKPOINT_BYTES {
        return Some(Snapshot { state: FileState::TooLarge(meta.len()), bytes: None });
    }
    let mut bytes = Vec::new();
    file.take(MAX_CHECKPOINT_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_CHECKPOINT_BYTES {
        return Some(Snapshot { state: FileState::TooLarge(bytes.len() as u64), bytes: None });
    }
    Some(Snapshot { state: FileState::Content(hash(&bytes)), bytes: Some(bytes) })
}

/// The SHA-256 of `bytes`, in hex.
pub fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every checkpoint of the session, and what elelem last left each file as.
#[derive(Default)]
pub struct Store {
    /// The turn running (or last run); checkpoints are keyed by it.
    pub turn: usize,
    checkpoints: Vec<Checkpoint>,
    /// Contents by hash, each kept once.
    blobs: HashMap<String, Arc<Vec<u8>>>,
    /// Hashes whose content the session file already holds.
    journaled: HashSet<String>,
    /// What each changed file held after elelem's last write to it (or, when a change
    /// failed, before it).
    written: HashMap<PathBuf, FileState>,
    journal: Option<Journal>,
    /// `MAX_STORED_BYTES`, smaller in tests.
    limit: u64,
}

impl Store {
    pub fn new(journal: Option<Journal>) -> Store {
        Store { journal, limit: MAX_STORED_BYTES, ..Store::default() }
    }

    /// A store that keeps at most `limit` bytes of contents.
    #[cfg(test)]
    pub fn with_limit(mut self, limit: u64) -> Store {
        self.limit = limit;
        self
    }

    fn stored_bytes(&self) -> u64 {
        self.blobs.values().map(|b| b.len() as u64).sum()
    }

    fn record(&self, record: Value) {
        if let Some(journal) = &self.journal {
            journal(record);
        }
    }

    pub fn checkpoints(&self) -> &[Checkpoint] {
        &self.checkpoints
    }

    pub fn blob(&self, hash: &str) -> Option<&Arc<Vec<u8>>> {
        self.blobs.get(hash)
    }

    /// What elelem last left `path` as, if it changed it.
    pub fn written(&self, path: &Path) -> Option<&FileState> {
        self.written.get(path)
    }

    /// A tool is about to change `path`, which holds `now`: the first change this turn
    /// keeps a checkpoint. Returns a notice when the file is too large to checkpoint.
    pub fn before_change(&mut self, path: &Path, mut now: Snapshot) -> Option<String> {
        let changed_outside = self.written.get(path).is_some_and(|written| *written != now.state);
        self.written.insert(path.to_path_buf(), now.state.clone());
        let turn = self.turn;
        if self.checkpoints.iter().any(|c| c.turn == turn && c.path == path) {
            return None;
        }
        let mut full = None;
        if let FileState::Content(hash) = &now.state {
            let size = now.bytes.as_ref().map_or(0, |b| b.len() as u64);
            if !self.blobs.contains_key(hash) && self.stored_bytes() + size > self.limit {
                full = Some(format!(
                    "checkpoints of this session already hold {} MB: {} is not checkpointed, /undo cannot restore it",
                    self.limit >> 20,
                    path.display()
                ));
                now = Snapshot { state: FileState::TooLarge(size), bytes: None };
            }
        }
        let mut record = json!({"type": "file_before", "turn": turn, "path": path});
        if changed_outside {
            record["changed_outside"] = json!(true);
        }
        let notice = match &now.state {
            FileState::Missing => {
                record["missing"] = json!(true);
                None
            }
            FileState::TooLarge(size) => {
                record["too_large"] = json!(size);
                full.or_else(|| {
                    Some(format!(
                        "{} ({size} bytes) is too large to checkpoint: /undo cannot restore it",
                        path.display()
                    ))
                })
            }
            FileState::Content(hash) => {
                record["hash"] = json!(hash);
                if self.journaled.insert(hash.clone()) {
                    let bytes = now.bytes.as_deref().unwrap_or_default();
                    match std::str::from_utf8(bytes) {
                        Ok(text) => record["text"] = json!(text),
                        Err(_) => record["base64"] = json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
                    }
                }
                if let Some(bytes) = now.bytes {
                    self.blobs.entry(hash.clone()).or_insert_with(|| Arc::new(bytes));
                }
                None
            }
        };
        self.record(record);
        self.checkpoints.push(Checkpoint { turn, path: path.to_path_buf(), before: now.state, changed_outside });
        notice
    }

    /// A tool changed `path`, which now holds `now`.
    pub fn after_change(&mut self, path: &Path, now: FileState) {
        if self.written.get(path) == Some(&now) {
            return;
        }
        self.record(json!({"type": "file_after", "path": path, "state": state_json(&now)}));
        self.written.insert(path.to_path_buf(), now);
    }

    /// `/undo` restored the files of turn `from` onward: forget those checkpoints; each
    /// file now holds what `restored` says.
    pub fn undone(&mut self, from: usize, restored: Vec<(PathBuf, FileState)>) {
        let files: Vec<Value> =
            restored.iter().map(|(path, state)| json!({"path": path, "state": state_json(state)})).collect();
        self.record(json!({"type": "undo", "from": from, "files": files}));
        self.forget_from(from, restored);
    }

    fn forget_from(&mut self, from: usize, restored: Vec<(PathBuf, FileState)>) {
        self.checkpoints.retain(|c| c.turn < from);
        for (path, state) in restored {
            self.written.insert(path, state);
        }
        self.drop_unused_blobs();
    }

    fn drop_unused_blobs(&mut self) {
        let used: HashSet<&String> = self
            .checkpoints
            .iter()
            .filter_map(|c| match &c.before {
                FileState::Content(hash) => Some(hash),
                _ => None,
            })
            .collect();
        let unused: Vec<String> = self.blobs.keys().filter(|h| !used.contains(h)).cloned().collect();
        for hash in unused {
            self.blobs.remove(&hash);
        }
    }

    /// Rebuilds the state from a resumed session's records (in file order); `turns` is how
    /// many turns it ran. Returns a warning per record that could not be used.
    pub fn replay(&mut self, records: Vec<Value>, turns: usize) -> Vec<String> {
        let mut warnings = Vec::new();
        for record in records {
            if let Err(message) = self.apply(record) {
                warnings.push(format!("checkpoint record skipped: {message}"));
            }
        }
        self.turn = turns;
        self.drop_unused_blobs();
        warnings
    }

    fn apply(&mut self, record: Value) -> Result<(), String> {
        let path = record.get("path").and_then(Value::as_str).map(PathBuf::from);
        match record.get("type").and_then(Value::as_str) {
            Some("file_before") => {
                let path = path.ok_or("no path")?;
                let turn = record.get("turn").and_then(Value::as_u64).ok_or("no turn")? as usize;
                let before = if record.get("missing").is_some() {
                    FileState::Missing
                } else if let Some(size) = record.get("too_large").and_then(Value::as_u64) {
                    FileState::TooLarge(size)
                } else {
                    let hash = record.get("hash").and_then(Value::as_str).ok_or("no hash")?.to_string();
                    let bytes = match (record.get("text"), record.get("base64")) {
                        (Some(Value::String(text)), _) => Some(text.as_bytes().to_vec()),
                        (_, Some(Value::String(encoded))) => {
                            Some(base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|e| e.to_string())?)
                        }
                        _ => None,
                    };
                    if let Some(bytes) = bytes {
                        if self::hash(&bytes) != hash {
                            return Err(format!("{}: its content does not match its SHA-256 {hash}", path.display()));
                        }
                        self.blobs.entry(hash.clone()).or_insert_with(|| Arc::new(bytes));
                    }
                    if !self.blobs.contains_key(&hash) {
                        return Err(format!("{}: content {hash} is not in the session", path.display()));
                    }
                    self.journaled.insert(hash.clone());
                    FileState::Content(hash)
                };
                let changed_outside = record.get("changed_outside").and_then(Value::as_bool).unwrap_or(false);
                self.written.insert(path.clone(), before.clone());
                self.checkpoints.push(Checkpoint { turn, path, before, changed_outside });
            }
            Some("file_after") => {
                let state = parse_state(record.get("state").ok_or("no state")?)?;
                self.written.insert(path.ok_or("no path")?, state);
            }
            Some("undo") => {
                let from = record.get("from").and_then(Value::as_u64).ok_or("no from")? as usize;
                let files = record.get("files").and_then(Value::as_array).cloned().unwrap_or_default();
                let mut restored = Vec::new();
                for file in files {
                    let path = file.get("path").and_then(Value::as_str).ok_or("no path")?;
                    restored.push((PathBuf::from(path), parse_state(file.get("state").ok_or("no state")?)?));
                }
                self.forget_from(from, restored);
            }
            other => return Err(format!("unknown record {other:?}")),
        }
        Ok(())
    }
}

fn state_json(state: &FileState) -> Value {
    match state {
        FileState::Missing => json!({"missing": true}),
        FileState::Content(hash) => json!({"hash": hash}),
        FileState::TooLarge(size) => json!({"too_large": size}),
    }
}

fn parse_state(value: &Value) -> Result<FileState, String> {
    if value.get("missing").is_some() {
        Ok(FileState::Missing)
    } else if let Some(hash) = value.get("hash").and_then(Value::as_str) {
        Ok(FileState::Content(hash.to_string()))
    } else if let Some(size) = value.get("too_large").and_then(Value::as_u64) {
        Ok(FileState::TooLarge(size))
    } else {
        Err(format!("not a file state: {value}"))
    }
}
