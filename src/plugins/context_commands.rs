//! The commands that show and shape what the model sees: `/context` (list — `/context list`
//! too, which the full-screen app, where `/context` alone toggles the context panel, sends
//! here —, JSON, one message, `keep K`: the K-th tool call of the last turn, as the list
//! numbers them, `delete N[,M…]`, `edit N [TEXT]`: without TEXT in the user's editor), `/clear`
//! (undoable once with `/clear undo`) and `/compact [instructions]`. Messages are numbered
//! from 1, and 1 is the system prompt, which cannot be deleted or edited.

use crate::agent::{AgentEvent, Conversation, Flow, Session};
use anyhow::{bail, Context as _};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// The conversation `/clear` removed last, for `/clear undo`.
#[derive(Clone, Default)]
pub struct ClearedConversation(Arc<Mutex<Option<Conversation>>>);

pub fn clear(session: &mut Session, args: &str, cleared: &ClearedConversation) -> anyhow::Result<Flow> {
    match args.trim() {
        "" => {
            let previous = session.conversation().clone();
            if let Ok(mut slot) = cleared.0.lock() {
                *slot = Some(previous);
            }
            session.conversation_mut().clear();
            session.output().emit(AgentEvent::Cleared);
            session.show("Conversation cleared. /clear undo brings it back.");
        }
        "undo" => {
            let Some(previous) = cleared.0.lock().ok().and_then(|mut slot| slot.take()) else {
                bail!("nothing to undo: /clear undo works once, after a /clear");
            };
            let count = previous.len();
            *session.conversation_mut() = previous;
            session.show(format!("Conversation restored ({count} messages)."));
        }
        other => bail!("usage: /clear [undo], not {other:?}"),
    }
    session.publish_context();
    Ok(Flow::Continue)
}

/// `/compact [instructions]`: the session asks the model for a summary.
pub fn compact(_: &mut Session, args: &str) -> anyhow::Result<Flow> {
    Ok(Flow::Compact(args.trim().to_string()))
}

pub fn context(session: &mut Session, args: &str) -> anyhow::Result<Flow> {
    let (verb, rest) = args.trim().split_once(char::is_whitespace).unwrap_or((args.trim(), ""));
    match verb {
        "" => list(session),
        "list" => list(session),
        "json" => session.show(serde_json::to_string_pretty(&session.transcript().messages(&[]))?),
        "delete" => delete(session, rest)?,
        "keep" => keep(session, rest)?,
        "edit" => edit(session, rest)?,
        n => {
            let messages = session.transcript().messages(&[]);
            let i: usize = n.parse().with_context(|| {
                format!("usage: /context [list|json|N|keep K|delete N[,M…]|edit N [TEXT]], not {n:?}")
            })?;
            let Some(m) = i.checked_sub(1).and_then(|i| messages.get(i)) else {
                bail!("no message {i}: there are {}", messages.len());
            };
            session.show(format!("{}. {}:\n{}", i, m.role, m.text()));
        }
    }
    Ok(Flow::Continue)
}

fn list(session: &Session) {
    let mut text = String::new();
    for (i, m) in session.transcript().messages(&[]).iter().enumerate() {
        let body = m.text();
        let first = body.lines().next().unwrap_or("");
        let more = if body.lines().nth(1).is_some() { " …" } else { "" };
        let _ = writeln!(text, "{:>3}. {}: {first}{more}", i + 1, m.role);
    }
    let calls = crate::agent::kept_calls::calls(session.last_turn());
    if calls.is_empty() {
        let _ = writeln!(
            text,
            "The last turn made no tool calls (after one that does, they are listed here as k1, k2…, and \
             /context keep K keeps one in what the model sees)."
        );
    } else {
        let _ = writeln!(text, "Tool calls of the last turn (not sent again; /context keep K keeps one):");
        for (k, (call, result)) in calls.iter().enumerate() {
            let how = match result.and_then(|r| r.result.as_ref()) {
                Some(r) if r.is_ok() => "ok",
                Some(_) => "failed",
                None => "no result",
            };
            let summary = session.toolbox().summarize(&call.name, &call.arguments);
            let _ = writeln!(text, "  k{}. {} {summary} ({how})", k + 1, call.name);
        }
    }
    session.show(text.trim_end());
}

