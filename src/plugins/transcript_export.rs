//! `/copy [N]`, `/copy code [N]` and `/export [FILE]`: a reply or a code block of the
//! conversation as Markdown, or the whole transcript. A copy is handed to the front end
//! (`AgentEvent::Clipboard`), which writes it to the terminal's clipboard through OSC 52 (see
//! `clipboard.rs`); under tmux it also goes to tmux's paste buffer, and the message says
//! which of these happened. An export is a file in the data directory
//! (`exports/<session>.md`, the directory handed in by `startup`) or where the user says.
//!
//! An export never writes through a link and never waits on a FIFO (`safe_file`): a file
//! the user names is created new; one that exists already is replaced only when the user
//! says `--force` (as `/undo` and `/rewind` do; there is no dialog, so every front end asks
//! the same way), and then only if it is a regular file: a link, a FIFO, a device there is
//! refused, whatever the flag. The default file in the data directory is elelem's own and
//! is replaced when it is a regular file.

use super::transcript_log::TranscriptLog;
use crate::agent::{AgentEvent, Delta, Flow, Plugin, Session};
use crate::protocol::Role;
use anyhow::{bail, Context as _};
#[cfg(unix)]
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `/copy`: the last reply; `/copy N`: the N-th reply of the conversation (from 1);
/// `/copy code`: the last code block of the conversation; `/copy code N`: its N-th (from 1),
/// counted over every reply of the conversation.
pub fn copy(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let replies: Vec<&str> = session
        .conversation()
        .messages()
        .iter()
        .filter(|m| m.role == Role::Assistant && !m.content.is_empty())
        .map(|m| m.content.as_str())
        .collect();
    let mut words = args.split_whitespace();
    let (text, what) = match (words.next(), words.next(), words.next()) {
        (None, ..) => (replies.last().copied().context("no reply to copy yet")?.to_string(), "the last reply".into()),
        (Some("code"), n, None) => {
            // Counted over the whole conversation, as the blocks appear on screen.
            let blocks: Vec<String> = replies.iter().flat_map(|reply| code_blocks(reply)).collect();
            let i = match n {
                None => blocks.len(),
                Some(n) => n.parse().with_context(|| format!("usage: /copy code [N], not {n:?}"))?,
            };
            match i.checked_sub(1).and_then(|i| blocks.get(i)) {
                Some(block) => (block.clone(), format!("code block {i} of {}", blocks.len())),
                None if blocks.is_empty() => bail!("the conversation has no code block"),
                None => bail!("no code block {i}: the conversation has {}", blocks.len()),
            }
        }
        (Some(n), None, None) => {
            let i: usize = n.parse().with_context(|| format!("usage: /copy [N] or /copy code [N], not {n:?}"))?;
            match i.checked_sub(1).and_then(|i| replies.get(i)) {
                Some(text) => (text.to_string(), format!("reply {i}")),
                None => bail!("no reply {i}: there are {}", replies.len()),
            }
        }
        _ => bail!("usage: /copy [N] or /copy code [N], not {:?}", args.trim()),
    };
    let lines = text.lines().count();
    let tmux = crate::clipboard::in_tmux().then(|| crate::clipboard::tmux_load_buffer(&text));
    let cut = text.len() > crate::clipboard::TMUX_CAP;
    session.output().emit(AgentEvent::Clipboard(text));
    let plural = if lines == 1 { "" } else { "s" };
    let mut said =
        format!("Copied {what} ({lines} line{plural}): sent to the terminal via OSC 52 (the terminal may ignore it)");
    match tmux {
        None => said.push('.'),
        Some(Ok(())) if cut => said.push_str("; its first 4 MB are in tmux's paste buffer (tmux load-buffer)."),
        Some(Ok(())) => said.push_str("; also in tmux's paste buffer (tmux load-buffer)."),
        Some(Err(why)) => said.push_str(&format!("; not in tmux's paste buffer: {why}.")),
    }
    session.show(said);
    Ok(Flow::Continue)
}

