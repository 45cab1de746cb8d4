//! Hooks in Claude Code's format (`~/.agents/hooks.json`, and the project's
//! `.agents/hooks.json` in a trusted project; `config.rs`), run at five points:
//!
//! - `PreToolUse`: the toolbox's prepare hook (before the permission gate): exit 2 or
//!   `permissionDecision: "deny"` refuses the call (the reason is the result the model
//!   reads), `"allow"` / `"ask"` are a `PreApproval` the gate weighs (never over a deny
//!   rule), `updatedInput` replaces the arguments;
//! - `PostToolUse`: an after hook: `additionalContext` and a block's reason join the result
//!   (`hook_context`, `hook_feedback`);
//! - `UserPromptSubmit`: `Plugin::on_prompt`: a block refuses the prompt (the user is told
//!   why), context is added after it;
//! - `Stop`: `Plugin::on_stop`: a block sends the turn on with the reason;
//! - `SessionStart`: before the first line, its context becomes a system prompt section
//!   (set before any request, so the cached prefix does not move).
//!
//! Every run shows as a `hook` row in the tool log (`hook PreToolUse: <command> → blocked`);
//! a hook that fails or times out is also a warning. A `PreToolUse` hook that cannot be
//! started (`run::Outcome::NotStarted`) refuses the call: a guard fails closed. Hooks run on the agent's task, never
//! the UI's, through the `CommandRunner` (`run.rs`).

pub mod config;
pub mod run;

use crate::agent::output::{AgentEvent, Output};
use crate::agent::{HookStop, NextLine, Plugin, PreApproval, Prepared, PromptCheck, Session};
use crate::plugins::trust::{project_root, ProjectTrust};
use crate::protocol::{ToolCall, ToolResult};
use config::{names_of, Event, Hook, Hooks, NameMap};
use futures::future::BoxFuture;
use run::{CommandRunner, Outcome};
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The section of the system prompt that holds `SessionStart` hooks' context.
const SESSION_START_SECTION: &str = "hooks-session-start";

/// Who the hooks are told they run in (`session_id`, `transcript_path` on their stdin):
/// the recorded session's id and file — what `--resume` takes — or, when nothing is
/// recorded, an id of this process's own and no path.
#[derive(Clone, Debug)]
pub struct HookSession {
    pub id: String,
    pub transcript_path: Option<PathBuf>,
}

impl HookSession {
    /// A session that is not recorded: an id for this process, no transcript.
    pub fn unrecorded() -> Self {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        HookSession { id: format!("elelem-{secs}-{}", std::process::id()), transcript_path: None }
    }
}

/// The plugin. Its state (whether the session started, the hooks last loaded) lasts the
/// session; `/reload` reads the files again.
pub struct HooksPlugin {
    shared: Arc<Shared>,
}

/// What the plugin's hook points share.
struct Shared {
    home: Option<PathBuf>,
    cwd: PathBuf,
    trust: ProjectTrust,
    runner: CommandRunner,
    names: NameMap,
    session: HookSession,
    hooks: Mutex<Arc<Hooks>>,
    output: Mutex<Option<Arc<dyn Output>>>,
    started: AtomicBool,
    runs: AtomicUsize,
}

impl HooksPlugin {
    /// Hooks from `home`'s `.agents/hooks.json` and (when `trust` says so) the project's
    /// around `cwd`, run through `runner`; `names`: Claude Code's names for the tools;
    /// `session`: what the hooks are told of the session they run in.
    pub fn new(
        home: Option<PathBuf>,
        cwd: PathBuf,
        trust: ProjectTrust,
        runner: CommandRunner,
        names: NameMap,
        session: HookSession,
    ) -> Self {
        let shared = Shared {
            home,
            cwd,
            trust,
            runner,
            names,
            session,
            hooks: Mutex::default(),
            output: Mutex::default(),
            started: AtomicBool::new(false),
            runs: AtomicUsize::new(0),
        };
        HooksPlugin { shared: Arc::new(shared) }
    }

    /// Reads the files; problems are shown, and what could be read is used.
    fn load(&self, session: &Session) -> Hooks {
        let shared = &self.shared;
        let mut hooks = Hooks::default();
        let user = shared.home.as_ref().map(|h| h.join(".agents/hooks.json"));
        let project = project_root(&shared.cwd).join(".agents/hooks.json");
        let same = |a: &PathBuf, b: &PathBuf| std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok();
        let mut files: Vec<PathBuf> = user.iter().cloned().collect();
        if project.exists() && !user.as_ref().is_some_and(|u| same(u, &project)) {
            if shared.trust.is_trusted() {
                files.push(project);
            } else {
                // After a no, it is not asked again: say how to trust it after all.
                let how = shared.trust.declined_how().unwrap_or_else(|| {
                    "run with --trust, or trust it once when `elelem` asks in this folder".to_string()
                });
                session.show(format!(
                    "Project hooks in {} are not run: the project is not trusted ({how})",
                    project.display()
                ));
            }
        }
        for file in files {
            if let Err(error) = config::load_into(&file, &mut hooks) {
                session.output().emit(AgentEvent::Error(format!("hooks: {error}; its hooks are not run")));
            }
        }
        for notice in &hooks.notices {
            session.show(notice.clone());
        }
        hooks
    }
}

