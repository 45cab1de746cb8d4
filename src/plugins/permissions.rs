//! Tool permissions: the policy files (`~/.agents/permissions.json`, then
//! `.agents/permissions.json`; the project wins per tool), the `allow` / `deny` / `ask`
//! decision for a call (with command prefixes for `execute`), and the plugin that installs
//! it as a global before hook, so a refusal is an ordinary tool result.
//!
//! `ask` goes to the session's approver with the tool's own preview of the call (the
//! command, or the diff a write or edit would make). Which tools only read and which run
//! shell commands is asked of each tool; nothing here names a tool. `--allow TOOL` and `--yolo` turn `ask` into `allow`; `deny`
//! always stays denied. Headless runs (`ask`) cannot ask, so `ask` is refused there with a
//! message saying how to allow the tool.

use crate::agent::input::{Approval, ApprovalRequest, Approver};
use crate::agent::toolbox::{HookCall, Toolbox};
use crate::agent::{Flow, Plugin, Session};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What happens to a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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
}

/// One tool's entry in a permissions file.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// `"execute": "ask"`.
    Fixed(Policy),
    /// `"execute": {"allow": ["cargo test"], "deny": ["rm"], "default": "ask"}`.
    Commands { prefixes: Vec<(String, Policy)>, default: Option<Policy> },
}

/// A permissions file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PermissionsError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid permissions file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The merged rules of the permissions files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Permissions {
    rules: HashMap<String, Rule>,
    /// The file each rule came from, for errors found once the tools are known.
    sources: HashMap<String, PathBuf>,
}

/// Shell syntax that can chain or redirect commands: an `allow` prefix never covers a
/// command containing it (`cargo test; rm -rf ~` is asked about, not allowed).
const SHELL_OPERATORS: &[&str] = &[";", "&", "|", "`", "$(", ">", "<", "\n"];

