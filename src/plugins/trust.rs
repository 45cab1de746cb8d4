//! Trust: whether the user has said that a project's own settings (its `.agents/`:
//! permissions now, plugin files and MCP servers later) may apply. A project is known by
//! its root (the nearest ancestor with `.git`, else the working directory, canonical) and
//! is untrusted until the user says otherwise: `--trust` for one run, or "yes" to the
//! question, remembered in the user's own data directory (`trusted.json`, mode 0600).
//! The question's "no" is remembered there too (`declined`: not asked again); "not now"
//! is not remembered.
//!
//! A project's `.agents/` or `.claude/` that a contained command created and the sandbox
//! could not remove (issue 37) is refused whatever the trust: recorded in the data
//! directory's `refused.json` while that very entry is in place, it is never loaded (its
//! project reads as untrusted, `project_agents` and `shared_dirs::folders` skip it), and
//! `refused_folders` says which, for the user.
//!
//! The question says what yes turns on, item by item (`TurnsOn`: the hooks' commands, the
//! Lua plugin files, the MCP servers' commands, the rules that loosen; `trust_items.rs`
//! reads them with the readers that load them). It is asked before the session is built
//! (`TrustQuestion::answer`), so what the session sets up and says follows the answer: no
//! notice that the project's hooks are not run after a yes.
//!
//! This module owns the store, the question and what answering it does; it does not
//! decide what an untrusted project may still do (each consumer does: permissions keep
//! only the stricter rules).

use crate::agent::input::{Approval, ApprovalRequest, Approver, NEVER_ASK_AGAIN};
use crate::agent::output::AgentEvent;
use crate::agent::{Preview, PreviewKind, Session};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The file the store keeps under the data directory.
const STORE_FILE: &str = "trusted.json";
/// The file under the data directory where the sandbox records the protected paths a
/// contained command created and the clean-up could not remove (`tools/sandbox/kept.rs`
/// writes it): `{"refused": [{"path": …, "device": …, "inode": …, "reason": …}]}`.
const REFUSED_FILE: &str = "refused.json";
/// How many entries of `.agents/` the question lists.
const LISTED: usize = 20;

/// The project a working directory belongs to: the nearest ancestor (or itself) holding
/// `.git`, else the working directory; canonical when it exists.
pub fn project_root(cwd: &Path) -> PathBuf {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(&cwd).to_path_buf()
}

/// `$XDG_DATA_HOME/elelem`, default `~/.local/share/elelem`.
pub fn data_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?).join(".local/share"),
    };
    Some(base.join("elelem"))
}

/// Why the store could not remember an answer.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("no data directory to remember trusted projects in (set HOME or XDG_DATA_HOME)")]
    NoDataDir,
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// The projects the user trusts, and those they said no to, kept in `trusted.json`:
/// `{"trusted": ["/root", …], "declined": ["/other", …]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustStore {
    /// `None`: nothing is remembered and nothing can be (no data directory).
    path: Option<PathBuf>,
}

impl TrustStore {
    /// The store in the user's data directory.
    pub fn from_env() -> Self {
        TrustStore { path: data_dir().map(|dir| dir.join(STORE_FILE)) }
    }

    /// A store in a given file (tests, embedders).
    pub fn at(path: PathBuf) -> Self {
        TrustStore { path: Some(path) }
    }

