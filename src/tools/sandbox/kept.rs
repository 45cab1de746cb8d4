//! The record of protected paths a contained command created that the clean-up after it
//! could not remove (`watch.rs`): `refused.json` in elelem's data directory, read by
//! `plugins/trust.rs`, which refuses to load a project's `.agents/` or `.claude/` recorded
//! there for as long as that very entry (its device and inode) is in place — in this run and
//! the next ones. The file:
//! `{"refused": [{"path": "/p/.agents", "device": 2049, "inode": 1234, "reason": "…"}]}`
//! (mode 0600, written whole through a renamed temporary file). Entries whose path is gone
//! or holds another entry are dropped when it is written again.

use serde_json::{json, Value};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The file's name in the data directory.
pub const FILE: &str = "refused.json";
/// Bytes of `FILE` read at most (its readers use the same cap).
pub const FILE_CAP: usize = 1024 * 1024;

/// Records that `path` is refused (`reason`: why it could not be removed); the file it was
/// recorded in.
pub fn record(path: &Path, reason: &str) -> Result<PathBuf, String> {
    let dir = super::data_dir().ok_or("no data directory to record it in")?;
    record_in(&dir, path, reason)
}

fn record_in(dir: &Path, path: &Path, reason: &str) -> Result<PathBuf, String> {
    let file = dir.join(FILE);
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // A regular file only, read without waiting on a FIFO, capped (`tools::regular`).
    let old: Value = crate::tools::regular::read_capped(&file, FILE_CAP)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null);
    let mut entries: Vec<Value> = old["refused"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["path"].as_str() != path.to_str() && still_there(entry))
        .cloned()
        .collect();
    entries.push(json!({
        "path": path.to_string_lossy(),
        "device": meta.dev(),
        "inode": meta.ino(),
        "reason": reason,
    }));
    let text = serde_json::to_string_pretty(&json!({ "refused": entries })).map_err(|e| e.to_string())? + "\n";
    write_private(dir, &file, &text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(file)
}

/// Whether the entry recorded is still the one at its path.
fn still_there(entry: &Value) -> bool {
    let Some(path) = entry["path"].as_str() else { return false };
    std::fs::symlink_metadata(path)
        .is_ok_and(|meta| entry["device"].as_u64() == Some(meta.dev()) && entry["inode"].as_u64() == Some(meta.ino()))
}

/// Writes `text` to `file` in `dir` (made 0700), readable by the user alone.
fn write_private(dir: &Path, file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let temp = dir.join(format!(".{FILE}.{}", std::process::id()));
    // A new file, never through a link or into a FIFO left at the temporary name.
    let _ = std::fs::remove_file(&temp);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .mode(0o600)
        .open(&temp)?;
    out.write_all(text.as_bytes())?;
    out.sync_all()?;
    std::fs::rename(&temp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_path_is_recorded_with_its_inode_and_stale_entries_go() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data/elelem");
        let (one, two) = (dir.path().join("one/.agents"), dir.path().join("two/.agents"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let file = record_in(&data, &one, "EBUSY").unwrap();
        record_in(&data, &two, "EPERM").unwrap();
        let read = || serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(read()["refused"].as_array().unwrap().len(), 2);
        assert_eq!(read()["refused"][0]["inode"], std::fs::metadata(&one).unwrap().ino());
        std::fs::remove_dir(&one).unwrap();
        record_in(&data, &two, "again").unwrap();
        let refused = read()["refused"].as_array().unwrap().clone();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(refused[0]["reason"], "again");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
}