/// The fenced and indented code blocks of `markdown`, in order, as their text.
pub fn code_blocks(markdown: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => open = Some(String::new()),
            Event::Text(text) => {
                if let Some(block) = open.as_mut() {
                    block.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(open.take()),
            _ => {}
        }
    }
    blocks
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
            | AgentEvent::Rewound { .. }
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
            "[FILE] [--force]",
            "write the transcript (prompts, replies, tool calls and results) as Markdown",
            move |session, args| export(session, args, &log, dir.as_deref(), &name),
        );
        Ok(())
    }
}

/// `/export [FILE] [--force]`: writes the transcript to FILE (relative to the working
/// directory; an existing one only with `--force`), or to `<dir>/<name>.md`, and says
/// where.
fn export(
    session: &mut Session,
    args: &str,
    log: &TranscriptLog,
    dir: Option<&Path>,
    name: &str,
) -> anyhow::Result<Flow> {
    let (given, force) = arguments(args);
    let markdown = log.markdown();
    let path = match given {
        "" => {
            let dir = dir.context("no data directory (set HOME or XDG_DATA_HOME), so name a file: /export FILE")?;
            // The user's alone, like the rest of the data directory.
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            builder.mode(0o700);
            builder.recursive(true).create(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let path = dir.join(format!("{name}.md"));
            crate::safe_file::replace(&path, markdown.as_bytes(), 0o600)
                .with_context(|| format!("cannot write {}", path.display()))?;
            path
        }
        given => {
            let path = session.cwd().join(given);
            let written = match force {
                true => crate::safe_file::replace(&path, markdown.as_bytes(), 0o600),
                false => crate::safe_file::create_new(&path, markdown.as_bytes(), 0o600),
            };
            match written {
                Ok(()) => path,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    bail!("{} already exists; not replaced. To replace it: /export {given} --force", path.display())
                }
                Err(e) => match std::fs::symlink_metadata(&path) {
                    Ok(meta) if !meta.is_file() => bail!(
                        "{} is {}, not a regular file: /export writes only regular files, never through a \
                         link; remove it or name another file",
                        path.display(),
                        crate::safe_file::kind_name(meta.file_type())
                    ),
                    _ => bail!("cannot write {}: {e}", path.display()),
                },
            }
        }
    };
    let turns = log.turns();
    let plural = if turns == 1 { "" } else { "s" };
    session.show(format!("Wrote the transcript ({turns} turn{plural}) to {}.", path.display()));
    Ok(Flow::Continue)
}

/// The file named and whether `--force` was given (first or last).
fn arguments(args: &str) -> (&str, bool) {
    let args = args.trim();
    let word_end = |rest: &str| rest.is_empty() || rest.ends_with(char::is_whitespace);
    let word_start = |rest: &str| rest.is_empty() || rest.starts_with(char::is_whitespace);
    if let Some(rest) = args.strip_suffix("--force").filter(|rest| word_end(rest)) {
        return (rest.trim(), true);
    }
    if let Some(rest) = args.strip_prefix("--force").filter(|rest| word_start(rest)) {
        return (rest.trim(), true);
    }
    (args, false)
}

#[cfg(test)]
mod tests {
    use super::{arguments, code_blocks};

    #[test]
    fn force_is_a_word_first_or_last() {
        assert_eq!(arguments(" notes.md --force "), ("notes.md", true));
        assert_eq!(arguments("--force my notes.md"), ("my notes.md", true));
        assert_eq!(arguments("--force"), ("", true));
        assert_eq!(arguments("not--force"), ("not--force", false));
        assert_eq!(arguments("notes.md"), ("notes.md", false));
    }

    #[test]
    fn code_blocks_are_found_in_order_fenced_or_indented() {
        let reply =
            "Two ways:\n\n```rust\nfn a() {}\n```\n\ntext\n\n    indented\n\n- in a list:\n\n  ~~~\n  b\n  ~~~\n";
        assert_eq!(code_blocks(reply), ["fn a() {}\n", "indented\n", "b\n"]);
        assert!(code_blocks("no code, `inline` only").is_empty());
    }
}
