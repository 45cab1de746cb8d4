//! `hooks.json` in Claude Code's format: `{"hooks": {"PreToolUse": [{"matcher": "Bash",
//! "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}`, read into `Hook`s
//! per event; and which tool names a matcher (a regular expression matched against the
//! whole name; empty or `*` for all) is tried against: Claude Code's name for the tool
//! first (`Bash` for `execute`, `mcp__server__tool` for an MCP tool), then elelem's.

use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a hook may run unless its `timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Bytes of `hooks.json` read at most.
const FILE_LIMIT: u64 = 1024 * 1024;

/// The events elelem runs hooks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SessionStart,
}

impl Event {
    const ALL: [Event; 5] =
        [Event::PreToolUse, Event::PostToolUse, Event::UserPromptSubmit, Event::Stop, Event::SessionStart];

    pub fn name(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::Stop => "Stop",
            Event::SessionStart => "SessionStart",
        }
    }

    fn named(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// Claude Code's names for elelem's tools: (elelem's name, Claude Code's names), from the
/// tools' registration (`startup` hands it over; this layer names no tool).
pub type NameMap = &'static [(&'static str, &'static [&'static str])];

/// The names a tool is known by to a matcher, Claude Code's first: its Claude names, an
/// `mcp__…` alias (an MCP tool's), then its own name.
pub fn names_of(map: NameMap, name: &str, aliases: &[String]) -> Vec<String> {
    let claude = map.iter().filter(|(ours, _)| *ours == name).flat_map(|(_, theirs)| theirs.iter());
    let mcp = aliases.iter().filter(|a| a.starts_with("mcp__"));
    claude.map(|n| n.to_string()).chain(mcp.cloned()).chain([name.to_string()]).collect()
}

/// One command to run for an event.
#[derive(Clone, Debug)]
pub struct Hook {
    /// `None`: every tool (and the events without one).
    pub matcher: Option<Regex>,
    pub command: String,
    pub timeout: Duration,
    /// Where it came from (`~/.agents/hooks.json` or the project's).
    pub source: PathBuf,
}

impl Hook {
    /// The first of `names` this hook's matcher takes, or `None` when it takes none.
    pub fn matching<'a>(&self, names: &'a [String]) -> Option<&'a str> {
        match &self.matcher {
            None => names.first().map(String::as_str),
            Some(re) => names.iter().find(|n| re.is_match(n)).map(String::as_str),
        }
    }
}

/// Every hook, by event, with notices about what was skipped.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    pub by_event: BTreeMap<Event, Vec<Hook>>,
    /// What the user should hear: unknown events, hook types elelem does not run.
    pub notices: Vec<String>,
}

impl Hooks {
    pub fn for_event(&self, event: Event) -> &[Hook] {
        self.by_event.get(&event).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.by_event.values().all(Vec::is_empty)
    }
}

/// Why a `hooks.json` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    hooks: BTreeMap<String, Vec<Group>>,
}

#[derive(Deserialize)]
struct Group {
    #[serde(default)]
    matcher: Option<String>,
    hooks: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    command: Option<String>,
    /// Seconds.
    #[serde(default)]
    timeout: Option<f64>,
}

/// Reads `path` into `hooks` (nothing when it does not exist).
pub fn load_into(path: &Path, hooks: &mut Hooks) -> Result<(), ConfigError> {
    // A regular file of at most FILE_LIMIT bytes, opened without waiting (a FIFO is refused).
    let text = match crate::safe_file::read_text(path, FILE_LIMIT) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(ConfigError::Read { path: path.to_path_buf(), source }),
    };
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let parsed: File = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    let mut found = Vec::new();
    for (name, groups) in parsed.hooks {
        let Some(event) = Event::named(&name) else {
            hooks.notices.push(format!("{}: elelem does not run {name} hooks; they are ignored", path.display()));
            continue;
        };
        for group in groups {
            let matcher = match group.matcher.as_deref().map(str::trim) {
                None | Some("") | Some("*") => None,
                Some(pattern) => Some(
                    Regex::new(&format!("^(?:{pattern})$"))
                        .map_err(|e| invalid(format!("{name}: matcher {pattern:?}: {e}")))?,
                ),
            };
            for entry in group.hooks {
                let command = match (entry.kind.as_str(), entry.command) {
                    ("command", Some(command)) if !command.trim().is_empty() => command,
                    ("command", _) => return Err(invalid(format!("{name}: a \"command\" hook without a command"))),
                    (kind, _) => {
                        hooks.notices.push(format!(
                            "{}: elelem runs only \"command\" hooks; a {kind:?} {name} hook is ignored",
                            path.display()
                        ));
                        continue;
                    }
                };
                let timeout = match entry.timeout {
                    Some(secs) if secs.is_finite() && secs > 0.0 => Duration::from_secs_f64(secs.min(86_400.0)),
                    Some(secs) => return Err(invalid(format!("{name}: timeout {secs} is not a positive number"))),
                    None => DEFAULT_TIMEOUT,
                };
                found.push((event, Hook { matcher: matcher.clone(), command, timeout, source: path.to_path_buf() }));
            }
        }
    }
    for (event, hook) in found {
        hooks.by_event.entry(event).or_default().push(hook);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: NameMap = &[("execute", &["Bash"]), ("edit", &["Edit", "MultiEdit"]), ("read", &["Read"])];

    fn load(text: &str) -> Result<Hooks, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.json");
        std::fs::write(&path, text).unwrap();
        let mut hooks = Hooks::default();
        load_into(&path, &mut hooks).map(|()| hooks)
    }

    #[test]
    fn reads_claude_codes_format_and_matches_its_names() {
        let hooks = load(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "a", "timeout": 5}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "b"}]}],
              "Notification": [], "Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}"#,
        )
        .unwrap();
        let pre = hooks.for_event(Event::PreToolUse);
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0].timeout, Duration::from_secs(5));
        assert_eq!(pre[1].timeout, DEFAULT_TIMEOUT);
        assert_eq!(pre[0].matching(&names_of(MAP, "execute", &[])), Some("Bash"));
        assert_eq!(pre[0].matching(&names_of(MAP, "edit", &[])), Some("Edit"));
        assert_eq!(pre[0].matching(&names_of(MAP, "read", &[])), None);
        assert_eq!(pre[1].matching(&names_of(MAP, "read", &[])), Some("Read"));
        assert_eq!(pre[1].matching(&names_of(MAP, "srv_look", &["mcp__srv__look".into()])), Some("mcp__srv__look"));
        assert_eq!(hooks.notices.len(), 2, "{:?}", hooks.notices);
        assert!(hooks.for_event(Event::Stop).is_empty());
    }

    #[test]
    fn a_bad_file_names_itself_with_line_and_column() {
        let error = load("{\"hooks\": {\n  \"PreToolUse\": [}\n}").unwrap_err().to_string();
        assert!(error.contains("hooks.json: ") && error.contains("line 2 column"), "{error}");
        let error = load(r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}"#).unwrap_err().to_string();
        assert!(error.contains("matcher \"(\""), "{error}");
    }
}
