//! The gate every tool call passes (a global before hook): the rules' verdict on the tool
//! and its command, then where its paths point, then the command-line overrides, then
//! the user. `Ok` lets the call run; `Err` is the refusal the model reads.
//!
//! Order of precedence: a deny (rule, or a denied directory) always refuses. A path
//! outside the project (not under an allowed directory) is asked about even for an
//! allowed tool; only `--yolo` runs it unasked. A command the parser could not read is
//! asked about, and refused under `--yolo` or headless when the tool has deny rules.
//! `--allow TOOL` and "always" answer the tool's own `ask` inside the project. A hook's
//! "allow" (`PreApproval`) counts as `--yolo` for its call, its "ask" asks whatever else
//! would have let the call run.
//!
//! The session's mode (`agent/mode.rs`) comes after a deny: in plan mode a tool that is not
//! read-only is refused with a message telling the model to present its plan; in accept-edits
//! mode a call of a tool that only changes the files it names (`Tool::edits_files`), all
//! inside the project and none protected, runs without asking.

use super::paths::{Place, Places};
use super::rules::{Permissions, Policy, Rule, Subject};
use super::sandbox::{SandboxState, OPT_OUT_ARGUMENT};
use super::shell::ParsedCommand;
use crate::agent::input::{Approval, ApprovalRequest, Approver};
use crate::agent::tool::PreApproval;
use crate::agent::toolbox::{HookCall, Toolbox};
use crate::paths::{canonical, lexical, resolve};
use crate::protocol::mode::{Mode, SharedMode};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The decision maker a hook calls: rules, command-line overrides, and the user.
pub struct Gate {
    pub permissions: Permissions,
    pub places: Places,
    /// Tools allowed by `--allow` (canonical names).
    pub allowed: HashSet<String>,
    /// Which tools' calls run in the kernel sandbox (allowed as `allowed` is), and the
    /// sandbox in a few words.
    pub sandbox: SandboxState,
    pub yolo: bool,
    /// Nobody can be asked (`ask` mode).
    pub headless: bool,
    /// Tools the user answered "always" for.
    pub always: Arc<Mutex<HashSet<String>>>,
    pub approver: Arc<dyn Approver>,
    /// The session's mode (ask, accept edits, plan), read for each call.
    pub mode: SharedMode,
}

