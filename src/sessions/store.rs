//! Where session files live (`$XDG_DATA_HOME/elelem/sessions/<id>.jsonl`), how a new one
//! is named, and listing them for `elelem sessions`, `--continue` and `--resume`. Only
//! regular files are listed (a link, FIFO or device named `*.jsonl` is passed over), each
//! read no further than `open::READ_LIMIT`, keeping only the lines it shows. Turns a
//! `/rewind` took back are neither counted nor previewed: the scan keeps where each
//! remaining turn's prompt and reply start and reads those lines back at the end.

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
    /// `PREVIEW_CHARS`, the reply's without its Markdown marks; empty from a header-only
    /// scan).
    pub last_prompt: String,
    pub last_reply: String,
    /// Turns the session holds: those started, less those rewound.
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
        let id = format!("{}-{:05}-{}", crate::dates::today(), secs % 86_400, std::process::id());
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
                crate::paths::no_follow::kind_name(meta.file_type())
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
    Rewound,
    Other,
}

/// How much of the last prompt and reply `SessionInfo` keeps.
pub const PREVIEW_CHARS: usize = 160;

/// The first non-blank line of `text`, at most `PREVIEW_CHARS`.
fn preview(text: &str) -> String {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(PREVIEW_CHARS).collect()
}

/// A reply's first line of prose as plain text: code fences skipped, a heading's `#`s, a
/// quote's `>` and a list's bullet dropped, and the bold and code marks (`**`, `__`, `` ` ``)
/// taken out.
fn plain_preview(text: &str) -> String {
    let is_fence = |l: &str| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~");
    let line = text.lines().find(|l| !l.trim().is_empty() && !is_fence(l)).unwrap_or("").trim();
    let line = line.trim_start_matches('#').trim_start_matches('>').trim_start();
    let line = ["- ", "* ", "+ "].iter().find_map(|bullet| line.strip_prefix(bullet)).unwrap_or(line);
    line.replace("**", "").replace("__", "").replace('`', "").chars().take(PREVIEW_CHARS).collect()
}

/// A reader that counts the bytes consumed, so a line's offset is known as it is passed.
struct Counted<R> {
    inner: R,
    pos: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.pos += amount as u64;
        self.inner.consume(amount);
    }
}

/// Where a turn's records start in the file: its prompt and its last reply.
struct Exchange {
    prompt: u64,
    reply: Option<u64>,
}

