//! The permission files' word on the sandbox for commands: the `"sandbox"` entry of
//! `~/.agents/permissions.json` (`{"mode": "workspace-write", "writable": ["~/.cargo"],
//! "unreadable": ["~/.config/vault"], "network": true}`; a project's entry is read but not
//! applied), and the link to whoever runs the sandbox (`startup` wires the tools'), which
//! also gets the `paths` rules: allowed directories are writable, denied ones unreadable.
//! The gate learns from the link which tools run contained.

use super::paths::resolve;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The argument with which a call of a contained tool asks to run outside the sandbox
/// (`"sandbox": false`); such a call always asks the user.
pub const OPT_OUT_ARGUMENT: &str = "sandbox";

/// A file's `"sandbox"` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SandboxEntry {
    /// `workspace-write`, `read-only` or `off`; the command line wins.
    pub mode: Option<String>,
    /// Directories (resolved) a contained command may write besides the project and the
    /// temp directory.
    pub writable: Vec<PathBuf>,
    /// Paths (resolved) a contained command may not read besides the user's known secrets
    /// (which the file tools may still read, asking).
    pub unreadable: Vec<PathBuf>,
    /// Contained commands may use the network.
    pub network: bool,
}

impl SandboxEntry {
    pub fn parse(value: &Value, base: &Path, home: Option<&Path>) -> Result<Self, String> {
        let shape = r#""sandbox": expected {"mode": "workspace-write", "writable": [directories], "unreadable": [paths], "network": false}"#;
        let object = value.as_object().ok_or(shape)?;
        let mut entry = SandboxEntry::default();
        for (key, value) in object {
            match key.as_str() {
                "mode" => {
                    let mode = value.as_str().filter(|m| ["workspace-write", "read-only", "off"].contains(m));
                    let mode = mode.ok_or_else(|| {
                        format!("\"sandbox\".mode: expected \"workspace-write\", \"read-only\" or \"off\", not {value}")
                    })?;
                    entry.mode = Some(mode.to_string());
                }
                "writable" | "unreadable" => {
                    let list = value.as_array().filter(|l| l.iter().all(Value::is_string));
                    let what = if key == "writable" { "directories" } else { "paths" };
                    let list = list.ok_or_else(|| format!("\"sandbox\".{key}: expected a list of {what}"))?;
                    let paths = list.iter().filter_map(Value::as_str).map(|dir| resolve(dir, base, home)).collect();
                    match key.as_str() {
                        "writable" => entry.writable = paths,
                        _ => entry.unreadable = paths,
                    }
                }
                "network" => {
                    entry.network = value.as_bool().ok_or("\"sandbox\".network: expected true or false")?;
                }
                _ => {
                    return Err(format!(
                        "\"sandbox\": unknown key {key:?}; expected mode, writable, unreadable or network"
                    ))
                }
            }
        }
        Ok(entry)
    }
}

/// What the sandbox answered the link.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SandboxState {
    /// Tools whose calls run contained (and so are allowed as `--allow` allows).
    pub contained: HashSet<String>,
    /// The sandbox in a few words (`sandbox: workspace-write, no network`), for
    /// `/permissions`; empty without a sandbox.
    pub label: String,
    /// Something to tell the user at start (the sandbox was asked for but is missing).
    pub notice: Option<String>,
}

/// The sandbox's side of the link: given the mode, network, writable and unreadable
/// directories, it answers (contained tools, label, notice).
pub type LinkFn =
    dyn Fn(Option<&str>, bool, &[PathBuf], &[PathBuf]) -> (Vec<String>, String, Option<String>) + Send + Sync;

/// The link to whoever runs the sandbox; none: nothing runs contained.
#[derive(Clone, Default)]
pub struct SandboxLink(Option<Arc<LinkFn>>);

impl SandboxLink {
    pub fn new(
        link: impl Fn(Option<&str>, bool, &[PathBuf], &[PathBuf]) -> (Vec<String>, String, Option<String>)
            + Send
            + Sync
            + 'static,
    ) -> Self {
        SandboxLink(Some(Arc::new(link)))
    }

    /// Hands the user's entry and the path rules over; the answer.
    pub fn apply(&self, entry: &SandboxEntry, writable: &[PathBuf], unreadable: &[PathBuf]) -> SandboxState {
        let Some(link) = &self.0 else { return SandboxState::default() };
        let writable: Vec<PathBuf> = entry.writable.iter().chain(writable).cloned().collect();
        let unreadable: Vec<PathBuf> = entry.unreadable.iter().chain(unreadable).cloned().collect();
        let (contained, label, notice) = link(entry.mode.as_deref(), entry.network, &writable, &unreadable);
        SandboxState { contained: contained.into_iter().collect(), label, notice }
    }
}

impl fmt::Debug for SandboxLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "SandboxLink(linked)" } else { "SandboxLink(none)" })
    }
}

impl PartialEq for SandboxLink {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_entry_parses_and_resolves_its_directories() {
        let home = Path::new("/home/u");
        let entry = SandboxEntry::parse(
            &json!({"mode": "read-only", "writable": ["~/.cargo", "/tmp/x"], "unreadable": ["~/.vault"], "network": true}),
            Path::new("/p"),
            Some(home),
        )
        .unwrap();
        assert_eq!(entry.mode.as_deref(), Some("read-only"));
        assert_eq!(entry.writable, vec![PathBuf::from("/home/u/.cargo"), PathBuf::from("/tmp/x")]);
        assert_eq!(entry.unreadable, vec![PathBuf::from("/home/u/.vault")]);
        assert!(entry.network);
        for bad in [
            json!({"mode": "loose"}),
            json!({"writable": "x"}),
            json!({"unreadable": [1]}),
            json!({"network": "yes"}),
            json!({"x": 1}),
            json!(3),
        ] {
            assert!(SandboxEntry::parse(&bad, Path::new("/p"), None).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_link_gets_the_entry_and_the_path_rules() {
        let link = SandboxLink::new(|mode, network, writable, unreadable| {
            assert_eq!((mode, network), (Some("off"), false));
            assert_eq!(writable, [PathBuf::from("/w"), PathBuf::from("/allowed")]);
            assert_eq!(unreadable, [PathBuf::from("/hidden"), PathBuf::from("/denied")]);
            (vec!["execute".into()], "sandbox: off".into(), None)
        });
        let entry = SandboxEntry {
            mode: Some("off".into()),
            writable: vec![PathBuf::from("/w")],
            unreadable: vec![PathBuf::from("/hidden")],
            network: false,
        };
        let state = link.apply(&entry, &[PathBuf::from("/allowed")], &[PathBuf::from("/denied")]);
        assert!(state.contained.contains("execute"));
        assert_eq!(SandboxLink::default().apply(&entry, &[], &[]), SandboxState::default());
    }
}
