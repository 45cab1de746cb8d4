//! Whether a contained command's failure was the sandbox's doing, decided from the
//! sandbox's own rules rather than from the words alone (issue 38): the command ran
//! contained and failed, and its output says what one of the rules refuses —
//!
//! - the network is off and a line is a network failure (a name lookup that failed:
//!   `Could not resolve host`, `Temporary failure in name resolution`, getaddrinfo's
//!   `EAI_*`; `Network is unreachable`; a connection refused with `Permission denied`);
//! - a line refuses a path (`Permission denied`, `Operation not permitted`, `Read-only file
//!   system`, `Device or resource busy`) that the rules close: unreadable (the user's secrets, the settings folders,
//!   the denied paths, the terminals), protected (`.agents/`, `.git/config`, …), or outside
//!   the write grant (or anywhere, in read-only mode) where the user may write.
//!
//! A refusal the user's own rights explain (a file mode) is not the sandbox's. `Refusal`
//! carries the rule: its word goes in the result (`REFUSED_FIELD`) for the front ends to
//! tag the row, its note to the model says the rule and how to go on.

use super::{rules, seals, secrets, Mode, Settings, SETTINGS_DIRS};
#[cfg(unix)]
use libc::{R_OK, W_OK, X_OK};
use std::path::{Component, Path, PathBuf};

// `access(2)`'s modes, for the stand-in of `user_may` on Windows (no sandbox runs there).
#[cfg(windows)]
const R_OK: i32 = 4;
#[cfg(windows)]
const W_OK: i32 = 2;
#[cfg(windows)]
const X_OK: i32 = 1;

/// The result's field naming the rule that refused a command (`tool_outcome` reads it).
pub const REFUSED_FIELD: &str = "sandbox_refused";

/// Lines looked at, at most, and paths tried per line: the output is the command's.
const MAX_LINES: usize = 64;
const MAX_PATHS: usize = 4;

/// The rule that refused what a contained command tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The network is off in the sandbox.
    Network,
    /// Read-only mode: nothing is writable.
    ReadOnly(PathBuf),
    /// Outside the write grant.
    Write(PathBuf),
    /// A protected path (read-only even inside the project).
    Protected(PathBuf),
    /// Neither readable nor writable in the sandbox.
    Unreadable(PathBuf),
}

impl Refusal {
    /// The rule in a word, for the result's `REFUSED_FIELD`.
    pub fn word(&self) -> &'static str {
        match self {
            Refusal::Network => "network",
            Refusal::ReadOnly(_) => "read-only",
            Refusal::Write(_) => "write",
            Refusal::Protected(_) => "protected",
            Refusal::Unreadable(_) => "unreadable",
        }
    }

    /// The note for the model: the rule, and how to go on.
    pub fn note(&self, settings: &Settings, project: &Path) -> String {
        let outside = "If it must, call execute again with \"sandbox\": false (the user is asked), or ask the user to \
                       run it with !command.";
        let said = match self {
            Refusal::Network => "the network is off in the sandbox: no name lookup or connection works from a \
                                 contained command (the user may turn it on with \"sandbox\": {\"network\": true} in \
                                 ~/.agents/permissions.json)."
                .to_string(),
            Refusal::ReadOnly(path) => format!(
                "the sandbox is in read-only mode, where a contained command may write nowhere ({} was refused; the \
                 user may switch with /sandbox workspace-write).",
                path.display()
            ),
            Refusal::Write(path) => format!(
                "{} is outside where a contained command may write: {}. Write there instead when that will do.",
                path.display(),
                writable_places(settings, project)
            ),
            Refusal::Protected(path) => format!(
                "{} is protected: a contained command may not change .agents/, .claude/, ~/.codex/ nor .git/'s \
                 config, hooks, commondir, modules, worktrees, info/attributes or objects/info/alternates (they decide \
                 what the next run of elelem, another agent or git executes).",
                path.display()
            ),
            Refusal::Unreadable(path) => format!(
                "{} is closed to contained commands: the user's keys, credentials and histories, ~/.agents/ (but its \
                 skills), ~/.claude/ and ~/.codex/, elelem's data, the terminals and the paths the user denied are \
                 neither readable nor writable in the sandbox.",
                path.display()
            ),
        };
        format!("blocked by the sandbox: {said} {outside}")
    }
}

/// Where a contained command may write, in words (`project`, `$TMPDIR`, the others).
fn writable_places(settings: &Settings, project: &Path) -> String {
    let mut places = vec![format!("the project ({})", project.display())];
    if let Some(temp) = super::temp::current() {
        places.push(format!("$TMPDIR ({})", temp.display()));
    }
    places.extend(settings.writable.iter().map(|dir| dir.display().to_string()));
    places.join(", ")
}

