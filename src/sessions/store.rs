//! Where session files live (`$XDG_DATA_HOME/elelem/sessions/<id>.jsonl`), how a new one
//! is named, and listing them for `elelem sessions`, `--continue` and `--resume`.

use super::replay::SessionFile;
use crate::data_dir;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One line of `elelem sessions`.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    pub file: SessionFile,
    pub cwd: String,
    /// Seconds since the epoch when it started.
    pub started: u64,
    pub first_prompt: String,
    pub turns: usize,
    pub bytes: u64,
    /// Last written.
    pub modified: SystemTime,
}

/// The sessions directory.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// `$XDG_DATA_HOME/elelem/sessions`; `None` when there is no data directory.
    pub fn default_location() -> Option<Store> {
        data_dir::data_dir().map(|d| Store { dir: d.join("sessions") })
    }

    pub fn at(dir: PathBuf) -> Store {
        Store { dir }
    }

    /// A fresh session file: `<UTC date>-<time>-<pid>.jsonl`.
    pub fn create(&self) -> std::io::Result<(SessionFile, std::fs::File)> {
        let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let id = format!("{}-{:05}-{}", crate::agent::system_prompt::today(), secs % 86_400, std::process::id());
        let path = self.dir.join(format!("{id}.jsonl"));
        let file = data_dir::open_private_append(&path)?;
        Ok((SessionFile { id, path }, file))
    }

    /// Every session, newest first.
    pub fn list(&self) -> Vec<SessionInfo> {
        self.sessions(Scan::Whole)
    }

    /// Every session, newest first, read as far as `scan` says.
    fn sessions(&self, scan: Scan) -> Vec<SessionInfo> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut sessions: Vec<SessionInfo> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .filter_map(|p| info(&p, scan))
            .collect();
        sessions.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.file.id.cmp(&a.file.id)));
        sessions
    }

    /// The newest session that ran in `cwd` (read no further than its header: its first
    /// prompt and turns are left empty).
    pub fn latest_in(&self, cwd: &Path) -> Option<SessionInfo> {
        let cwd = cwd.to_string_lossy();
        self.sessions(Scan::Header).into_iter().find(|s| s.cwd == cwd)
    }

    /// A session by id (or a unique prefix of one); read as far as `latest_in` reads.
    pub fn find(&self, id: &str) -> Option<SessionInfo> {
        let matches: Vec<SessionInfo> =
            self.sessions(Scan::Header).into_iter().filter(|s| s.file.id.starts_with(id)).collect();
        match matches.len() {
            1 => matches.into_iter().next(),
            _ => matches.into_iter().find(|s| s.file.id == id),
        }
    }
}

/// How much of a session file to read for its `SessionInfo`.
#[derive(Clone, Copy, PartialEq)]
enum Scan {
    /// The header line only (where and when it ran).
    Header,
    /// Every line, to count the turns and find the first prompt.
    Whole,
}

/// Reads what `elelem sessions` shows without parsing every record: lines go through one
/// reused buffer, and only the header and the first prompt are parsed.
fn info(path: &Path, scan: Scan) -> Option<SessionInfo> {
    let meta = std::fs::metadata(path).ok()?;
    let id = path.file_stem()?.to_string_lossy().into_owned();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path).ok()?);
    let (mut cwd, mut started, mut first_prompt, mut turns) = (String::new(), 0, String::new(), 0);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        if line.starts_with(br#"{"type":"prompt""#) {
            turns += 1;
            if first_prompt.is_empty() {
                if let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) {
                    first_prompt = record["text"].as_str().unwrap_or_default().lines().next().unwrap_or("").to_string();
                }
            }
        } else if line.starts_with(br#"{"type":"session""#) {
            if let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) {
                cwd = record["cwd"].as_str().unwrap_or_default().to_string();
                started = record["started"].as_u64().unwrap_or_default();
            }
            if scan == Scan::Header {
                break;
            }
        }
        line.clear();
    }
    Some(SessionInfo {
        file: SessionFile { id, path: path.to_path_buf() },
        cwd,
        started,
        first_prompt,
        turns,
        bytes: meta.len(),
        modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    })
}