    /// A store that trusts nothing and cannot remember.
    pub fn none() -> Self {
        TrustStore { path: None }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether `root` (a project root, canonical) was trusted. A missing or unreadable
    /// file trusts nothing.
    pub fn is_trusted(&self, root: &Path) -> bool {
        self.roots("trusted").contains(&root.to_string_lossy().into_owned())
    }

    /// Whether the user answered "no" for `root`: it is not asked about again.
    pub fn is_declined(&self, root: &Path) -> bool {
        self.roots("declined").contains(&root.to_string_lossy().into_owned())
    }

    /// The roots listed under `key` ("trusted" or "declined").
    fn roots(&self, key: &str) -> BTreeSet<String> {
        let Some(path) = &self.path else { return BTreeSet::new() };
        // A regular file of at most 4 MB, opened without waiting (a FIFO is refused).
        let Ok(text) = crate::safe_file::read_text(path, 4 * 1024 * 1024) else { return BTreeSet::new() };
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let list = value.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        list.iter().filter_map(Value::as_str).map(str::to_string).collect()
    }

    /// Remembers `root` as trusted (and no longer declined). The file is written whole
    /// (through a temporary file renamed over it) with mode 0600.
    pub fn trust(&self, root: &Path) -> Result<(), TrustError> {
        self.remember(root, "trusted", "declined")
    }

    /// Remembers the answer "no" for `root` (untrusted, not asked again).
    pub fn decline(&self, root: &Path) -> Result<(), TrustError> {
        self.remember(root, "declined", "trusted")
    }

    /// Adds `root` under `add` and takes it out of `remove`, keeping the rest.
    fn remember(&self, root: &Path, add: &str, remove: &str) -> Result<(), TrustError> {
        let path = self.path.as_ref().ok_or(TrustError::NoDataDir)?;
        let root = root.to_string_lossy().into_owned();
        let (mut added, mut removed) = (self.roots(add), self.roots(remove));
        added.insert(root.clone());
        removed.remove(&root);
        let mut value = serde_json::Map::new();
        for (key, roots) in [(add, added), (remove, removed)] {
            if !roots.is_empty() || key == "trusted" {
                value.insert(key.to_string(), json!(roots));
            }
        }
        let text = serde_json::to_string_pretty(&Value::Object(value)).unwrap_or_default() + "\n";
        write_private(path, &text).map_err(|source| TrustError::Write { path: path.clone(), source })
    }
}

/// Writes `text` to `path` readable by the user only, creating the directory.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{STORE_FILE}.{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.write(true).create(true).truncate(true).open(&temp)?;
    #[cfg(unix)]
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temp, path)
}

/// For a notice about a project the user declined (answered no: not asked again, so
/// "answer yes when asked" would be untrue): how to trust it after all. `None` when the
/// project at `root` was not declined.
pub fn declined_how(store: &TrustStore, root: &Path) -> Option<String> {
    if !store.is_declined(root) {
        return None;
    }
    let file = store.path().map_or_else(String::new, |path| format!(" in {}", path.display()));
    Some(format!(
        "you said no when asked, so it is not asked again: start elelem --trust (that run only), or take it out \
         of \"declined\"{file} to be asked again"
    ))
}

/// Whether a project's settings apply: `--trust`, or the store says so.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    store: TrustStore,
    /// `--trust`: this run trusts the project whatever the store says.
    assumed: bool,
}

impl Trust {
    pub fn new(store: TrustStore, assumed: bool) -> Self {
        Trust { store, assumed }
    }

    /// Whether the project at `root` (see `project_root`) is trusted: never while its
    /// `.agents/` or `.claude/` is refused.
    pub fn is_trusted(&self, root: &Path) -> bool {
        (self.assumed || self.store.is_trusted(root)) && refused_folders(root, root).is_empty()
    }

    pub fn store(&self) -> &TrustStore {
        &self.store
    }

    /// The question to ask in the project around `cwd`, when it has a `.agents/` of its
    /// own (not the user's `~/.agents`) with something in it (the sandbox for commands
    /// makes an empty one) and is not trusted yet.
    pub fn question(&self, cwd: &Path, home: Option<&Path>) -> Option<TrustQuestion> {
        let agents = project_agents(cwd, home)?;
        let root = project_root(cwd);
        if self.is_trusted(&root) || self.store.is_declined(&root) {
            return None;
        }
        let files = listing(&agents);
        if files.is_empty() {
            return None;
        }
        Some(TrustQuestion { root, agents, files, turns_on: Vec::new(), store: self.store.clone() })
    }
}

/// Whether the project around a directory is trusted, looked up each time it is asked:
/// the user may trust the project during a run, and `/reload` then loads its settings.
#[derive(Clone, Debug, Default)]
pub struct ProjectTrust {
    trust: Trust,
    cwd: PathBuf,
}

impl ProjectTrust {
    pub fn new(trust: Trust, cwd: PathBuf) -> Self {
        ProjectTrust { trust, cwd }
    }

    /// Trusted or not whatever the store says (tests, embedders).
    pub fn fixed(trusted: bool) -> Self {
        ProjectTrust { trust: Trust::new(TrustStore::none(), trusted), cwd: PathBuf::new() }
    }

    pub fn is_trusted(&self) -> bool {
        let root = project_root(&self.cwd);
        self.trust.is_trusted(&root) && refused_folders(&self.cwd, &root).is_empty()
    }