/// The record at byte `offset` of `file`, parsed (`None` when it cannot be read).
fn record_at(mut file: &std::fs::File, offset: u64) -> Option<serde_json::Value> {
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(offset)).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file.take(open::READ_LIMIT.saturating_sub(offset))).read_until(b'\n', &mut line).ok()?;
    serde_json::from_slice(&line).ok()
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
    } else if start.starts_with(br#"{"type":"rewound""#) {
        Kind::Rewound
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

/// Reads what `elelem sessions` shows without parsing every record: only the header, the
/// usage and rewind records are kept and parsed as they pass, other lines are counted; the
/// first and last remaining prompt and the last reply are read back by their offsets at the
/// end. A link, FIFO or device is not a session (`None`); a file is read no further than
/// `open::READ_LIMIT`.
fn info(path: &Path, scan: Scan) -> Option<SessionInfo> {
    let file = open::read(path).ok()?;
    let meta = file.metadata().ok()?;
    let id = path.file_stem()?.to_string_lossy().into_owned();
    let inner = std::io::BufReader::with_capacity(1 << 16, (&file).take(open::READ_LIMIT));
    let mut reader = Counted { inner, pos: 0 };
    let (mut cwd, mut started) = (String::new(), 0);
    let mut usage = crate::protocol::Usage::default();
    let mut line = Vec::new();
    // The turns that remain, in order.
    let mut exchanges: Vec<Exchange> = Vec::new();
    loop {
        let at = reader.pos;
        let keep = |kind| matches!(kind, Kind::Session | Kind::Usage | Kind::Rewound);
        let Some(kind) = next_line(&mut reader, &mut line, keep) else { break };
        let record = || serde_json::from_slice::<serde_json::Value>(&line).ok();
        match kind {
            Kind::Prompt => exchanges.push(Exchange { prompt: at, reply: None }),
            Kind::Reply => {
                if let Some(last) = exchanges.last_mut() {
                    last.reply = Some(at);
                }
            }
            Kind::Rewound => {
                let turns = record().and_then(|r| r["turns"].as_u64()).unwrap_or(0);
                let turns = usize::try_from(turns).unwrap_or(usize::MAX);
                exchanges.truncate(exchanges.len().saturating_sub(turns));
            }
            Kind::Session => {
                if let Some(record) = record() {
                    cwd = record["cwd"].as_str().unwrap_or_default().to_string();
                    started = record["started"].as_u64().unwrap_or_default();
                }
                if scan == Scan::Header {
                    break;
                }
            }
            Kind::Usage => {
                if let Some(record) = record() {
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
    drop(reader);
    let text_at = |offset: Option<u64>, key: &str| {
        offset.and_then(|at| record_at(&file, at)).and_then(|r| r[key].as_str().map(str::to_string))
    };
    let first_prompt =
        text_at(exchanges.first().map(|e| e.prompt), "text").and_then(|t| t.lines().next().map(str::to_string));
    let last = exchanges.last();
    Some(SessionInfo {
        file: SessionFile { id, path: path.to_path_buf() },
        cwd,
        started,
        first_prompt: first_prompt.unwrap_or_default(),
        last_prompt: text_at(last.map(|e| e.prompt), "text").map(|t| preview(&t)).unwrap_or_default(),
        last_reply: text_at(last.and_then(|e| e.reply), "reply").map(|t| plain_preview(&t)).unwrap_or_default(),
        turns: exchanges.len(),
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

    #[test]
    fn a_replys_preview_is_its_first_line_of_prose_without_marks() {
        assert_eq!(plain_preview("## **Overview**\n\nmore"), "Overview");
        assert_eq!(plain_preview("```rust\nfn main() {}\n```"), "fn main() {}");
        assert_eq!(plain_preview("- use `cargo test`"), "use cargo test");
        assert_eq!(plain_preview("> quoted __words__"), "quoted words");
    }

    /// Four turns, the last two rewound, then a fifth: three remain, the fifth previewed.
    #[test]
    fn rewound_turns_are_neither_counted_nor_previewed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = String::from("{\"type\":\"session\",\"cwd\":\"/p\",\"started\":1}\n");
        let turn = |text: &mut String, n: usize| {
            text.push_str(&format!("{{\"type\":\"prompt\",\"text\":\"prompt {n}\"}}\n"));
            text.push_str(&format!("{{\"type\":\"turn_finished\",\"reply\":\"**reply {n}**\",\"end\":\"done\"}}\n"));
        };
        (1..=4).for_each(|n| turn(&mut text, n));
        text.push_str("{\"type\":\"rewound\",\"turns\":2}\n");
        std::fs::write(&path, &text).unwrap();
        let listed = info(&path, Scan::Whole).unwrap();
        assert_eq!((listed.turns, listed.last_prompt.as_str(), listed.last_reply.as_str()), (2, "prompt 2", "reply 2"));
        turn(&mut text, 5);
        std::fs::write(&path, &text).unwrap();
        let listed = info(&path, Scan::Whole).unwrap();
        assert_eq!((listed.turns, listed.last_prompt.as_str(), listed.last_reply.as_str()), (3, "prompt 5", "reply 5"));
        assert_eq!(listed.first_prompt, "prompt 1");
        text.push_str("{\"type\":\"rewound\",\"turns\":18446744073709551615}\n");
        std::fs::write(&path, &text).unwrap();
        let listed = info(&path, Scan::Whole).unwrap();
        assert_eq!((listed.turns, listed.first_prompt.as_str(), listed.last_reply.as_str()), (0, "", ""));
    }
}
