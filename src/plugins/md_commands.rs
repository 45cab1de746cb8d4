//! Markdown slash commands: `.agents/commands/NAME.md` and `.claude/commands/NAME.md`, the
//! project's (from the working directory up to its root) and the user's (`~`). `/NAME args`
//! sends the file's body (read again at each use) as the prompt, `$ARGUMENTS` replaced by
//! the arguments and `$1`, `$2`… by each word of them (no placeholder: the arguments go
//! after the body). Front matter `description` (else the body's first line) shows in
//! `/help` and the `/` popup, `argument-hint` as its usage. A command may not shadow one
//! already there (the built-ins): it is skipped with a notice. A project's commands are
//! prompts, not code, so they are listed in an untrusted project too, marked as the
//! project's. A file is read through `shared_dirs::Guard`: a regular file only, never from a
//! directory `paths.deny` names, and a project's never through a link out of the project
//! (a `review.md` linked to `~/.ssh/id_rsa` is skipped, and refused if swapped in later).

use super::front_matter;
use super::shared_dirs::{self, Folder, Guard};
use super::trust::ProjectTrust;
use crate::agent::{Flow, Plugin, Session};
use std::path::{Path, PathBuf};

/// A command file is read only up to this size.
pub const COMMAND_FILE_CAP: u64 = 64 * 1024;
/// Entries looked at in one commands folder at most.
const COMMANDS_PER_FOLDER: usize = 500;
/// A description in `/help` is cut to this many characters.
const DESCRIPTION_MAX: usize = 120;

pub struct MarkdownCommands {
    home: Option<PathBuf>,
    trust: ProjectTrust,
}

impl MarkdownCommands {
    pub fn new(home: Option<PathBuf>, trust: ProjectTrust) -> Self {
        MarkdownCommands { home, trust }
    }
}

impl Plugin for MarkdownCommands {
    fn name(&self) -> &str {
        "markdown commands"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let cwd = session.cwd();
        let root = super::trust::project_root(&cwd);
        let trusted = self.trust.is_trusted();
        let guard = Guard::load(&cwd, &root, self.home.as_deref())?;
        let mut added = std::collections::BTreeSet::new();
        for folder in shared_dirs::folders("commands", &cwd, &root, self.home.as_deref()) {
            for file in command_files(&folder) {
                add(session, &folder, &guard, &file, trusted, &mut added);
            }
        }
        Ok(())
    }
}

fn command_files(folder: &Folder) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(&folder.path) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .take(COMMANDS_PER_FOLDER)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

fn add(
    session: &mut Session,
    folder: &Folder,
    guard: &Guard,
    file: &Path,
    trusted: bool,
    added: &mut std::collections::BTreeSet<String>,
) {
    let name = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        session.show(format!("command skipped: {}: not a command name", file.display()));
        return;
    }
    if added.contains(&name) {
        return; // the nearest file of a name was added first
    }
    if session.commands().get(&name).is_some() {
        session.show(format!("command skipped: {}: /{name} is a built-in command", file.display()));
        return;
    }
    let text = match guard.read(file, folder.project, COMMAND_FILE_CAP) {
        Ok(text) => text,
        Err(error) => return session.show(format!("command skipped: {error}")),
    };
    let doc = match front_matter::parse(&text) {
        Ok(doc) => doc,
        Err(error) => {
            return session.show(format!("command skipped: {}:{}: {}", file.display(), error.line, error.message))
        }
    };
    let about = doc
        .get("description")
        .map(str::to_string)
        .or_else(|| {
            doc.body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.trim_start_matches('#').trim().to_string())
        })
        .unwrap_or_default();
    let mut about: String = about.chars().take(DESCRIPTION_MAX).collect();
    let whose = match (folder.project, trusted) {
        (false, _) => "user",
        (true, true) => "project",
        (true, false) => "project, untrusted",
    };
    about.push_str(&format!(" [from {whose}]"));
    let usage = doc.get("argument-hint").unwrap_or_default().to_string();
    let (file, guard, project) = (file.to_path_buf(), guard.clone(), folder.project);
    added.insert(name.clone());
    session.commands_mut().add(&name, &usage, about.trim(), move |_, args| {
        let text = guard.read(&file, project, COMMAND_FILE_CAP).map_err(anyhow::Error::msg)?;
        let doc = front_matter::parse(&text).map_err(|e| anyhow::anyhow!("{}:{e}", file.display()))?;
        Ok(Flow::Turn(expand(&doc.body, args)?))
    });
}