impl Gate {
    /// `Ok` lets the call run; `Err` is the refusal the model gets.
    pub async fn check(&self, call: HookCall) -> Result<(), String> {
        let name = call.name();
        let parsed = call.tool.shell_command(&call.args).map(ParsedCommand::parse);
        let host = call.tool.url_host(&call.args);
        let subject = parsed.as_ref().map(Subject::Command).or(host.as_deref().map(Subject::Host));
        let judgement = self.permissions.decide(name, call.tool.read_only, subject);
        // A hook's say (`PreApproval`): "allow" is `--yolo` for this call, "ask" puts it
        // to the user however it would have run; neither lifts a deny.
        let (hook_allows, hook_asks) = match call.context.pre_approval() {
            Some(PreApproval::Allow(_)) => (true, None),
            Some(PreApproval::Ask(reason)) => (false, Some(reason.as_str())),
            None => (false, None),
        };
        let yolo = self.yolo || hook_allows;
        if judgement.policy == Policy::Deny {
            return Err(format!("Permission denied: {name}"));
        }
        let mode = self.mode.get();
        if mode == Mode::Plan && !call.tool.read_only {
            return Err(format!(
                "Not run: {name}. The user has put elelem in plan mode, where only read-only tools run. Present \
                 your plan instead and stop; the user accepts it (and switches mode) before anything changes."
            ));
        }
        let mut paths = 0;
        let mut outside: Option<PathBuf> = None;
        let mut protected: Option<PathBuf> = None;
        let (allow, deny) = (self.permissions.allowed_dirs(), self.permissions.denied_dirs());
        for (arg, given) in call.tool.path_arguments(&call.args) {
            paths += 1;
            let real = match call.context.path(arg) {
                Some(real) => real.to_path_buf(),
                None => resolve(given, &self.places.cwd, self.places.home.as_deref()),
            };
            if !call.tool.read_only && self.places.protected(&real).is_some() {
                protected = protected.or(Some(real.clone()));
            }
            match self.places.place_of(real, &allow, &deny) {
                Place::Denied(resolved) => {
                    return Err(format!("Permission denied: {name} {}: a paths rule denies it", resolved.display()))
                }
                Place::Outside(resolved) => outside = outside.or(Some(resolved)),
                Place::Inside | Place::Allowed => {}
            }
        }
        let unasked = hook_asks.is_none();
        // Accept edits: a call of a tool that only changes the files it names, all inside the
        // project, runs unasked.
        let only_files = call.tool.edits_files && paths > 0 && parsed.is_none() && host.is_none();
        if mode == Mode::Edits && only_files && outside.is_none() && protected.is_none() && unasked {
            return Ok(());
        }
        if judgement.policy == Policy::Allow && outside.is_none() && (protected.is_none() || yolo) && unasked {
            return Ok(());
        }
        if let Some(path) = protected.as_ref().filter(|_| self.headless && !yolo) {
            return Err(format!(
                "Permission denied: {name} {}: the project's .agents/, .claude/ and .git decide what the next run \
                 of elelem, another agent or git executes, so changing them is always asked about, and a headless run \
                 cannot ask. The user can make this change, or run with --yolo",
                path.display()
            ));
        }
        let unreadable = judgement.uncertain && self.permissions.has_deny(name);
        if unreadable && (yolo || self.headless) {
            let why = parsed
                .as_ref()
                .and_then(|p| p.unreadable.clone())
                .unwrap_or_else(|| "a word only known when it runs".into());
            return Err(format!(
                "Permission denied: {name}: elelem cannot read this command ({why}) and {name} has deny rules, so it \
                 does not run without the user looking at it. Write it without variables, substitutions or globs \
                 where the command's name and arguments go."
            ));
        }
        // A call of a contained tool asking to run outside the sandbox is always put to the
        // user; a headless run refuses it.
        let opts_out = self.sandbox.contained.contains(name) && call.args[OPT_OUT_ARGUMENT] == false;
        if opts_out && self.headless {
            return Err(format!(
                "Permission denied: {name} with \"{OPT_OUT_ARGUMENT}\": false runs outside the sandbox, which only \
                 the user can allow, and a headless run cannot ask. Run it contained, or the user runs elelem with \
                 --sandbox off --allow {name}"
            ));
        }
        if yolo && unasked {
            return Ok(());
        }
        // "Always" for a tool that reaches URLs holds for the host it was given for.
        let always_key = match &host {
            Some(host) => format!("{name} {host}"),
            None => name.to_string(),
        };
        let always = self.always.lock().map(|a| a.contains(&always_key)).unwrap_or(false);
        let allowed = always || self.allowed.contains(name) || self.runs_contained(name);
        if outside.is_none() && protected.is_none() && !unreadable && !opts_out && allowed && unasked {
            return Ok(());
        }
        if self.headless {
            return Err(match &outside {
                Some(path) => self.outside_refusal(name, path),
                None => format!(
                    "Permission denied: {name} needs approval, and a headless run cannot ask. Allow it with \
                     --allow {name} (repeatable) or --yolo (allow everything), or set \"{name}\": \"allow\" \
                     in .agents/permissions.json"
                ),
            });
        }
        let (args, leads) = self.as_opened(&call);
        let mut preview = call.tool.preview_in(&args, &call.context).await?;
        if !leads.is_empty() {
            preview.text = format!("{leads}{}", preview.text);
        }
        if let Some(path) = &outside {
            preview.text =
                format!("{} is outside the project ({})\n{}", path.display(), self.places.root.display(), preview.text);
        }
        if let Some(path) = &protected {
            preview.text =
                format!("{} decides what the next run of elelem or git executes\n{}", path.display(), preview.text);
        }
        if let Some(reason) = hook_asks {
            preview.text = format!("A hook asks you about this call: {reason}\n{}", preview.text);
        }
        if let Some(line) = self.containment_line(&call, opts_out) {
            preview.text = format!("{line}\n{}", preview.text);
        }
        let request = ApprovalRequest {
            call_id: call.context.call_id.clone(),
            tool: name.to_string(),
            args: call.args.clone(),
            summary: call.tool.summarize(&call.args),
            preview,
        };
        let answer = tokio::select! {
            answer = self.approver.approve(request) => answer,
            _ = call.context.cancel.cancelled() => return Err(format!("Interrupted before permission was given: {name}")),
        };
        match answer {
            Approval::Yes => Ok(()),
            Approval::Always => {
                if let Ok(mut always) = self.always.lock() {
                    always.insert(always_key);
                }
                Ok(())
            }
            Approval::No => Err(format!("User denied permission: {name}")),
            Approval::NoBecause(reason) => Err(format!("User denied permission: {name}. Reason: {reason}")),
        }
    }

    /// The call's arguments with each path that does not say plainly where it leads (a
    /// symlink on the way, `~`) replaced by the file it reaches, so the preview shows that
    /// file; and a line per such path naming it, for the question.
    fn as_opened(&self, call: &HookCall) -> (serde_json::Value, String) {
        let mut args = call.args.clone();
        let mut leads = String::new();
        let cwd = canonical(&self.places.cwd);
        for path in call.context.resolved_paths() {
            if lexical(&path.given, &cwd, None) == path.real {
                continue;
            }
            leads.push_str(&format!("{} leads to {}\n", path.given, path.real.display()));
            if let Some(slot) = args.get_mut(&path.arg) {
                *slot = serde_json::Value::String(path.real.to_string_lossy().into_owned());
            }
        }
        (args, leads)
    }

