//! `elelem files`: prints files as a `<documents>` block for pasting into a model, from
//! the named paths, paths piped on stdin, or `git ls-files`. Each file is opened without
//! waiting (`O_NONBLOCK`: a FIFO cannot hang it) and read only when it is a regular file, at
//! most `FILE_CAP` bytes; a path `git ls-files` lists that is a symbolic link is skipped
//! with a note on stderr (a repository's link may lead anywhere, `~/.ssh` included), while
//! a path the user names is followed.

use anyhow::Context as _;
use std::io::{IsTerminal, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt as _;

/// Bytes of one file read at most; a larger file is an error.
pub const FILE_CAP: u64 = 16 * 1024 * 1024;

pub fn run(paths: Vec<String>) -> anyhow::Result<()> {
    let paths = if !paths.is_empty() {
        paths
    } else if !std::io::stdin().is_terminal() {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("cannot read paths from stdin")?;
        text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect()
    } else {
        let out = std::process::Command::new("git").arg("ls-files").output().context("cannot run git ls-files")?;
        if !out.status.success() {
            anyhow::bail!("git ls-files failed: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        let listed: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
        let (files, links): (Vec<String>, Vec<String>) =
            listed.into_iter().partition(|p| !std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()));
        for link in links {
            eprintln!("elelem: skipped {}: a symbolic link (a repository's link is not followed)", link.escape_debug());
        }
        files
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(documents(&paths)?.as_bytes())?;
    Ok(())
}

/// The `<documents>` block for `paths`.
pub fn documents(paths: &[String]) -> anyhow::Result<String> {
    let mut out = String::from("<documents>\n");
    for (i, path) in paths.iter().enumerate() {
        let content = read_regular(path).with_context(|| format!("cannot read {path}"))?;
        let content = String::from_utf8_lossy(&content);
        out.push_str(&format!(
            "<document index=\"{}\"><source>{path}</source><document_content>{content}</document_content></document>\n",
            i + 1
        ));
    }
    out.push_str("</documents>\n");
    Ok(out)
}

/// The whole of `path` when it is a regular file of at most `FILE_CAP` bytes; the open
/// never waits (a FIFO, a terminal), anything else is refused by its kind.
fn read_regular(path: &str) -> std::io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = options.read(true).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let too_large = || std::io::Error::other(format!("larger than {FILE_CAP} bytes"));
    if meta.len() > FILE_CAP {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(FILE_CAP + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > FILE_CAP {
        return Err(too_large());
    }
    Ok(bytes)
}
