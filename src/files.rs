//! `elelem files`: prints files as a `<documents>` block for pasting into a model, from
//! the named paths, paths piped on stdin, or `git ls-files`.

use anyhow::Context as _;
use std::io::{IsTerminal, Read, Write};

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
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(documents(&paths)?.as_bytes())?;
    Ok(())
}

/// The `<documents>` block for `paths`.
pub fn documents(paths: &[String]) -> anyhow::Result<String> {
    let mut out = String::from("<documents>\n");
    for (i, path) in paths.iter().enumerate() {
        let content = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
        let content = String::from_utf8_lossy(&content);
        out.push_str(&format!(
            "<document index=\"{}\"><source>{path}</source><document_content>{content}</document_content></document>\n",
            i + 1
        ));
    }
    out.push_str("</documents>\n");
    Ok(out)
}