/// What a contained command that exited with `status` and printed `content`, run in `cwd`
/// of `project`, was refused by the sandbox (`settings`), if anything.
pub fn refusal(
    settings: &Settings,
    status: Option<i32>,
    content: &str,
    project: &Path,
    cwd: Option<&str>,
) -> Option<Refusal> {
    if status.is_none_or(|s| s == 0) || settings.mode == Mode::Off {
        return None;
    }
    let project = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
    let dir = cwd.map_or_else(|| project.clone(), |cwd| project.join(cwd));
    let dir = dir.canonicalize().unwrap_or(dir);
    let rules = Rules::new(settings, &project, &dir);
    let mentions_sockets = {
        let lower = content.to_ascii_lowercase();
        lower.contains("connect") || lower.contains("socket")
    };
    for line in content.lines().filter(|line| !line.trim().is_empty()).take(MAX_LINES * 8) {
        let lower = line.to_ascii_lowercase();
        if !settings.network && NETWORK.iter().any(|words| lower.contains(words)) {
            return Some(Refusal::Network);
        }
        if !REFUSED.iter().any(|words| lower.contains(words)) {
            continue;
        }
        let paths = paths_in(line);
        let network_path = |p: &String| p.starts_with("/dev/tcp/") || p.starts_with("/dev/udp/");
        if !settings.network && (paths.iter().any(network_path) || (paths.is_empty() && mentions_sockets)) {
            return Some(Refusal::Network);
        }
        for path in paths.iter().take(MAX_PATHS) {
            if let Some(refused) = rules.check(&resolve(path, &dir)) {
                return Some(refused);
            }
        }
    }
    None
}

/// What a line says when a name lookup or a connection failed (lower case).
const NETWORK: &[&str] = &[
    "could not resolve host",
    "couldn't resolve host",
    "could not resolve hostname",
    "unable to resolve host",
    "temporary failure in name resolution",
    "temporary failure resolving",
    "name or service not known",
    "no address associated with hostname",
    "non-recoverable failure in name resolution",
    "failed to lookup address",
    "getaddrinfo",
    "eai_again",
    "eai_noname",
    "eai_fail",
    "eai_nodata",
    "enotfound",
    "network is unreachable",
    "enetunreach",
    "couldn't connect to server",
    "failed to connect to",
];

/// What a line says when the kernel refused an operation (lower case).
/// A rename onto a sealed path is `Device or resource busy` (a mount point); one Landlock
/// cannot grant, `Invalid cross-device link`.
const REFUSED: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "device or resource busy",
    "invalid cross-device link",
    "eacces",
    "eperm",
    "erofs",
    "ebusy",
    "exdev",
];

/// The sandbox's path rules for one command.
struct Rules {
    mode: Mode,
    /// Neither readable nor writable: the secrets, the settings' unreadable paths, the
    /// terminals.
    closed: Vec<PathBuf>,
    /// Read-only even where writes are granted.
    protected: Vec<PathBuf>,
    writes: Vec<rules::WriteRoot>,
}

impl Rules {
    fn new(settings: &Settings, project: &Path, dir: &Path) -> Rules {
        let mut closed = rules::unreadable(settings, &mut Vec::new());
        closed.extend(rules::terminals());
        let mut protected = seals::protected(project, dir);
        if let Some(home) = secrets::home() {
            protected.extend(SETTINGS_DIRS.iter().map(|d| secrets::resolve(&home.join(d))));
        }
        let writes = match settings.mode {
            Mode::WorkspaceWrite => {
                rules::write_roots(settings, project, &protected, seals::namespaces_work(), &closed)
            }
            _ => Vec::new(),
        };
        Rules { mode: settings.mode, closed, protected, writes }
    }

    /// The rule that refuses `path` (resolved) in this sandbox where the user's own rights
    /// would not, if any.
    fn check(&self, path: &Path) -> Option<Refusal> {
        if path.starts_with("/proc") || path.starts_with("/sys") {
            return None;
        }
        if self.closed.iter().any(|closed| path.starts_with(closed)) {
            return user_may(path, R_OK).then(|| Refusal::Unreadable(path.to_path_buf()));
        }
        let device = rules::DEVICES.iter().any(|d| path == Path::new(d));
        if device || !user_may(path, W_OK) {
            return None;
        }
        match self.mode {
            Mode::Off => None,
            Mode::ReadOnly => Some(Refusal::ReadOnly(path.to_path_buf())),
            Mode::WorkspaceWrite if self.protected.iter().any(|p| path.starts_with(p)) => {
                Some(Refusal::Protected(path.to_path_buf()))
            }
            Mode::WorkspaceWrite if path.starts_with("/dev/shm") || rules::write_granted(path, &self.writes) => None,
            Mode::WorkspaceWrite => Some(Refusal::Write(path.to_path_buf())),
        }
    }
}

/// Whether the user (elelem, not contained) may `access` `path` this way: the path itself
/// when it exists, else (a new entry) writing and searching in the nearest folder above it
/// that does.
#[cfg(unix)]
fn user_may(path: &Path, access: libc::c_int) -> bool {
    let (target, access) = match std::fs::symlink_metadata(path) {
        Ok(_) => (path, access),
        Err(_) => match path.ancestors().skip(1).find(|a| a.is_dir()) {
            Some(folder) => (folder, W_OK | X_OK),
            None => return false,
        },
    };
    let Ok(c_path) = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(target.as_os_str())) else {
        return false;
    };
    // SAFETY: access reads a NUL-terminated path and returns a number.
    unsafe { libc::access(c_path.as_ptr(), access) == 0 }
}

