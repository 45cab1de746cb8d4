//! `/copy [N]`, `/copy code [N]` and `/export [FILE]`: a reply, a code block of the last
//! reply, or the whole conversation, as Markdown. A copy is handed to the front end
//! (`AgentEvent::Clipboard`), which writes it to the terminal's clipboard through OSC 52 (see
//! `clipboard.rs`); under tmux it also goes to tmux's paste buffer, and the message says
//! which of these happened. An export is a file in the working directory.

use crate::agent::{AgentEvent, Flow, Session};
use crate::protocol::Role;
use anyhow::{bail, Context as _};

/// `/copy`: the last reply; `/copy N`: the N-th reply of the conversation (from 1);
/// `/copy code`: the last code block of the last reply; `/copy code N`: its N-th (from 1).
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
            let reply = replies.last().copied().context("no reply to copy yet")?;
            let blocks = code_blocks(reply);
            let i = match n {
                None => blocks.len(),
                Some(n) => n.parse().with_context(|| format!("usage: /copy code [N], not {n:?}"))?,
            };
            match i.checked_sub(1).and_then(|i| blocks.get(i)) {
                Some(block) => (block.clone(), format!("code block {i} of {}", blocks.len())),
                None if blocks.is_empty() => bail!("the last reply has no code block"),
                None => bail!("no code block {i}: the last reply has {}", blocks.len()),
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

#[cfg(test)]
mod tests {
    use super::code_blocks;

    #[test]
    fn code_blocks_are_found_in_order_fenced_or_indented() {
        let reply =
            "Two ways:\n\n```rust\nfn a() {}\n```\n\ntext\n\n    indented\n\n- in a list:\n\n  ~~~\n  b\n  ~~~\n";
        assert_eq!(code_blocks(reply), ["fn a() {}\n", "indented\n", "b\n"]);
        assert!(code_blocks("no code, `inline` only").is_empty());
    }
}