/// A command's prompt may grow past this by its placeholders repeating the arguments
/// (`$ARGUMENTS` a thousand times): past it, and past the body and arguments once, the
/// command is refused (`TooLong`) instead of sending megabytes to the model and the
/// session file.
pub const EXPANDED_CAP: usize = 256 * 1024;

/// A command whose placeholders would make its prompt too long.
#[derive(Debug, PartialEq, Eq)]
pub struct TooLong {
    /// The bytes the filled-in prompt would have had.
    pub would_be: usize,
    /// What it may have: `EXPANDED_CAP`, or the body and the arguments once when longer.
    pub limit: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::protocol::image::human_size;
        write!(
            f,
            "this command's placeholders would make a prompt of {}, past the {} a command may send; \
             shorten the arguments (or the placeholders in the command's file)",
            human_size(self.would_be as u64),
            human_size(self.limit as u64)
        )
    }
}

impl std::error::Error for TooLong {}

/// The body with `$ARGUMENTS` and `$1`, `$2`… filled in; when it has no placeholder, the
/// arguments (if any) follow it. One pass over the body; nothing past the limit is built
/// (the rest is only measured, for the error).
pub fn expand(body: &str, args: &str) -> Result<String, TooLong> {
    let words: Vec<&str> = args.split_whitespace().collect();
    let limit = EXPANDED_CAP.max(body.len() + args.len());
    let mut out = Bounded { text: String::with_capacity(body.len() + args.len()), len: 0, limit };
    let mut placeholders = 0;
    let mut rest = body;
    while let Some(i) = rest.find('$') {
        out.push(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push(args);
            placeholders += 1;
            rest = tail;
            continue;
        }
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(n) if n >= 1 => {
                out.push(words.get(n - 1).copied().unwrap_or(""));
                placeholders += 1;
                rest = &after[digits..];
            }
            _ => {
                out.push("$");
                rest = after;
            }
        }
    }
    out.push(rest);
    if out.len > limit {
        return Err(TooLong { would_be: out.len, limit });
    }
    let mut out = out.text.trim().to_string();
    if placeholders == 0 && !args.trim().is_empty() {
        out.push_str("\n\n");
        out.push_str(args.trim());
    }
    Ok(out)
}

/// A string that stops growing at `limit` bytes but goes on counting.
struct Bounded {
    text: String,
    len: usize,
    limit: usize,
}

impl Bounded {
    fn push(&mut self, piece: &str) {
        self.len = self.len.saturating_add(piece.len());
        if self.len <= self.limit {
            self.text.push_str(piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{expand, TooLong, EXPANDED_CAP};

    #[test]
    fn fills_arguments_and_positions() {
        let expand = |body, args| expand(body, args).unwrap();
        assert_eq!(expand("Review $ARGUMENTS now", "src/lib.rs fast"), "Review src/lib.rs fast now");
        assert_eq!(expand("a=$1 b=$2 c=$3 $0 $$", "x y"), "a=x b=y c= $0 $$");
        assert_eq!(expand("Fix it.", "the bug"), "Fix it.\n\nthe bug");
        assert_eq!(expand("cost $5 of $ARGUMENTS", "$1"), "cost  of $1");
    }

    #[test]
    fn placeholders_repeating_the_arguments_stop_at_the_cap() {
        // 39 KB of placeholders and a 10 KB argument: 50 MB once filled in.
        let body = "$ARGUMENTS ".repeat(39 * 1024 / 11);
        let args = "x".repeat(10 * 1024);
        let error = expand(&body, &args).unwrap_err();
        assert_eq!(error, TooLong { would_be: 3630 * (10 * 1024 + 1), limit: EXPANDED_CAP });
        assert!(error.to_string().contains("35.5 MB, past the 256 KB"), "{error}");
        // `$1` repeats a word the same way.
        assert!(expand(&"$1".repeat(30_000), &args).is_err());
        // Up to the cap, and a long argument used once, are fine.
        assert_eq!(expand(&"$1".repeat(25), &args).unwrap().len(), 25 * 10 * 1024);
        let paste = "y".repeat(EXPANDED_CAP * 2);
        assert_eq!(expand("Explain: $ARGUMENTS", &paste).unwrap().len(), "Explain: ".len() + paste.len());
        assert_eq!(expand("Explain.", &paste).unwrap().len(), "Explain.\n\n".len() + paste.len());
    }
}