    /// How to trust the project after all when the user declined it (`declined_how`).
    pub fn declined_how(&self) -> Option<String> {
        declined_how(self.trust.store(), &project_root(&self.cwd))
    }
}

/// Why `folder` (a project's `.agents` or `.claude`) is refused, if it is: the sandbox
/// recorded that very entry (its device and inode) as one a contained command created and
/// the clean-up could not remove.
#[cfg(unix)]
pub fn refusal(folder: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(folder).ok()?;
    // A regular file only, never waited on (a FIFO), at most 1 MB (`safe_file`).
    let text = crate::safe_file::read_text(&data_dir()?.join(REFUSED_FILE), 1024 * 1024).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    let entries = value.get("refused")?.as_array()?;
    entries
        .iter()
        .find(|entry| entry["device"].as_u64() == Some(meta.dev()) && entry["inode"].as_u64() == Some(meta.ino()))
        .map(|entry| entry["reason"].as_str().unwrap_or("recorded").to_string())
}

/// No sandbox on Windows, so no entry it recorded: none is refused.
#[cfg(windows)]
pub fn refusal(_folder: &Path) -> Option<String> {
    None
}

/// The refused `.agents` and `.claude` folders (see `refusal`) from `cwd` up to `root`,
/// with why each is refused.
pub fn refused_folders(cwd: &Path, root: &Path) -> Vec<(PathBuf, String)> {
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut found = Vec::new();
    if !data_dir().is_some_and(|dir| dir.join(REFUSED_FILE).exists()) {
        return found;
    }
    for dir in cwd.ancestors() {
        for base in [".agents", ".claude"] {
            let folder = dir.join(base);
            if let Some(reason) = refusal(&folder) {
                found.push((folder, reason));
            }
        }
        if dir == root || !dir.starts_with(root) {
            break;
        }
    }
    found
}

/// What to tell the user about a refused folder: why, and how to have it load again.
pub fn refused_notice(folder: &Path, reason: &str) -> String {
    let quoted = format!("'{}'", folder.to_string_lossy().replace('\'', r"'\''"));
    format!(
        "elelem does not load {}: a sandboxed command created it and it could not be removed ({reason}), so it may \
         start programs you did not choose. Look at it, then remove it yourself (chmod -R u+rwx {quoted}; rm -rf \
         {quoted}); one made anew loads again.",
        folder.display()
    )
}

/// The project's `.agents/` directory around `cwd`, when it exists, is not the user's
/// own `~/.agents` (running in the home directory) and is not refused (`refusal`).
pub fn project_agents(cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if refusal(&cwd.join(".agents")).is_some() {
        return None;
    }
    let agents = std::fs::canonicalize(cwd.join(".agents")).ok().filter(|p| p.is_dir())?;
    let home_agents = home.and_then(|h| std::fs::canonicalize(h.join(".agents")).ok());
    (home_agents.as_deref() != Some(agents.as_path())).then_some(agents)
}

/// The files under `dir`, relative to it, sorted; at most `LISTED` plus a count of the rest.
fn listing(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) && found.len() < 1000 {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    if found.len() > LISTED {
        let more = found.len() - LISTED;
        found.truncate(LISTED);
        found.push(format!("… and {more} more"));
    }
    found
}

/// One thing in a project's `.agents/` that applies only once the project is trusted, as the
/// trust question says it: `hooks.json: runs these 2 commands …` over the commands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnsOn {
    /// What it is, in the answer's notices: `hooks.json`, `plugins/`.
    pub label: String,
    /// The line that says what it does once trusted.
    pub what: String,
    /// One line each under it: a command, a server, the rules.
    pub details: Vec<String>,
    /// The entries of `.agents/` (relative to it) it accounts for; the question lists the
    /// others apart.
    pub files: Vec<String>,
}

/// What `.agents/` may hold that loads whether or not the project is trusted (instructions,
/// not code), with the words the question says it in.
const EITHER_WAY: [(&str, &str); 2] = [("skills/", "skills/"), ("commands/", "commands/")];

/// "Trust this project?", asked once per project root in the chat front ends.
#[derive(Clone, Debug)]
pub struct TrustQuestion {
    pub root: PathBuf,
    pub agents: PathBuf,
    /// What `.agents/` holds, relative to it.
    pub files: Vec<String>,
    /// What answering yes turns on (`with_turns_on`).
    pub turns_on: Vec<TurnsOn>,
    store: TrustStore,
}