impl Plugin for HooksPlugin {
    fn name(&self) -> &str {
        "hooks"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let hooks = Arc::new(self.load(session));
        if let Ok(mut slot) = self.shared.output.lock() {
            *slot = Some(session.output());
        }
        if let Ok(mut slot) = self.shared.hooks.lock() {
            *slot = hooks.clone();
        }
        if !hooks.for_event(Event::PreToolUse).is_empty() {
            let shared = self.shared.clone();
            session.toolbox_mut().prepare(move |call| {
                let shared = shared.clone();
                async move {
                    let names = names_of(shared.names, call.name(), &call.tool.aliases);
                    shared.pre_tool_use(&names, call.args, &call.context.cancel).await
                }
            });
        }
        if !hooks.for_event(Event::PostToolUse).is_empty() {
            let shared = self.shared.clone();
            session.toolbox_mut().after(None, move |call, result| {
                let shared = shared.clone();
                async move {
                    let names = names_of(shared.names, call.name(), &call.tool.aliases);
                    Ok(shared.post_tool_use(&names, &call.args, result, &call.context.cancel).await)
                }
            });
        }
        Ok(())
    }

    fn before_line<'a>(&'a self, session: &'a mut Session, _next: NextLine) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if self.shared.started.swap(true, Ordering::SeqCst) {
                return;
            }
            let cancel = CancellationToken::new();
            let fields = json!({"source": "startup"});
            let mut added = Vec::new();
            for (_, outcome) in self.shared.fire(Event::SessionStart, None, fields, &cancel).await {
                added.extend(outcome.context(true));
            }
            if !added.is_empty() {
                session.set_prompt_section(SESSION_START_SECTION, added.join("\n\n"));
                session.publish_context();
            }
        })
    }

    fn on_prompt<'a>(&'a self, prompt: &'a str, cancel: &'a CancellationToken) -> BoxFuture<'a, PromptCheck> {
        Box::pin(async move {
            let mut added = Vec::new();
            for (hook, outcome) in
                self.shared.fire(Event::UserPromptSubmit, None, json!({"prompt": prompt}), cancel).await
            {
                if let Some(reason) = outcome.blocked() {
                    return PromptCheck::Refuse(format!(
                        "prompt not sent: a UserPromptSubmit hook ({}) blocked it: {reason}",
                        hook.command
                    ));
                }
                added.extend(outcome.context(true));
            }
            PromptCheck::Go((!added.is_empty()).then(|| added.join("\n\n")))
        })
    }

    fn on_stop<'a>(
        &'a self,
        _reply: &'a str,
        again: bool,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let fields = json!({"stop_hook_active": again});
            for (hook, outcome) in self.shared.fire(Event::Stop, None, fields, cancel).await {
                if let Some(reason) = outcome.blocked() {
                    return Some(format!("A Stop hook ({}) asks you to go on: {reason}", hook.command));
                }
            }
            None
        })
    }
}

impl Shared {
    /// Runs `event`'s hooks that match (every one, for an event without a tool) one after
    /// the other, `fields` added to each one's input (and `tool_name`, the name its matcher
    /// took); each shows as a row in the tool log.
    async fn fire(
        &self,
        event: Event,
        names: Option<&[String]>,
        fields: Value,
        cancel: &CancellationToken,
    ) -> Vec<(Hook, Outcome)> {
        let hooks = self.hooks.lock().map(|h| h.clone()).unwrap_or_default();
        let mut fired = Vec::new();
        for hook in hooks.for_event(event) {
            let tool_name = match names {
                Some(names) => match hook.matching(names) {
                    Some(name) => Some(name.to_string()),
                    None => continue,
                },
                None => None,
            };
            let input = self.input(event, tool_name, &fields);
            let outcome = run::run(&self.runner, &hook.command, hook.timeout, &input, &self.cwd, cancel.clone()).await;
            self.show(event, hook, &outcome);
            fired.push((hook.clone(), outcome));
        }
        fired
    }

