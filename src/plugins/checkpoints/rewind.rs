//! `/rewind [N] [--force]`: puts the conversation and the files back to just before the
//! N-th last prompt (default 1). The files go back through the checkpoints (`undo.rs`,
//! from the first turn taken away), refused whole — nothing changes — when a file changed
//! outside elelem since (unless `--force`); then the kernel takes the turns out of the
//! conversation (`Session::rewind`), and a note tells the model with the next prompt.
//! `/rewind` alone lists the prompts it can go back to, newest first.

use super::store::Store;
use super::undo;
use crate::agent::{Flow, Session};
use crate::protocol::Role;
use anyhow::{bail, Context as _};
use std::fmt::Write as _;
use std::path::Path;

/// The turns the conversation still holds, by the checkpoints' turn numbers, oldest first:
/// `/rewind N` takes the last N of them.
#[derive(Default)]
pub struct Live(pub Vec<usize>);

/// What the user typed after `/rewind`.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    List,
    Rewind { turns: usize, force: bool },
}

fn parse(args: &str) -> anyhow::Result<Request> {
    let (mut turns, mut force) = (None, false);
    for word in args.split_whitespace() {
        match word {
            "--force" | "-f" => force = true,
            n => turns = Some(n.parse().with_context(|| format!("usage: /rewind [N] [--force], not {n:?}"))?),
        }
    }
    Ok(match turns {
        None if !force => Request::List,
        turns => Request::Rewind { turns: turns.unwrap_or(1), force },
    })
}

/// The prompts of the conversation, newest first, numbered as `/rewind N` takes them.
fn list(session: &Session) -> String {
    let prompts: Vec<String> = session
        .conversation()
        .messages()
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(80).collect())
        .collect();
    if prompts.is_empty() {
        return "Nothing to rewind: the conversation holds no prompt.".into();
    }
    let mut text = String::from("/rewind N goes back to just before prompt N (files too):\n");
    for (i, prompt) in prompts.iter().rev().enumerate() {
        let _ = writeln!(text, "  {}. {prompt}", i + 1);
    }
    text.trim_end().to_string()
}

/// Runs `/rewind`. `store` and `live` are the plugin's; `cwd` resolves paths as `/undo` does.
pub fn command(
    session: &mut Session,
    args: &str,
    store: &mut Store,
    live: &mut Live,
    cwd: &Path,
) -> anyhow::Result<Flow> {
    let (turns, force) = match parse(args)? {
        Request::List => {
            session.show(list(session));
            return Ok(Flow::Continue);
        }
        Request::Rewind { turns, force } => (turns, force),
    };
    let prompts = session.conversation().messages().iter().filter(|m| m.role == Role::User).count();
    if turns == 0 || turns > prompts {
        bail!("cannot rewind {turns} turn(s): the conversation holds {prompts} prompt(s)");
    }
    // The first turn taken away, by the checkpoints' count.
    let from = match live.0.len().checked_sub(turns) {
        Some(i) => live.0[i],
        None => (store.turn + 1).saturating_sub(turns).max(1),
    };
    let files = if store.checkpoints().iter().any(|c| c.turn >= from) {
        Some(undo::undo(store, Some(from), force, cwd).context("not rewound")?)
    } else {
        None
    };
    let prompt = session.rewind(turns).map_err(anyhow::Error::msg)?;
    live.0.truncate(live.0.len().saturating_sub(turns));
    let plural = if turns == 1 { "" } else { "s" };
    let files_said = match &files {
        Some(text) => format!(" {text}"),
        None => " No file had changed since.".into(),
    };
    session.add_note(format!(
        "[The user rewound the conversation to before an earlier prompt: the last {turns} turn{plural} are gone \
         from it, and what they said and did no longer stands.{files_said}\nRead files again before relying on \
         them.]"
    ));
    let first = prompt.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    session.show(format!(
        "Rewound {turns} turn{plural}, to just before: {first}\n{}(The model is told with your next prompt.)",
        files.map(|f| format!("{f}\n")).unwrap_or_default()
    ));
    Ok(Flow::Continue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_count_and_force() {
        assert_eq!(parse("").unwrap(), Request::List);
        assert_eq!(parse("2").unwrap(), Request::Rewind { turns: 2, force: false });
        assert_eq!(parse("--force").unwrap(), Request::Rewind { turns: 1, force: true });
        assert!(parse("two").is_err());
    }
}