impl TrustQuestion {
    /// The question saying what yes turns on (`startup` reads it with `trust_items::turns_on`).
    pub fn with_turns_on(mut self, turns_on: Vec<TurnsOn>) -> Self {
        self.turns_on = turns_on;
        self
    }

    /// The question as an approval request, so every front end's approval dialog can ask
    /// it: `Trust this project's .agents/?` over what yes turns on, item by item, what
    /// loads either way and the rest of what `.agents/` holds.
    pub fn request(&self) -> ApprovalRequest {
        let mut text = format!("{} has settings of its own, not trusted yet.\n", self.root.display());
        if self.turns_on.is_empty() {
            text.push_str("Trusting it turns on nothing more than now.\n");
        } else {
            text.push_str("Trusting it turns on:\n");
        }
        for item in &self.turns_on {
            text.push_str(&format!("  {}\n", item.what));
            for detail in &item.details {
                text.push_str(&format!("    {detail}\n"));
            }
        }
        let mut either: Vec<&str> = EITHER_WAY
            .iter()
            .filter(|(dir, _)| self.files.iter().any(|file| file.starts_with(dir)))
            .map(|(_, words)| *words)
            .collect();
        let mut untrusted = Vec::new();
        if let Some(last) = either.pop() {
            let all = if either.is_empty() { last.to_string() } else { format!("{} and {last}", either.join(", ")) };
            untrusted.push(format!("its {all} still load (instructions, not code)"));
        }
        if self.files.iter().any(|file| file == "permissions.json") {
            untrusted.push("its permissions.json may only make your rules stricter".to_string());
        }
        text.push_str("Your own deny rules always win.");
        if !untrusted.is_empty() {
            text.push_str(&format!(" Untrusted, {}.", untrusted.join(" and ")));
        }
        text.push('\n');
        let listed: Vec<&String> = self
            .files
            .iter()
            .filter(|file| !self.turns_on.iter().any(|item| item.files.contains(file)))
            .filter(|file| !EITHER_WAY.iter().any(|(dir, _)| file.starts_with(dir)))
            .filter(|file| file.as_str() != "permissions.json")
            .collect();
        if !listed.is_empty() {
            text.push_str(&format!("Also in {}:\n", self.agents.display()));
            for file in listed {
                text.push_str(&format!("  {file}\n"));
            }
        }
        ApprovalRequest {
            call_id: String::new(),
            tool: "this project's .agents/".into(),
            args: json!({ "root": self.root.to_string_lossy() }),
            summary: self.root.to_string_lossy().into_owned(),
            preview: Preview { kind: PreviewKind::Trust, text: text.trim_end().to_string() },
        }
    }

    /// Remembers the answer "yes".
    pub fn accept(&self) -> Result<(), TrustError> {
        self.store.trust(&self.root)
    }

    /// Asks through `approver`, before the session is built, and remembers yes or no (not
    /// now is not remembered): the session built next loads what the answer allows, and
    /// `Answered::tell` says so once it can.
    pub async fn answer(self, approver: &dyn Approver) -> Answered {
        let answer = approver.approve(self.request()).await;
        let remembered = match &answer {
            Approval::Yes | Approval::Always => self.accept(),
            Approval::NoBecause(reason) if reason == NEVER_ASK_AGAIN => self.store.decline(&self.root),
            Approval::No | Approval::NoBecause(_) => Ok(()),
        };
        let labels = self.turns_on.iter().map(|item| item.label.clone()).collect();
        Answered { question: self, answer, remembered: remembered.map_err(|e| e.to_string()), labels }
    }
}

/// The trust question's answer: whether the project is trusted from now on, and what to tell
/// the user once the session is built.
#[derive(Debug)]
pub struct Answered {
    question: TrustQuestion,
    answer: Approval,
    /// Why the answer could not be remembered, if it could not.
    remembered: Result<(), String>,
    /// What yes turned on, or no left off: `hooks.json`, `plugins/`.
    labels: Vec<String>,
}

impl Answered {
    /// Yes: the session is built trusting the project (for this run even when the answer
    /// could not be remembered).
    pub fn trusted(&self) -> bool {
        matches!(self.answer, Approval::Yes | Approval::Always)
    }

