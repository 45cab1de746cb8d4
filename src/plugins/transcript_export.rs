//! `/copy [N]` and `/export [FILE]`: a reply, or the whole conversation, as Markdown. A copy
//! is handed to the front end (`AgentEvent::Clipboard`), which writes it to the terminal's
//! clipboard through OSC 52 (see `clipboard.rs`); an export is a file in the working
//! directory.

use crate::agent::{AgentEvent, Flow, Session};
use crate::protocol::Role;
use anyhow::{bail, Context as _};

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

/// The conversation as Markdown: `## You` / `## elelem` sections.
pub fn markdown(session: &Session) -> String {
    let mut out = String::from("# elelem conversation\n");
    for message in session.conversation().messages() {
        let heading = match message.role {
            Role::User => "You",
            Role::Assistant => "elelem",
            Role::Tool => "Tool result",
            Role::System => "System",
        };
        out.push_str(&format!("\n## {heading}\n\n{}\n", message.text().trim_end()));
    }
    out
}

/// `/export [FILE]`: writes the conversation as Markdown (default `elelem-conversation.md`).
pub fn export(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let path = if args.trim().is_empty() { "elelem-conversation.md" } else { args.trim() };
    std::fs::write(path, markdown(session)).with_context(|| format!("cannot write {path}"))?;
    session.show(format!("Wrote the conversation ({} messages) to {path}.", session.conversation().len()));
    Ok(Flow::Continue)
}
