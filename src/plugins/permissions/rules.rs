//! The permission files and what they decide together. `~/.agents/permissions.json` is
//! the user's; `.agents/permissions.json` the project's. In a trusted project the
//! project's rule for a tool replaces the user's, except that the user's deny always
//! wins; in an untrusted one the stricter of the two applies (a project may tighten,
//! never loosen). Each file may also carry `"paths"` (see `paths.rs`) and `"sandbox"` (see
//! `sandbox.rs`).

use super::matcher::{CommandRules, Judgement};
use super::paths::PathRules;
use super::sandbox::SandboxEntry;
use super::shell::ParsedCommand;
use crate::agent::toolbox::Toolbox;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What happens to a call (ordered from loose to strict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Policy {
    Allow,
    Ask,
    Deny,
}

impl Policy {
    fn parse(text: &str) -> Option<Policy> {
        match text {
            "allow" => Some(Policy::Allow),
            "ask" => Some(Policy::Ask),
            "deny" => Some(Policy::Deny),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Policy::Allow => "allow",
            Policy::Ask => "ask",
            Policy::Deny => "deny",
        }
    }
}

/// What a call's rules are matched against: the command it runs, or the host it reaches.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    Command(&'a ParsedCommand),
    Host(&'a str),
}

/// One tool's entry in a permissions file.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// `"execute": "ask"`.
    Fixed(Policy),
    /// `"execute": {"allow": ["cargo test"], "deny": ["rm"], "default": "ask"}`; for a tool
    /// that reaches URLs the same shape holds host patterns (`{"allow": ["docs.rs"]}`).
    Commands(CommandRules),
}

/// A permissions file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PermissionsError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid permissions file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The rules of one permissions file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleSet {
    pub rules: HashMap<String, Rule>,
    pub paths: PathRules,
    /// The `"sandbox"` entry (applied from the user's file only).
    pub sandbox: SandboxEntry,
    /// The file, for errors found once the tools are known.
    pub source: PathBuf,
}