    /// Tells the user, through the session built after the answer, what the answer did and
    /// (after no or not now) how to trust the project later.
    pub fn tell(&self, session: &Session) {
        let root = self.question.root.display().to_string();
        if let Err(error) = &self.remembered {
            let what = if self.trusted() { "is trusted; trusted for this run only" } else { "stays untrusted" };
            session.output().emit(AgentEvent::Error(format!("cannot remember that {root} {what}: {error}")));
        }
        let off: Vec<&str> =
            self.labels.iter().map(String::as_str).filter(|label| *label != "permissions.json").collect();
        let off = match off.as_slice() {
            [] => String::new(),
            [one] => format!("its {one} stays off, and "),
            [rest @ .., last] => format!("its {} and {last} stay off, and ", rest.join(", ")),
        };
        match &self.answer {
            Approval::Yes | Approval::Always => {
                let on = if self.labels.is_empty() { String::new() } else { format!(" ({})", self.labels.join(", ")) };
                session.show(format!("Trusted {root}: its .agents/ settings apply{on}."));
            }
            Approval::NoBecause(reason) if reason == NEVER_ASK_AGAIN => {
                let store =
                    self.question.store.path().map_or_else(String::new, |path| format!(" in {}", path.display()));
                session.show(format!(
                    "{root} stays untrusted: {off}its .agents/ may only make your rules stricter; not asked again. To \
                     trust it later: start elelem --trust (that run only), or take it out of \"declined\"{store} to be \
                     asked again."
                ));
            }
            Approval::No | Approval::NoBecause(_) => session.show(format!(
                "{root} stays untrusted for now: {off}its .agents/ may only make your rules stricter; asked again next \
                 time (or start elelem --trust)."
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_root_is_the_nearest_ancestor_with_git() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let canonical = std::fs::canonicalize(&repo).unwrap();
        assert_eq!(project_root(&repo.join("src/deep")), canonical);
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(project_root(&plain), std::fs::canonicalize(&plain).unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn trusting_is_remembered_in_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("data/elelem/trusted.json"));
        let root = Path::new("/some/project");
        assert!(!store.is_trusted(root));
        store.trust(root).unwrap();
        store.trust(Path::new("/other")).unwrap();
        assert!(store.is_trusted(root) && store.is_trusted(Path::new("/other")));
        assert!(!store.is_trusted(Path::new("/some")));
        let mode = std::fs::metadata(store.path().unwrap()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn no_is_remembered_apart_and_yes_later_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::at(dir.path().join("trusted.json"));
        let (root, other) = (Path::new("/some/project"), Path::new("/other"));
        store.trust(other).unwrap();
        store.decline(root).unwrap();
        assert!(store.is_declined(root) && !store.is_trusted(root) && store.is_trusted(other));
        store.trust(root).unwrap();
        assert!(!store.is_declined(root) && store.is_trusted(root) && store.is_trusted(other));
        let trust = Trust::new(store.clone(), false);
        store.decline(other).unwrap();
        assert!(!trust.is_trusted(other), "no takes back an earlier yes");
    }

    #[test]
    fn a_damaged_store_trusts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trusted.json");
        std::fs::write(&path, "{not json").unwrap();
        assert!(!TrustStore::at(path).is_trusted(Path::new("/")));
        assert!(!TrustStore::none().is_trusted(Path::new("/")));
    }

    #[test]
    fn the_question_lists_the_project_settings_and_is_not_asked_at_home() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join(".agents/plugins")).unwrap();
        std::fs::write(project.join(".agents/permissions.json"), "{}").unwrap();
        std::fs::write(project.join(".agents/plugins/x.rb"), "").unwrap();
        let trust = Trust::new(TrustStore::at(dir.path().join("t.json")), false);
        let question = trust.question(&project, Some(dir.path())).unwrap();
        assert_eq!(question.files, vec!["permissions.json", "plugins/x.rb"]);
        let text = question.request().preview.text;
        assert!(text.contains("Trusting it turns on nothing more than now.\n"), "{text}");
        assert!(text.contains(":\n  plugins/x.rb"), "the rest is listed: {text}");
        assert!(trust.question(&project, Some(&project)).is_none(), "the home directory's own .agents");
        question.accept().unwrap();
        assert!(trust.question(&project, Some(dir.path())).is_none(), "asked once per project");
        assert!(Trust::new(TrustStore::none(), true).question(&project, None).is_none(), "--trust");
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(empty.join(".agents")).unwrap();
        assert!(trust.question(&empty, Some(dir.path())).is_none(), "the sandbox's empty .agents/ asks nothing");
    }
}