/// `user_may` on Windows: the path (or the nearest folder above a new one) exists, and
/// for a write is not read-only.
#[cfg(windows)]
fn user_may(path: &Path, access: i32) -> bool {
    let (target, access) = match std::fs::symlink_metadata(path) {
        Ok(_) => (path, access),
        Err(_) => match path.ancestors().skip(1).find(|a| a.is_dir()) {
            Some(folder) => (folder, W_OK | X_OK),
            None => return false,
        },
    };
    std::fs::metadata(target).is_ok_and(|meta| access & W_OK == 0 || !meta.permissions().readonly())
}

/// `path` as the command named it, made absolute against `dir` (`~/` is the home), `.` and
/// `..` taken away, then resolved as far as it exists (`secrets::resolve`).
fn resolve(path: &str, dir: &Path) -> PathBuf {
    let joined = match path.strip_prefix("~/") {
        Some(rest) => secrets::home().map_or_else(|| dir.join(path), |home| home.join(rest)),
        None => dir.join(path),
    };
    let mut clean = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    secrets::resolve(&clean)
}

/// The paths a refusal line names: its quoted words (`'x'`, `"x"`, `‘x’`, `“x”`), then each
/// of its `: `-separated fields that is one word or ends in a word that looks like a path
/// (`touch: cannot touch '/x'`, `bash: line 1: /x: Permission denied`, `open /x:
/// permission denied`, `could not lock config file .git/config: Read-only file system`).
fn paths_in(line: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    let mut push = |word: &str| {
        let word = word.trim_matches(|c: char| c == ',' || c == ';' || c.is_whitespace());
        if !word.is_empty() && !paths.iter().any(|p| p == word) {
            paths.push(word.to_string());
        }
    };
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('“', '”'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            push(&after[..end]);
            rest = &after[end + close.len_utf8()..];
        }
    }
    for field in line.split(": ") {
        let field = field.trim();
        if !field.contains(char::is_whitespace) && !field.contains(['\'', '"']) {
            push(field);
        } else if let Some(last) = field.split_whitespace().last() {
            if last.starts_with(['/', '.', '~']) && !last.contains(['\'', '"']) {
                push(last);
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paths_of_refusal_lines() {
        let cases: &[(&str, &[&str])] = &[
            ("touch: cannot touch '/h/x': Permission denied", &["/h/x", "touch"]),
            ("bash: line 1: /h/x: Permission denied", &["bash", "/h/x"]),
            ("mkdir: cannot create directory ‘/h/d’: Permission denied", &["/h/d", "mkdir"]),
            ("PermissionError: [Errno 13] Permission denied: '/h/x'", &["/h/x", "PermissionError"]),
            ("Error: EACCES: permission denied, open '/h/x'", &["/h/x", "Error", "EACCES"]),
            ("open /h/x: permission denied", &["/h/x"]),
            ("error: could not lock config file .git/config: Read-only file system", &["error", ".git/config"]),
        ];
        for (line, expected) in cases {
            assert_eq!(paths_in(line), expected.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{line}");
        }
    }

    #[test]
    fn names_are_resolved_against_the_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        assert_eq!(resolve("a/../b/./c", &dir), dir.join("b/c"));
        assert_eq!(resolve("/x/../y", &dir), PathBuf::from("/y"));
    }

    fn settings(mode: Mode, network: bool) -> Settings {
        Settings { mode, network, writable: Vec::new(), unreadable: Vec::new(), asked: true }
    }

    #[test]
    fn a_network_failure_is_the_sandbox_only_with_the_network_off() {
        let project = tempfile::tempdir().unwrap();
        let said = "curl: (6) Could not resolve host: example.invalid\n";
        let off = settings(Mode::WorkspaceWrite, false);
        assert_eq!(refusal(&off, Some(6), said, project.path(), None), Some(Refusal::Network));
        assert_eq!(refusal(&settings(Mode::WorkspaceWrite, true), Some(6), said, project.path(), None), None);
        assert_eq!(refusal(&off, Some(0), said, project.path(), None), None, "it did not fail");
        let connect = "bash: connect: Permission denied\nbash: line 1: /dev/tcp/127.0.0.1/9: Permission denied\n";
        assert_eq!(refusal(&off, Some(1), connect, project.path(), None), Some(Refusal::Network));
        assert!(Refusal::Network.note(&off, project.path()).contains("network is off in the sandbox"));
    }

    #[test]
    fn a_path_the_rules_allow_is_not_the_sandbox() {
        let project = tempfile::tempdir().unwrap();
        let s = settings(Mode::WorkspaceWrite, false);
        let inside = format!("touch: cannot touch '{}': Permission denied", project.path().join("x").display());
        assert_eq!(refusal(&s, Some(1), &inside, project.path(), None), None);
        assert_eq!(refusal(&s, Some(1), "ls: some failure", project.path(), None), None);
        let read_only = settings(Mode::ReadOnly, false);
        assert!(matches!(refusal(&read_only, Some(1), &inside, project.path(), None), Some(Refusal::ReadOnly(_))));
    }
}