impl RuleSet {
    /// Reads `DIR/.agents/permissions.json`; no file is an empty set. `home` expands `~`
    /// in path rules; relative path rules start at `base`.
    pub fn load(dir: &Path, base: &Path, home: Option<&Path>) -> Result<Self, PermissionsError> {
        // A regular file of at most 1 MB, opened without waiting (a FIFO is refused).
        const FILE_LIMIT: u64 = 1024 * 1024;
        let path = dir.join(".agents").join("permissions.json");
        match crate::safe_file::read_text(&path, FILE_LIMIT) {
            Ok(text) => Self::parse(&text, &path, base, home),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RuleSet::default()),
            Err(source) => Err(PermissionsError::Read { path, source }),
        }
    }

    /// Parses one file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path, base: &Path, home: Option<&Path>) -> Result<Self, PermissionsError> {
        let invalid = |message: String| PermissionsError::Invalid { path: path.to_path_buf(), message };
        let value: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
        let Value::Object(entries) = value else {
            return Err(invalid(r#"expected an object such as {"execute": "ask", "read": "allow"}"#.into()));
        };
        let mut set = RuleSet { source: path.to_path_buf(), ..RuleSet::default() };
        for (tool, entry) in entries {
            if tool == "paths" {
                set.paths = PathRules::parse(&entry, base, home).map_err(invalid)?;
                continue;
            }
            if tool == "sandbox" {
                set.sandbox = SandboxEntry::parse(&entry, base, home).map_err(invalid)?;
                continue;
            }
            let rule = match &entry {
                Value::String(text) => Rule::Fixed(Policy::parse(text).ok_or_else(|| {
                    invalid(format!("{tool:?}: expected \"allow\", \"deny\" or \"ask\", not {entry}"))
                })?),
                Value::Object(object) => Rule::Commands(parse_commands(&tool, object).map_err(invalid)?),
                _ => return Err(invalid(format!("{tool:?}: expected \"allow\", \"deny\" or \"ask\", not {entry}"))),
            };
            set.rules.insert(tool, rule);
        }
        Ok(set)
    }

    /// Renames rules written with an alias (`"bash": "ask"`) to the tool's canonical name
    /// (a rule under the canonical name wins over one under an alias), then checks that
    /// command prefixes are only given for tools that run shell commands.
    pub fn canonicalize(&mut self, toolbox: &Toolbox) -> Result<(), PermissionsError> {
        let mut canonical: HashMap<String, Rule> = HashMap::new();
        let mut direct = Vec::new();
        for (name, rule) in self.rules.drain() {
            match toolbox.get(&name) {
                Some(tool) if tool.name != name => {
                    canonical.entry(tool.name.clone()).or_insert(rule);
                }
                _ => direct.push((name, rule)),
            }
        }
        canonical.extend(direct);
        self.rules = canonical;
        let takers: Vec<&str> =
            toolbox.tools().iter().filter(|t| t.takes_commands() || t.takes_hosts()).map(|t| t.name.as_str()).collect();
        for (name, rule) in &self.rules {
            let takes_lists = toolbox.get(name).is_some_and(|t| t.takes_commands() || t.takes_hosts());
            if matches!(rule, Rule::Commands(_)) && !takes_lists && name != "*" {
                return Err(PermissionsError::Invalid {
                    path: self.source.clone(),
                    message: format!(
                        "{name:?}: only tools that run shell commands or reach URLs ({}) take lists of commands or \
                         hosts; use \"allow\", \"deny\" or \"ask\"",
                        takers.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    fn rule(&self, tool: &str) -> Option<&Rule> {
        self.rules.get(tool).or_else(|| self.rules.get("*"))
    }

    /// This file's verdict on a call, or `None` when it has no rule for the tool.
    fn judge(&self, tool: &str, fallback: Policy, subject: Option<Subject>) -> Option<Judgement> {
        Some(match self.rule(tool)? {
            Rule::Fixed(policy) => Judgement { policy: *policy, uncertain: false },
            Rule::Commands(rules) => match subject {
                Some(Subject::Command(command)) => rules.judge(command, fallback),
                Some(Subject::Host(host)) => rules.judge_host(host, fallback),
                None => Judgement { policy: rules.default.unwrap_or(fallback), uncertain: false },
            },
        })
    }
}

fn parse_commands(tool: &str, object: &serde_json::Map<String, Value>) -> Result<CommandRules, String> {
    let mut rules = CommandRules::default();
    for (key, value) in object {
        match (key.as_str(), Policy::parse(key)) {
            ("default", _) => {
                rules.default = Some(value.as_str().and_then(Policy::parse).ok_or_else(|| {
                    format!("{tool:?}.default: expected \"allow\", \"deny\" or \"ask\", not {value}")
                })?);
            }
            (_, Some(policy)) => {
                let list = value.as_array().filter(|l| l.iter().all(Value::is_string));
                let list = list.ok_or_else(|| format!("{tool:?}.{key}: expected a list of command prefixes"))?;
                let prefixes = list.iter().filter_map(Value::as_str).map(CommandRules::prefix_words);
                rules.prefixes.extend(prefixes.filter(|words| !words.is_empty()).map(|words| (words, policy)));
            }
            _ => return Err(format!("{tool:?}: unknown key {key:?}; expected allow, ask, deny or default")),
        }
    }
    Ok(rules)
}

/// The user's rules and the project's, and whether the project is trusted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Permissions {
    pub user: RuleSet,
    pub project: RuleSet,
    pub trusted: bool,
}

impl Permissions {
    /// The verdict on a call to `tool` (canonical name): `read_only` tools are allowed and
    /// others asked about unless a rule says otherwise; `command` is what a tool that
    /// runs shell commands would run.
    pub fn decide(&self, tool: &str, read_only: bool, subject: Option<Subject>) -> Judgement {
        let fallback = if read_only { Policy::Allow } else { Policy::Ask };
        let user = self.user.judge(tool, fallback, subject).unwrap_or(Judgement { policy: fallback, uncertain: false });
        let Some(project) = self.project.judge(tool, fallback, subject) else { return user };
        if self.trusted {
            // The user's deny always wins, even a deny that only might match.
            return match user {
                Judgement { policy: Policy::Deny, .. } => user,
                Judgement { uncertain: true, .. } => Judgement { policy: Policy::Ask, uncertain: true },
                _ => project,
            };
        }
        let policy = user.policy.max(project.policy);
        Judgement { policy, uncertain: (user.uncertain || project.uncertain) && policy != Policy::Deny }
    }

    /// Whether either file has a deny rule for `tool` (then an unreadable command is never
    /// run without asking, not even under `--yolo`).
    pub fn has_deny(&self, tool: &str) -> bool {
        [&self.user, &self.project].iter().any(|set| match set.rule(tool) {
            Some(Rule::Fixed(policy)) => *policy == Policy::Deny,
            Some(Rule::Commands(rules)) => rules.has_deny(),
            None => false,
        })
    }

    /// Whether either file has an `ask` rule for `tool` (then a contained call still asks).
    pub fn has_ask(&self, tool: &str) -> bool {
        [&self.user, &self.project].iter().any(|set| match set.rule(tool) {
            Some(Rule::Fixed(policy)) => *policy == Policy::Ask,
            Some(Rule::Commands(rules)) => {
                rules.default == Some(Policy::Ask) || rules.prefixes.iter().any(|(_, p)| *p == Policy::Ask)
            }
            None => false,
        })
    }

    /// Directories tools may reach without asking: the user's, and a trusted project's.
    pub fn allowed_dirs(&self) -> Vec<&PathBuf> {
        let project = self.trusted.then_some(&self.project.paths.allow);
        self.user.paths.allow.iter().chain(project.into_iter().flatten()).collect()
    }

    /// Directories no tool may reach: the user's and the project's (trusted or not).
    pub fn denied_dirs(&self) -> Vec<&PathBuf> {
        self.user.paths.deny.iter().chain(&self.project.paths.deny).collect()
    }

    /// What an untrusted project's file asks for that is not applied (it would loosen the
    /// user's rules), one phrase each: `execute allow`, `execute allow "cargo test"`.
    pub fn ignored(&self, toolbox: &Toolbox) -> Vec<String> {
        if self.trusted {
            return Vec::new();
        }
        let mut ignored = Vec::new();
        let mut tools: Vec<(&String, &Rule)> = self.project.rules.iter().collect();
        tools.sort_by(|a, b| a.0.cmp(b.0));
        for (tool, rule) in tools {
            let read_only = toolbox.get(tool).is_some_and(|t| t.read_only);
            let user = self.decide_user(tool, read_only);
            match rule {
                Rule::Fixed(policy) if *policy < user => ignored.push(format!("{tool} {}", policy.word())),
                Rule::Fixed(_) => {}
                Rule::Commands(rules) => {
                    if rules.default.is_some_and(|d| d < user) {
                        ignored.push(format!("{tool} default {}", rules.default.map_or("", Policy::word)));
                    }
                    for (prefix, policy) in &rules.prefixes {
                        if *policy < user {
                            ignored.push(format!("{tool} {} {:?}", policy.word(), prefix.join(" ")));
                        }
                    }
                }
            }
        }
        for dir in &self.project.paths.allow {
            ignored.push(format!("paths allow {}", dir.display()));
        }
        ignored
    }

    /// The user's policy for a tool without a command.
    fn decide_user(&self, tool: &str, read_only: bool) -> Policy {
        let fallback = if read_only { Policy::Allow } else { Policy::Ask };
        self.user.judge(tool, fallback, None).map_or(fallback, |j| j.policy)
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