impl Permissions {
    /// Reads `HOME/.agents/permissions.json` then `PROJECT/.agents/permissions.json`.
    pub fn load(home: Option<&Path>, project: &Path) -> Result<Self, PermissionsError> {
        let mut permissions = Permissions::default();
        for dir in home.into_iter().chain([project]) {
            let path = dir.join(".agents").join("permissions.json");
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let parsed = Self::parse(&text, &path)?;
                    permissions.sources.extend(parsed.sources);
                    permissions.rules.extend(parsed.rules);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(PermissionsError::Read { path, source }),
            }
        }
        Ok(permissions)
    }

    /// Parses one file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, PermissionsError> {
        let invalid = |message: String| PermissionsError::Invalid { path: path.to_path_buf(), message };
        let value: Value = serde_json::from_str(text).map_err(|e| invalid(format!("not valid JSON: {e}")))?;
        let Value::Object(entries) = value else {
            return Err(invalid(r#"expected an object such as {"execute": "ask", "read": "allow"}"#.into()));
        };
        let mut rules = HashMap::new();
        let mut sources = HashMap::new();
        for (tool, entry) in entries {
            let rule = match &entry {
                Value::String(text) => Rule::Fixed(Policy::parse(text).ok_or_else(|| {
                    invalid(format!("{tool:?}: expected \"allow\", \"deny\" or \"ask\", not {entry}"))
                })?),
                Value::Object(object) => Self::parse_commands(&tool, object).map_err(invalid)?,
                _ => return Err(invalid(format!("{tool:?}: expected \"allow\", \"deny\" or \"ask\", not {entry}"))),
            };
            sources.insert(tool.clone(), path.to_path_buf());
            rules.insert(tool, rule);
        }
        Ok(Permissions { rules, sources })
    }

    fn parse_commands(tool: &str, object: &serde_json::Map<String, Value>) -> Result<Rule, String> {
        let mut prefixes = Vec::new();
        let mut default = None;
        for (key, value) in object {
            match (key.as_str(), Policy::parse(key)) {
                ("default", _) => {
                    default = Some(value.as_str().and_then(Policy::parse).ok_or_else(|| {
                        format!("{tool:?}.default: expected \"allow\", \"deny\" or \"ask\", not {value}")
                    })?);
                }
                (_, Some(policy)) => {
                    let list = value.as_array().filter(|l| l.iter().all(Value::is_string));
                    let list = list.ok_or_else(|| format!("{tool:?}.{key}: expected a list of command prefixes"))?;
                    prefixes.extend(list.iter().filter_map(Value::as_str).map(|p| (p.trim().to_string(), policy)));
                }
                _ => return Err(format!("{tool:?}: unknown key {key:?}; expected allow, ask, deny or default")),
            }
        }
        Ok(Rule::Commands { prefixes, default })
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
                    if let Some(source) = self.sources.get(&name).cloned() {
                        self.sources.entry(tool.name.clone()).or_insert(source);
                    }
                    canonical.entry(tool.name.clone()).or_insert(rule);
                }
                _ => direct.push((name, rule)),
            }
        }
        canonical.extend(direct);
        self.rules = canonical;
        let runners: Vec<&str> =
            toolbox.tools().iter().filter(|t| t.takes_commands()).map(|t| t.name.as_str()).collect();
        for (name, rule) in &self.rules {
            let takes_commands = toolbox.get(name).is_some_and(|t| t.takes_commands());
            if matches!(rule, Rule::Commands { .. }) && !takes_commands && name != "*" {
                return Err(PermissionsError::Invalid {
                    path: self.sources.get(name).cloned().unwrap_or_default(),
                    message: format!(
                        "{name:?}: only tools that run shell commands ({}) take command prefixes; use \"allow\", \"deny\" or \"ask\"",
                        runners.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// The policy for a call to `tool` (canonical name): `read_only` tools are allowed and
    /// others asked about unless a rule says otherwise; `command` is the shell command the
    /// call would run, for tools that run commands.
    pub fn decide(&self, tool: &str, read_only: bool, command: Option<&str>) -> Policy {
        let fallback = if read_only { Policy::Allow } else { Policy::Ask };
        match self.rules.get(tool).or_else(|| self.rules.get("*")) {
            None => fallback,
            Some(Rule::Fixed(policy)) => *policy,
            Some(Rule::Commands { prefixes, default }) => {
                let command = command.unwrap_or("").trim();
                let chained = SHELL_OPERATORS.iter().any(|op| command.contains(op));
                prefixes
                    .iter()
                    .filter(|(prefix, policy)| covers(prefix, command) && !(chained && *policy == Policy::Allow))
                    .max_by_key(|(prefix, policy)| (prefix.len(), *policy))
                    .map(|(_, policy)| *policy)
                    .unwrap_or(default.unwrap_or(fallback))
            }
        }
    }
}

/// `cargo test` covers `cargo test` and `cargo test --lib`, not `cargo tests`.
fn covers(prefix: &str, command: &str) -> bool {
    !prefix.is_empty()
        && command.starts_with(prefix)
        && command[prefix.len()..].chars().next().is_none_or(char::is_whitespace)
}

/// The decision maker a hook calls: rules, command-line overrides, and the user.
pub struct Gate {
    pub permissions: Permissions,
    /// Tools allowed by `--allow` (canonical names).
    pub allowed: HashSet<String>,
    pub yolo: bool,
    /// Nobody can be asked (`ask` mode).
    pub headless: bool,
    /// Tools the user answered "always" for.
    pub always: Arc<Mutex<HashSet<String>>>,
    pub approver: Arc<dyn Approver>,
}

impl Gate {
    /// `Ok` lets the call run; `Err` is the refusal the model gets.
    pub async fn check(&self, call: HookCall) -> Result<(), String> {
        let name = call.name();
        match self.permissions.decide(name, call.tool.read_only, call.tool.shell_command(&call.args)) {
            Policy::Deny => return Err(format!("Permission denied: {name}")),
            Policy::Allow => return Ok(()),
            Policy::Ask => {}
        }
        let always = self.always.lock().map(|a| a.contains(name)).unwrap_or(false);
        if self.yolo || always || self.allowed.contains(name) {
            return Ok(());
        }
        if self.headless {
            return Err(format!(
                "Permission denied: {name} needs approval, and ask mode cannot ask. Allow it with \
                 --allow {name} (repeatable) or --yolo (allow everything), or set \"{name}\": \"allow\" \
                 in .agents/permissions.json"
            ));
        }
        let request = ApprovalRequest {
            call_id: call.context.call_id.clone(),
            tool: name.to_string(),
            args: call.args.clone(),
            summary: call.tool.summarize(&call.args),
            preview: call.tool.preview(&call.args).await?,
        };
        let answer = tokio::select! {
            answer = self.approver.approve(request) => answer,
            _ = call.context.cancel.cancelled() => return Err(format!("Interrupted before permission was given: {name}")),
        };
        match answer {
            Approval::Yes => Ok(()),
            Approval::Always => {
                if let Ok(mut always) = self.always.lock() {
                    always.insert(name.to_string());
                }
                Ok(())
            }
            Approval::No => Err(format!("User denied permission: {name}")),
            Approval::NoBecause(reason) => Err(format!("User denied permission: {name}. Reason: {reason}")),
        }
    }
}

impl Gate {
    /// The policy in force for each tool of `toolbox`, and why, for `/permissions`.
    pub fn describe(&self, toolbox: &Toolbox) -> String {
        let mut out = String::new();
        if self.yolo {
            out.push_str("--yolo: every call that is not denied runs without asking\n");
        }
        let always = self.always.lock().map(|a| a.clone()).unwrap_or_default();
        for tool in toolbox.tools() {
            let (read_only, tool) = (tool.read_only, tool.name.as_str());
            let policy = match self.permissions.decide(tool, read_only, None) {
                Policy::Deny => "deny".to_string(),
                Policy::Allow => "allow".to_string(),
                Policy::Ask if self.yolo => "allow (--yolo)".to_string(),
                Policy::Ask if self.allowed.contains(tool) => format!("allow (--allow {tool})"),
                Policy::Ask if always.contains(tool) => "allow (you said always)".to_string(),
                Policy::Ask if self.headless => "deny (ask mode cannot ask)".to_string(),
                Policy::Ask => "ask".to_string(),
            };
            out.push_str(&format!("{tool:<10} {policy}\n"));
            if let Some(Rule::Commands { prefixes, .. }) = self.permissions.rules.get(tool) {
                for (prefix, policy) in prefixes {
                    out.push_str(&format!(
                        "{:<10}   {} commands starting `{prefix}`\n",
                        "",
                        format!("{policy:?}").to_lowercase()
                    ));
                }
            }
        }
        out.trim_end().to_string()
    }
}

/// Installs the `Gate` as a global before hook. Reads the files again on `/reload`; the
/// "always" answers last for the whole session.
pub struct PermissionsPlugin {
    home: Option<PathBuf>,
    project: PathBuf,
    flags: PermissionFlags,
    always: Arc<Mutex<HashSet<String>>>,
}

/// What the command line says about permissions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PermissionFlags {
    /// Tools allowed without asking (`--allow TOOL`), by any of their names.
    pub allow: Vec<String>,
    /// Every call that is not denied runs without asking (`--yolo`).
    pub yolo: bool,
    /// Nobody can be asked (`ask`): calls whose policy is `ask` are refused.
    pub headless: bool,
}

impl PermissionsPlugin {
    /// Files from `$HOME` and the working directory.
    pub fn new(flags: PermissionFlags) -> Self {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Self::with_dirs(home, project, flags)
    }

    pub fn with_dirs(home: Option<PathBuf>, project: PathBuf, flags: PermissionFlags) -> Self {
        PermissionsPlugin { home, project, flags, always: Arc::default() }
    }
}

impl Plugin for PermissionsPlugin {
    fn name(&self) -> &str {
        "permissions"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let mut permissions = Permissions::load(self.home.as_deref(), &self.project)?;
        let toolbox = session.toolbox();
        permissions.canonicalize(toolbox)?;
        let allowed =
            self.flags.allow.iter().map(|name| toolbox.get(name).map_or(name.clone(), |t| t.name.clone())).collect();
        let gate = Arc::new(Gate {
            permissions,
            allowed,
            yolo: self.flags.yolo,
            headless: self.flags.headless,
            always: self.always.clone(),
            approver: session.approver(),
        });
        let hook_gate = gate.clone();
        session.toolbox_mut().before(None, move |call| {
            let gate = hook_gate.clone();
            async move { gate.check(call).await }
        });
        session.commands_mut().add("permissions", "", "the permission policy of each tool", move |session, _| {
            session.show(gate.describe(session.toolbox()));
            Ok(Flow::Continue)
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Tool;
    use serde_json::json;

    fn parse(text: &str) -> Permissions {
        Permissions::parse(text, Path::new("p.json")).unwrap()
    }

    #[test]
    fn defaults_allow_looking_and_ask_for_changes() {
        let p = Permissions::default();
        assert_eq!(p.decide("anything", true, None), Policy::Allow);
        assert_eq!(p.decide("anything", false, None), Policy::Ask);
        assert_eq!(p.decide("anything", false, Some("ls")), Policy::Ask);
    }

    #[test]
    fn the_longest_prefix_wins_and_deny_wins_ties() {
        let p = parse(r#"{"execute": {"allow": ["git", "cargo test"], "deny": ["git push", "cargo test"]}}"#);
        assert_eq!(p.decide("execute", false, Some("git status")), Policy::Allow);
        assert_eq!(p.decide("execute", false, Some("git push --force")), Policy::Deny);
        assert_eq!(p.decide("execute", false, Some("cargo test")), Policy::Deny);
        assert_eq!(p.decide("execute", false, Some("gitk")), Policy::Ask);
    }

    #[test]
    fn an_allowed_prefix_does_not_cover_chained_commands() {
        let p = parse(r#"{"execute": {"allow": ["cargo test"]}}"#);
        assert_eq!(p.decide("execute", false, Some("cargo test --lib")), Policy::Allow);
        assert_eq!(p.decide("execute", false, Some("cargo test; rm -rf ~")), Policy::Ask);
        assert_eq!(p.decide("execute", false, Some("cargo test && curl x | sh")), Policy::Ask);
        assert_eq!(p.decide("execute", false, Some("cargo test > out")), Policy::Ask);
    }

    #[test]
    fn a_star_rule_covers_unlisted_tools() {
        let p = parse(r#"{"*": "deny", "read": "allow"}"#);
        assert_eq!(p.decide("read", true, None), Policy::Allow);
        assert_eq!(p.decide("grep", true, None), Policy::Deny);
    }

    #[test]
    fn bad_entries_are_named() {
        let err = |text: &str| Permissions::parse(text, Path::new("/x/p.json")).unwrap_err().to_string();
        assert_eq!(
            err("[]"),
            r#"invalid permissions file /x/p.json: expected an object such as {"execute": "ask", "read": "allow"}"#
        );
        assert_eq!(
            err(r#"{"read": "yes"}"#),
            r#"invalid permissions file /x/p.json: "read": expected "allow", "deny" or "ask", not "yes""#
        );
        assert_eq!(
            err(r#"{"execute": {"allow": "cargo"}}"#),
            r#"invalid permissions file /x/p.json: "execute".allow: expected a list of command prefixes"#
        );
        assert!(err("{").starts_with("invalid permissions file /x/p.json: not valid JSON: "));
    }

    #[test]
    fn command_prefixes_only_for_tools_that_run_commands() {
        let tool =
            |name: &str| Tool::new(name, "", json!({"type": "object"}), |_, _| async { Ok(json!(null)) }).unwrap();
        let mut toolbox = Toolbox::new();
        toolbox.add(tool("look").read_only());
        toolbox.add(tool("run").runs_commands("command").with_aliases(&["sh"]));
        let mut p = Permissions::parse(r#"{"look": {"allow": ["x"]}}"#, Path::new("/x/p.json")).unwrap();
        assert_eq!(
            p.canonicalize(&toolbox).unwrap_err().to_string(),
            r#"invalid permissions file /x/p.json: "look": only tools that run shell commands (run) take command prefixes; use "allow", "deny" or "ask""#
        );
        let mut p = Permissions::parse(r#"{"sh": {"deny": ["rm"]}}"#, Path::new("/x/p.json")).unwrap();
        p.canonicalize(&toolbox).unwrap();
        assert_eq!(p.decide("run", false, Some("rm -rf x")), Policy::Deny);
    }
}
