//! Where session files live (`$XDG_DATA_HOME/elelem/sessions/<id>.jsonl`), how a new one
//! is named, and listing them for `elelem sessions`, `--continue` and `--resume`. Only
//! regular files are listed (a link, FIFO or device named `*.jsonl` is passed over), each
//! read no further than `open::READ_LIMIT`, keeping only the lines it shows.

use super::open;
use super::replay::SessionFile;
use crate::data_dir;
use std::io::{BufRead, Read};
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
    /// The last prompt and the last reply, for a preview (first line of each, at most
    /// `PREVIEW_CHARS`; empty from a header-only scan).
    pub last_prompt: String,
    pub last_reply: String,
    pub turns: usize,
    /// The tokens its model calls reported (with a whole scan; cache figures are parts of
    /// the input).
    pub usage: crate::protocol::Usage,
    /// The file is longer than `open::READ_LIMIT`: `turns` counts only those read.
    pub truncated: bool,
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

    /// A fresh session file: `<UTC date>-<time>-<pid>.jsonl`, locked for this process.
    pub fn create(&self) -> std::io::Result<(SessionFile, std::fs::File)> {
        let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let id = format!("{}-{:05}-{}", crate::agent::system_prompt::today(), secs % 86_400, std::process::id());
        let path = self.dir.join(format!("{id}.jsonl"));
        let file = open::create(&path)?;
        Ok((SessionFile { id, path }, file))
    }

    /// Removes the session file `id` if it holds no turn and no conversation (only its
    /// header and records of the setup, such as the mode). `false` when it is kept.
    pub fn discard_if_empty(&self, id: &str) -> bool {
        if id.contains('/') {
            return false;
        }
        let path = self.dir.join(format!("{id}.jsonl"));
        let empty = super::replay::read(&path).is_ok_and(|r| r.turns == 0 && r.messages.is_empty());
        empty && std::fs::remove_file(&path).is_ok()
    }

    /// Why `find(id)` found nothing: no such session, or a file of that name that is not a
    /// regular one (a link is never followed).
    pub fn not_found(&self, id: &str) -> String {
        let path = self.dir.join(format!("{id}.jsonl"));
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_file() => format!(
                "session {id:?} is {}, not a regular file; elelem reads and writes session files only directly",
                crate::agent::no_follow::kind_name(meta.file_type())
            ),
            _ => format!("no session {id:?}; `elelem sessions` lists them"),
        }
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

/// A line's kind, from its first bytes (the recorder always writes `type` first).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Session,
    Prompt,
    Reply,
    Usage,
    Other,
}

/// How much of the last prompt and reply `SessionInfo` keeps.
pub const PREVIEW_CHARS: usize = 160;

/// The first non-blank line of `text`, at most `PREVIEW_CHARS`.
fn preview(text: &str) -> String {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(PREVIEW_CHARS).collect()
}

/// How many bytes of a line decide its kind.
const KIND_PREFIX: usize = 24;

fn kind_of(start: &[u8]) -> Kind {
    if start.starts_with(br#"{"type":"prompt""#) {
        Kind::Prompt
    } else if start.starts_with(br#"{"type":"session""#) {
        Kind::Session
    } else if start.starts_with(br#"{"type":"turn_finished""#) {
        Kind::Reply
    } else if start.starts_with(br#"{"type":"usage""#) {
        Kind::Usage
    } else {
        Kind::Other
    }
}

/// Reads the next line's kind; the line itself (without its newline) is left in `line` only
/// when `keep(kind)` says so, else it is read past without being stored (a 1 MB tool output
/// costs no buffer). `None` at the end.
fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>, keep: impl Fn(Kind) -> bool) -> Option<Kind> {
    line.clear();
    let mut kind = None;
    let mut any = false;
    loop {
        let chunk = reader.fill_buf().ok()?;
        if chunk.is_empty() {
            return any.then(|| kind.unwrap_or_else(|| kind_of(line)));
        }
        any = true;
        let (part, used, ended) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let mut part = part;
        if kind.is_none() {
            let start = part.len().min(KIND_PREFIX.saturating_sub(line.len()));
            line.extend_from_slice(&part[..start]);
            part = &part[start..];
            if ended || line.len() >= KIND_PREFIX {
                let k = kind_of(line);
                if !keep(k) {
                    line.clear();
                }
                kind = Some(k);
            }
        }
        if kind.is_some_and(&keep) {
            line.extend_from_slice(part);
        }
        reader.consume(used);
        if ended {
            return kind;
        }
    }
}