    fn outside_refusal(&self, name: &str, path: &std::path::Path) -> String {
        let dir = path.parent().unwrap_or(path);
        format!(
            "Permission denied: {name} {}: the path is outside the project ({}), and a headless run cannot ask. \
             Allow the directory with \"paths\": {{\"allow\": [\"{}\"]}} in ~/.agents/permissions.json, or run \
             with --yolo",
            path.display(),
            self.places.root.display(),
            dir.display()
        )
    }

    /// Whether `tool`'s calls run in the sandbox and so need no approval: not when a rule
    /// of the user's (or the project's) says `ask` for it.
    fn runs_contained(&self, tool: &str) -> bool {
        self.sandbox.contained.contains(tool) && !self.permissions.has_ask(tool)
    }

    /// For the question about a call that runs a command: whether it would run contained.
    fn containment_line(&self, call: &HookCall, opts_out: bool) -> Option<String> {
        call.tool.shell_command(&call.args)?;
        // Nothing to say when there is no sandbox, or the user turned it off.
        if self.sandbox.label.is_empty() || self.sandbox.label.ends_with(": off") {
            return None;
        }
        Some(if opts_out {
            "Runs OUTSIDE the sandbox, with your rights (the model asked for \"sandbox\": false)".to_string()
        } else if self.sandbox.contained.contains(call.name()) {
            format!("Runs contained ({})", self.sandbox.label)
        } else {
            format!("Runs with your rights, not contained ({})", self.sandbox.label)
        })
    }

    /// The policy in force for each tool of `toolbox`, and why, for `/permissions`.
    pub fn describe(&self, toolbox: &Toolbox) -> String {
        let mut out = String::new();
        if self.yolo {
            out.push_str("--yolo: every call that is not denied runs without asking\n");
        }
        if !self.sandbox.label.is_empty() {
            out.push_str(&format!("{}\n", self.sandbox.label));
        }
        let always = self.always.lock().map(|a| a.clone()).unwrap_or_default();
        for tool in toolbox.tools() {
            let read_only = tool.read_only;
            let name = tool.name.as_str();
            let policy = match self.permissions.decide(name, read_only, None).policy {
                Policy::Deny => "deny".to_string(),
                Policy::Allow => "allow".to_string(),
                Policy::Ask if self.yolo => "allow (--yolo)".to_string(),
                Policy::Ask if self.allowed.contains(name) => format!("allow (--allow {name})"),
                Policy::Ask if self.runs_contained(name) => "allow (contained by the sandbox)".to_string(),
                Policy::Ask if always.contains(name) => "allow (you said always)".to_string(),
                Policy::Ask if always.iter().any(|key| key.starts_with(&format!("{name} "))) => {
                    let hosts: Vec<&str> = always.iter().filter_map(|k| k.strip_prefix(&format!("{name} "))).collect();
                    format!("ask (you said always for {})", hosts.join(", "))
                }
                Policy::Ask if self.headless => "deny (headless run: cannot ask)".to_string(),
                Policy::Ask => "ask".to_string(),
            };
            out.push_str(&format!("{name:<10} {policy}\n"));
            let layers = [(&self.permissions.user, ""), (&self.permissions.project, " (project)")];
            for (set, whose) in layers {
                if let Some(Rule::Commands(rules)) = set.rules.get(tool.name.as_str()) {
                    let what = if tool.takes_hosts() { "hosts" } else { "commands starting" };
                    for (prefix, policy) in &rules.prefixes {
                        let ignored = !whose.is_empty() && !self.permissions.trusted && *policy == Policy::Allow;
                        let note = if ignored { " (project, not trusted: ignored)" } else { whose };
                        out.push_str(&format!("{:<10}   {} {what} `{}`{note}\n", "", policy.word(), prefix.join(" ")));
                    }
                }
            }
        }
        let root = self.places.root.display();
        let outside = match (self.yolo, self.headless) {
            (true, _) => "allow (--yolo)",
            (false, true) => "deny (headless run: cannot ask)",
            (false, false) => "ask",
        };
        out.push_str(&format!("paths      outside {root}: {outside}"));
        for dir in self.permissions.allowed_dirs() {
            out.push_str(&format!("\n{:<10}   allow {}", "", dir.display()));
        }
        for dir in self.permissions.denied_dirs() {
            out.push_str(&format!("\n{:<10}   deny {}", "", dir.display()));
        }
        if !self.permissions.trusted && !self.permissions.project.rules.is_empty() {
            out.push_str("\nthis project is not trusted: its rules may only make yours stricter (--trust)");
        }
        out
    }
}