/// `/context keep K`: the K-th tool call of the last turn (`k1`, `K` or `kK`).
fn keep(session: &mut Session, which: &str) -> anyhow::Result<()> {
    let which = which.trim().trim_start_matches(['k', 'K']);
    let k: usize = which.parse().with_context(|| format!("usage: /context keep K, not {which:?}"))?;
    let calls = crate::agent::kept_calls::calls(session.last_turn());
    let Some((call, _)) = k.checked_sub(1).and_then(|i| calls.get(i)) else {
        bail!("no tool call k{k} in the last turn: there are {}", calls.len());
    };
    let (id, name) = (call.id.clone(), call.name.clone());
    if !session.keep(&id) {
        bail!("k{k} ({name}) has no result to keep");
    }
    session.show(format!("Kept {name} (k{k}) and its result in the conversation."));
    Ok(())
}

/// A message number as the user typed it, as an index into the conversation.
fn conversation_index(session: &Session, number: &str) -> anyhow::Result<usize> {
    let n: usize = number.trim().parse().with_context(|| format!("not a message number: {number:?}"))?;
    match n {
        0 => bail!("messages are numbered from 1"),
        1 => bail!("message 1 is the system prompt, which cannot be changed here"),
        n if n - 2 >= session.conversation().len() => {
            bail!("no message {n}: there are {}", session.conversation().len() + 1)
        }
        n => Ok(n - 2),
    }
}

/// ` The next request sends ~N tokens again…`: a change at conversation message `from`
/// ends the prefix a prompt cache holds there, so everything after it is written again.
fn rewritten_from(session: &Session, from: usize) -> String {
    let tokens: u64 = session.conversation().messages()[from.min(session.conversation().len())..]
        .iter()
        .map(|m| crate::protocol::models::estimate_tokens(&m.text()) + 4)
        .sum();
    format!(" The next request sends ~{tokens} tokens after the change uncached (a prompt cache is written again from there).")
}

fn delete(session: &mut Session, numbers: &str) -> anyhow::Result<()> {
    let mut indices = numbers
        .split([',', ' '])
        .filter(|n| !n.trim().is_empty())
        .map(|n| conversation_index(session, n))
        .collect::<anyhow::Result<Vec<usize>>>()?;
    if indices.is_empty() {
        bail!("usage: /context delete N[,M…]");
    }
    indices.sort_unstable();
    indices.dedup();
    for &i in indices.iter().rev() {
        session.conversation_mut().remove(i);
    }
    let rewrite = rewritten_from(session, indices[0]);
    session.show(format!("Deleted {} message(s).{rewrite}", indices.len()));
    session.publish_context();
    Ok(())
}

/// `/context edit N TEXT` replaces message N; `/context edit N` opens it in the user's
/// editor. Emptied, it is deleted.
fn edit(session: &mut Session, args: &str) -> anyhow::Result<()> {
    let (number, text) = args.trim().split_once(char::is_whitespace).unwrap_or((args.trim(), ""));
    let i = conversation_index(session, number)?;
    let edited;
    let text = if text.trim().is_empty() {
        let Some(editor) = session.editor() else {
            bail!("no editor here: /context edit {number} TEXT replaces the message");
        };
        let current = session.conversation().messages().get(i).map(|m| m.text().into_owned()).unwrap_or_default();
        edited = editor.edit(&current)?;
        if edited == current {
            session.show(format!("Message {number} unchanged."));
            return Ok(());
        }
        edited.as_str()
    } else {
        text
    };
    if text.trim().is_empty() {
        session.conversation_mut().remove(i);
        let rewrite = rewritten_from(session, i);
        session.show(format!("Message {number} was emptied, so it is deleted.{rewrite}"));
    } else {
        session.conversation_mut().set_content(i, text.trim());
        let rewrite = rewritten_from(session, i);
        session.show(format!("Message {number} replaced.{rewrite}"));
    }
    session.publish_context();
    Ok(())
}