/// Reads what `elelem sessions` shows without parsing every record: only the header and the
/// first prompt are kept and parsed, other lines are counted as they pass. A link, FIFO or
/// device is not a session (`None`); a file is read no further than `open::READ_LIMIT`.
fn info(path: &Path, scan: Scan) -> Option<SessionInfo> {
    let file = open::read(path).ok()?;
    let meta = file.metadata().ok()?;
    let id = path.file_stem()?.to_string_lossy().into_owned();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, (&file).take(open::READ_LIMIT));
    let (mut cwd, mut started, mut first_prompt, mut turns) = (String::new(), 0, String::new(), 0);
    let mut usage = crate::protocol::Usage::default();
    let mut line = Vec::new();
    let (mut last_prompt, mut last_reply) = (Vec::new(), Vec::new());
    loop {
        let wanted = first_prompt.is_empty();
        let keep = |kind| matches!(kind, Kind::Session | Kind::Usage | Kind::Prompt | Kind::Reply);
        let Some(kind) = next_line(&mut reader, &mut line, keep) else { break };
        match kind {
            Kind::Reply => std::mem::swap(&mut last_reply, &mut line),
            Kind::Prompt => {
                turns += 1;
                last_prompt.clone_from(&line);
                last_reply.clear();
                if wanted {
                    if let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) {
                        first_prompt =
                            record["text"].as_str().unwrap_or_default().lines().next().unwrap_or("").to_string();
                    }
                }
            }
            Kind::Session => {
                if let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) {
                    cwd = record["cwd"].as_str().unwrap_or_default().to_string();
                    started = record["started"].as_u64().unwrap_or_default();
                }
                if scan == Scan::Header {
                    break;
                }
            }
            Kind::Usage => {
                if let Ok(record) = serde_json::from_slice::<serde_json::Value>(&line) {
                    let n = |key: &str| record[key].as_u64().unwrap_or_default();
                    usage.add(&crate::protocol::Usage {
                        input_tokens: n("input_tokens"),
                        output_tokens: n("output_tokens"),
                        cache_read_tokens: n("cache_read_tokens"),
                        cache_write_tokens: n("cache_write_tokens"),
                    });
                }
            }
            Kind::Other => {}
        }
    }
    let text_of = |line: &[u8], key: &str| {
        serde_json::from_slice::<serde_json::Value>(line).ok().and_then(|r| r[key].as_str().map(preview))
    };
    Some(SessionInfo {
        file: SessionFile { id, path: path.to_path_buf() },
        cwd,
        started,
        first_prompt,
        last_prompt: text_of(&last_prompt, "text").unwrap_or_default(),
        last_reply: text_of(&last_reply, "reply").unwrap_or_default(),
        turns,
        usage,
        truncated: scan == Scan::Whole && meta.len() > open::READ_LIMIT,
        bytes: meta.len(),
        modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_not_shown_are_read_past_unstored() {
        let big = format!(r#"{{"type":"tool_finished","result":"{}"}}"#, "x".repeat(1 << 20));
        let text =
            format!("{{\"type\":\"session\",\"cwd\":\"/p\"}}\n{big}\n{{\"type\":\"prompt\",\"text\":\"hi\"}}\n{big}");
        let mut reader = std::io::BufReader::with_capacity(4096, text.as_bytes());
        let mut line = Vec::new();
        let keep = |kind| kind != Kind::Other;
        assert!(next_line(&mut reader, &mut line, keep) == Some(Kind::Session));
        assert_eq!(line, br#"{"type":"session","cwd":"/p"}"#);
        assert!(next_line(&mut reader, &mut line, keep) == Some(Kind::Other));
        assert!(line.capacity() < 1024, "a skipped line was stored: {}", line.capacity());
        assert!(next_line(&mut reader, &mut line, keep) == Some(Kind::Prompt));
        assert_eq!(line, br#"{"type":"prompt","text":"hi"}"#);
        assert!(next_line(&mut reader, &mut line, keep) == Some(Kind::Other), "a last line without its newline");
        assert!(next_line(&mut reader, &mut line, keep).is_none());
    }
}
