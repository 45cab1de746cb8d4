//! `/copy [N]` and `/export [FILE]`: a reply as Markdown, or the whole transcript. A copy
//! is handed to the front end (`AgentEvent::Clipboard`), which writes it to the terminal's
//! clipboard through OSC 52 (see `clipboard.rs`); an export is a file in the data directory
//! (`exports/<session>.md`, the directory handed in by `startup`) or where the user says.

use super::transcript_log::TranscriptLog;
use crate::agent::{AgentEvent, Delta, Flow, Plugin, Session};
use crate::protocol::Role;
use anyhow::{bail, Context as _};
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `/copy`: the last reply; `/copy N`: the N-th reply of the conversation (from 1).
pub fn copy(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let replies: Vec<&str> = session
        .conversation()
        .messages()
        .iter()
        .filter(|m| m.role == Role::Assistant && !m.content.is_empty())
        .map(|m| m.content.as_str())
        .collect();
    let text = match args.trim() {
        "" => replies.last().copied().context("no reply to copy yet")?,
        n => {
            let i: usize = n.parse().with_context(|| format!("usage: /copy [N], not {n:?}"))?;
            match i.checked_sub(1).and_then(|i| replies.get(i)) {
                Some(text) => text,
                None => bail!("no reply {i}: there are {}", replies.len()),
            }
        }
    }
    .to_string();
    let lines = text.lines().count();
    session.output().emit(AgentEvent::Clipboard(text));
    let plural = if lines == 1 { "" } else { "s" };
    session.show(format!("Copied {lines} line{plural} to the clipboard (OSC 52)."));
    Ok(Flow::Continue)
}

/// `/export`: keeps the transcript as the user saw it (`transcript_log.rs`) and writes it
/// as Markdown — by default to `exports/<session>.md` in the data directory, never the work
/// tree unless the user names a path there.
pub struct TranscriptExport {
    /// Where exports go by default (the data directory's `exports/`), if there is one.
    dir: Option<PathBuf>,
    /// The default file's name, without `.md` (the session's id).
    name: String,
    log: TranscriptLog,
}

impl TranscriptExport {
    pub fn new(dir: Option<PathBuf>, name: impl Into<String>) -> Self {
        TranscriptExport { dir, name: name.into(), log: TranscriptLog::default() }
    }

    /// The transcript so far (a resumed session's history goes in through `seed`).
    pub fn log(&self) -> &TranscriptLog {
        &self.log
    }
}

/// The events the transcript is made of.
fn kept(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::TurnStarted { .. }
            | AgentEvent::Delta(Delta::Saying(_) | Delta::Thinking(_))
            | AgentEvent::ToolFinished { .. }
            | AgentEvent::Error(_)
            | AgentEvent::Cleared
    )
}

impl Plugin for TranscriptExport {
    fn name(&self) -> &str {
        "export"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let log = self.log.clone();
        session.observe_only(kept, Arc::new(move |event| log.note(event)));
        let (log, dir, name) = (self.log.clone(), self.dir.clone(), self.name.clone());
        session.commands_mut().add(
            "export",
            "[FILE]",
            "write the transcript (prompts, replies, tool calls and results) as Markdown",
            move |session, args| export(session, args, &log, dir.as_deref(), &name),
        );
        Ok(())
    }
}

/// `/export [FILE]`: writes the transcript to FILE (relative to the working directory), or
/// to `<dir>/<name>.md`, and says where.
fn export(
    session: &mut Session,
    args: &str,
    log: &TranscriptLog,
    dir: Option<&Path>,
    name: &str,
) -> anyhow::Result<Flow> {
    let path = match args.trim() {
        "" => {
            let dir = dir.context("no data directory (set HOME or XDG_DATA_HOME), so name a file: /export FILE")?;
            // The user's alone, like the rest of the data directory.
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            dir.join(format!("{name}.md"))
        }
        given => session.cwd().join(given),
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(log.markdown().as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    let turns = log.turns();
    let plural = if turns == 1 { "" } else { "s" };
    session.show(format!("Wrote the transcript ({turns} turn{plural}) to {}.", path.display()));
    Ok(Flow::Continue)
}