    /// The JSON a hook reads on stdin.
    fn input(&self, event: Event, tool_name: Option<String>, fields: &Value) -> Value {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.session.id));
        let transcript = self.session.transcript_path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        input.insert("transcript_path".into(), json!(transcript));
        input.insert("cwd".into(), json!(self.cwd.display().to_string()));
        input.insert("hook_event_name".into(), json!(event.name()));
        if let Some(name) = tool_name {
            input.insert("tool_name".into(), json!(name));
        }
        if let Value::Object(fields) = fields {
            input.extend(fields.clone());
        }
        Value::Object(input)
    }

    /// The tool log row for one run (and a warning when the hook failed).
    fn show(&self, event: Event, hook: &Hook, outcome: &Outcome) {
        let Some(output) = self.output.lock().ok().and_then(|o| o.clone()) else { return };
        let n = self.runs.fetch_add(1, Ordering::Relaxed) + 1;
        let command = hook.command.lines().next().unwrap_or("").to_string();
        let summary = format!("{}: {command} → {}", event.name(), outcome.label());
        let call = ToolCall {
            id: format!("hook_{n}"),
            name: "hook".into(),
            arguments: json!({"event": event.name(), "command": hook.command}),
        };
        let result = match outcome {
            Outcome::Go { stdout, .. } => ToolResult::from_value(json!({"content": stdout})),
            Outcome::Block(reason) => ToolResult::failure(format!("blocked: {reason}")),
            Outcome::Failed(why) | Outcome::NotStarted(why) => ToolResult::failure(why.clone()),
        };
        output.emit(AgentEvent::ToolStarted { call: call.clone(), summary });
        output.emit(AgentEvent::ToolFinished { call, result });
        match outcome {
            Outcome::NotStarted(why) if event == Event::PreToolUse => output.emit(AgentEvent::Warning(format!(
                "hook {}: {command}: {why}; the tool call is refused until the hook can run",
                event.name()
            ))),
            Outcome::Failed(why) | Outcome::NotStarted(why) => {
                output.emit(AgentEvent::Warning(format!("hook {}: {command}: {why}", event.name())))
            }
            _ => {}
        }
    }

    /// `PreToolUse`: a refusal, or the arguments to go on with and the hooks' say on
    /// approval ("ask" wins over "allow").
    async fn pre_tool_use(
        &self,
        names: &[String],
        args: Value,
        cancel: &CancellationToken,
    ) -> Result<Prepared, HookStop> {
        let mut prepared = Prepared::default();
        let hooks = self.hooks.lock().map(|h| h.clone()).unwrap_or_default();
        let mut args = args;
        for hook in hooks.for_event(Event::PreToolUse) {
            let Some(name) = hook.matching(names) else { continue };
            let fields = json!({"tool_input": args});
            let input = self.input(Event::PreToolUse, Some(name.to_string()), &fields);
            let outcome = run::run(&self.runner, &hook.command, hook.timeout, &input, &self.cwd, cancel.clone()).await;
            self.show(Event::PreToolUse, hook, &outcome);
            let reason = outcome.text("permissionDecisionReason").or(outcome.text("reason")).unwrap_or("").to_string();
            let decision = match outcome.text("permissionDecision").or(outcome.text("decision")) {
                Some("deny" | "block") => "deny",
                Some("allow" | "approve") => "allow",
                Some("ask") => "ask",
                _ => "",
            };
            match (&outcome, decision) {
                (Outcome::Block(stderr), _) => {
                    return Err(HookStop::Refuse(format!("Blocked by a PreToolUse hook ({}): {stderr}", hook.command)))
                }
                // Fail closed: a guard that cannot run does not let the call through.
                (Outcome::NotStarted(why), _) => {
                    return Err(HookStop::Refuse(format!(
                        "Blocked: the PreToolUse hook ({}) could not be started ({why}), so the call is refused",
                        hook.command
                    )))
                }
                (_, "deny") => {
                    return Err(HookStop::Refuse(format!("Denied by a PreToolUse hook ({}): {reason}", hook.command)))
                }
                (_, "ask") => prepared.approval = Some(PreApproval::Ask(reason)),
                (_, "allow") if prepared.approval.is_none() => prepared.approval = Some(PreApproval::Allow(reason)),
                _ => {}
            }
            if let Some(updated @ Value::Object(_)) = outcome.field("updatedInput") {
                args = updated.clone();
                prepared.args = Some(args.clone());
            }
        }
        Ok(prepared)
    }

    /// `PostToolUse`: the result with the hooks' context and block reasons added.
    async fn post_tool_use(&self, names: &[String], args: &Value, result: Value, cancel: &CancellationToken) -> Value {
        let fields = json!({"tool_input": args, "tool_response": &result});
        let (mut context, mut feedback) = (Vec::new(), Vec::new());
        for (_, outcome) in self.fire(Event::PostToolUse, Some(names), fields, cancel).await {
            feedback.extend(outcome.blocked());
            context.extend(outcome.context(false));
        }
        if context.is_empty() && feedback.is_empty() {
            return result;
        }
        let mut result = match result {
            Value::Object(fields) => fields,
            Value::Null => Map::new(),
            other => Map::from_iter([("content".to_string(), other)]),
        };
        if !context.is_empty() {
            result.insert("hook_context".into(), json!(context.join("\n\n")));
        }
        if !feedback.is_empty() {
            result.insert("hook_feedback".into(), json!(feedback.join("\n\n")));
        }
        Value::Object(result)
    }
}
