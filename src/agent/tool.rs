//! A `Tool`: what the model can call, and what it says about itself. Besides its schema
//! (compiled once: when a tool from a plugin or a server is made, so a bad schema is an
//! error there; at its first call for the built-in tools, whose schemas are ours and
//! checked by a test, so start-up compiles none), description, aliases and handler, a tool
//! describes itself so that permissions, the tool log, the line REPL and the approval
//! dialog never need to know which tool they are looking at: whether it only reads, a
//! one-line summary of a call, a preview of what a call would do (the command, the diff),
//! which argument holds a shell command, if any, and which arguments name files or
//! directories. What a handler sees of its call, `ToolContext`, is `tool/context.rs`.

mod context;

pub use context::{FileAccess, Persona, PreApproval, SubAgent, SubReport, ToolContext};

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;
use std::future::Future;
use std::sync::{Arc, OnceLock};

pub type ToolFuture = BoxFuture<'static, anyhow::Result<Value>>;
pub type Handler = Arc<dyn Fn(Value, ToolContext) -> ToolFuture + Send + Sync>;
/// A one-line summary of a call's arguments.
pub type Summarizer = Arc<dyn Fn(&Value) -> String + Send + Sync>;
/// What a call would do, shown before approval; `Err` refuses the call with that message.
/// It gets the call's context: the resolved paths and the front end's file access (a
/// preview of a change shows the editor's text of the file, as the call would change it).
pub type Previewer = Arc<dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<Preview, String>> + Send + Sync>;

/// How a preview reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreviewKind {
    /// A shell command the call would run.
    Command,
    /// A unified diff of the change the call would make.
    Diff,
    /// The call's arguments (tools with nothing better to show).
    Arguments,
    /// Not a tool call: whether to trust a project's own settings. Front ends offer yes /
    /// no / not now (no "always", no reason: no model is involved); "no" is answered
    /// `Approval::NoBecause(NEVER_ASK_AGAIN)`, "not now" `Approval::No`.
    Trust,
}

/// What a call would do, for the user to approve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preview {
    pub kind: PreviewKind,
    pub text: String,
}

/// An error building a tool.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    #[error("tool {name}: invalid JSON Schema: {message}")]
    InvalidSchema { name: String, message: String },
}

/// A tool: its schema, description, aliases, handler and self-description.
#[derive(Clone)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub aliases: Vec<String>,
    /// Only looks, never changes anything: allowed without asking by default.
    pub read_only: bool,
    /// May run at the same time as the other such calls of one model response (besides
    /// read-only tools, which always may).
    concurrent: bool,
    /// Runs a sub-agent through its `ToolContext`: never offered inside a sub-agent.
    runs_agents: bool,
    /// Changes only the files its path arguments name (write, edit): what accept-edits
    /// mode lets run unasked inside the project.
    pub edits_files: bool,
    /// The argument that holds a shell command (permission rules match it).
    command_arg: Option<String>,
    /// The arguments that name files or directories (permissions check where they point).
    path_args: Vec<String>,
    /// The argument that holds a URL (permission rules match its host).
    url_arg: Option<String>,
    summary: Option<Summarizer>,
    preview: Option<Previewer>,
    handler: Handler,
    /// The compiled schema (or why it does not compile), once compiled.
    validator: Arc<OnceLock<Result<jsonschema::Validator, String>>>,
}

impl Tool {
    pub fn new<F, Fut>(name: &str, description: &str, parameters: Value, handler: F) -> Result<Tool, ToolboxError>
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        let tool = Tool::builtin(name, description, parameters, handler);
        match tool.compiled() {
            Ok(_) => Ok(tool),
            Err(message) => Err(ToolboxError::InvalidSchema { name: name.to_string(), message: message.clone() }),
        }
    }

    /// A built-in tool: like `new`, but its schema is compiled at its first call, not now
    /// (compiling every schema cost start-up ~1 MB and the time to do it). Only for schemas
    /// of our own, which `tools::tests` compiles.
    pub fn builtin<F, Fut>(name: &str, description: &str, parameters: Value, handler: F) -> Tool
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        Tool {
            name: name.to_string(),
            description: description.to_string(),
            parameters,
            aliases: Vec::new(),
            read_only: false,
            concurrent: false,
            runs_agents: false,
            edits_files: false,
            command_arg: None,
            path_args: Vec::new(),
            url_arg: None,
            summary: None,
            preview: None,
            handler: Arc::new(move |args, ctx| handler(args, ctx).boxed()),
            validator: Arc::new(OnceLock::new()),
        }
    }

    /// The compiled schema, compiling it on first use.
    pub fn compiled(&self) -> Result<&jsonschema::Validator, &String> {
        self.validator.get_or_init(|| jsonschema::validator_for(&self.parameters).map_err(|e| e.to_string())).as_ref()
    }

    /// Adds names this tool also answers to.
    pub fn with_aliases(mut self, aliases: &[&str]) -> Self {
        self.aliases.extend(aliases.iter().map(|a| a.to_string()));
        self
    }

    /// Marks the tool as one that only looks.
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// Declares that calls of this tool may run at the same time as the other calls of a
    /// response that may (read-only tools always may).
    pub fn concurrent(mut self) -> Self {
        self.concurrent = true;
        self
    }

    /// Whether a call may run together with the other such calls of its response.
    pub fn runs_concurrently(&self) -> bool {
        self.read_only || self.concurrent
    }

    /// Declares that the tool runs a sub-agent: its calls get a `SubAgent` in their context
    /// and run concurrently, and a sub-agent's toolbox leaves the tool out.
    pub fn runs_agents(mut self) -> Self {
        self.runs_agents = true;
        self.concurrent = true;
        self
    }

    /// Whether the tool runs sub-agents (`runs_agents`).
    pub fn spawns_agents(&self) -> bool {
        self.runs_agents
    }

    /// Marks it as changing only the files its path arguments name (`edits_files`).
    pub fn edits_files(mut self) -> Self {
        self.edits_files = true;
        self
    }

    /// Summarises a call by one string argument (`path`, `pattern`).
    pub fn summarized_by(self, arg: &str) -> Self {
        let arg = arg.to_string();
        self.with_summary(move |args| args.get(&arg).and_then(Value::as_str).unwrap_or_default().to_string())
    }

    /// Summarises a call with `f`.
    pub fn with_summary(mut self, f: impl Fn(&Value) -> String + Send + Sync + 'static) -> Self {
        self.summary = Some(Arc::new(f));
        self
    }

    /// Declares that argument `arg` holds a shell command: the summary shows it, and
    /// permission rules with command prefixes apply to it.
    pub fn runs_commands(mut self, arg: &str) -> Self {
        self.command_arg = Some(arg.to_string());
        if self.summary.is_none() {
            self = self.summarized_by(arg);
        }
        self
    }

    /// Declares that argument `arg` holds a URL: the summary shows it, and permission rules
    /// with host patterns (`"docs.rs"`, `"*.python.org"`) apply to its host.
    pub fn reaches_urls(mut self, arg: &str) -> Self {
        self.url_arg = Some(arg.to_string());
        if self.summary.is_none() {
            self = self.summarized_by(arg);
        }
        self
    }

    /// Declares the arguments that name files or directories the call reads or changes
    /// (`path`): the permissions gate asks before the tool reaches outside the project.
    pub fn touches_paths(mut self, args: &[&str]) -> Self {
        self.path_args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// Shows what a call would do before it is approved.
    pub fn with_preview<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Preview, String>> + Send + 'static,
    {
        self.preview = Some(Arc::new(move |args, ctx| f(args, ctx).boxed()));
        self
    }

    pub fn spec(&self) -> crate::protocol::ToolSpec {
        crate::protocol::ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
        }
    }

    /// Checks arguments against the schema; the message follows ARCHITECTURE.md ("A tool call", step 2).
    pub fn validate(&self, args: &Value) -> Result<(), String> {
        match self.compiled() {
            Ok(validator) => validation_message(validator, args).map_or(Ok(()), Err),
            Err(message) => Err(format!("tool {} has an invalid JSON Schema: {message}", self.name)),
        }
    }

    /// The call in one line: the tool's own summary, else the arguments as compact JSON
    /// (nothing for no arguments). Not sanitised: front ends do that.
    pub fn summarize(&self, args: &Value) -> String {
        match &self.summary {
            Some(summary) => summary(args),
            None => generic_summary(args),
        }
    }

    /// The shell command a call would run, for tools that run commands.
    /// The host a call reaches (`docs.rs`, `127.0.0.1:8080` when a port is given), which
    /// permission rules for the tool match; `Some("")` when the URL has none.
    pub fn url_host(&self, args: &Value) -> Option<String> {
        let url = args.get(self.url_arg.as_deref()?).and_then(Value::as_str).unwrap_or_default();
        let parsed = reqwest::Url::parse(url.trim()).ok();
        Some(parsed.map(|u| host_of(&u)).unwrap_or_default())
    }

    pub fn shell_command<'a>(&self, args: &'a Value) -> Option<&'a str> {
        self.command_arg.as_deref().map(|arg| args.get(arg).and_then(Value::as_str).unwrap_or_default())
    }

    /// The files or directories a call names, as given (relative to the working directory
    /// or absolute); arguments left out are not listed.
    pub fn paths<'a>(&self, args: &'a Value) -> Vec<&'a str> {
        self.path_args.iter().filter_map(|arg| args.get(arg).and_then(Value::as_str)).collect()
    }

    /// The path arguments of a call (argument name, value as given), for the toolbox to
    /// resolve; empty values are left out.
    pub fn path_arguments<'a>(&'a self, args: &'a Value) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.path_args
            .iter()
            .filter_map(|arg| Some((arg.as_str(), args.get(arg).and_then(Value::as_str)?)))
            .filter(|(_, value)| !value.is_empty())
    }

    /// Whether permission rules with command prefixes apply to this tool.
    pub fn takes_commands(&self) -> bool {
        self.command_arg.is_some()
    }

    /// Whether permission rules for this tool hold host patterns (`reaches_urls`).
    pub fn takes_hosts(&self) -> bool {
        self.url_arg.is_some()
    }

    /// What a call would do: the tool's own preview, else the command (for tools that run
    /// commands) or the arguments.
    pub async fn preview(&self, args: &Value) -> Result<Preview, String> {
        self.preview_in(args, &ToolContext::detached()).await
    }

    /// `preview` of a call about to run in `ctx` (its resolved paths, its file access; a
    /// preview of a change may report it through the context: `ToolContext::file_change`).
    pub async fn preview_in(&self, args: &Value, ctx: &ToolContext) -> Result<Preview, String> {
        if let Some(preview) = &self.preview {
            return preview(args.clone(), ctx.clone()).await;
        }
        Ok(match self.shell_command(args) {
            Some(command) => Preview { kind: PreviewKind::Command, text: command.to_string() },
            None => {
                Preview { kind: PreviewKind::Arguments, text: serde_json::to_string_pretty(args).unwrap_or_default() }
            }
        })
    }

    pub(crate) fn handler(&self) -> &Handler {
        &self.handler
    }
}

/// A call without a summary of its own: its arguments as compact JSON, or nothing.
pub fn generic_summary(args: &Value) -> String {
    if args.as_object().is_some_and(|o| o.is_empty()) || args.is_null() {
        String::new()
    } else {
        args.to_string()
    }
}

/// Builds one readable message from every schema violation, or `None` when valid.
fn validation_message(validator: &jsonschema::Validator, args: &Value) -> Option<String> {
    let mut missing: Vec<(String, Vec<String>)> = Vec::new();
    let mut other: Vec<String> = Vec::new();
    for error in validator.iter_errors(args) {
        let path = error.instance_path().as_str().to_string();
        let place = if path.is_empty() { "root".to_string() } else { format!("`{path}`") };
        match error.kind() {
            jsonschema::error::ValidationErrorKind::Required { property } => {
                let name = property.as_str().map(str::to_string).unwrap_or_else(|| property.to_string());
                match missing.iter_mut().find(|(p, _)| *p == place) {
                    Some((_, names)) => names.push(name),
                    None => missing.push((place, vec![name])),
                }
            }
            _ => other.push(format!("value at {place} is invalid: {error}")),
        }
    }
    let mut parts: Vec<String> = missing
        .into_iter()
        .map(|(place, names)| format!("object at {place} is missing required properties: {}", names.join(", ")))
        .collect();
    parts.extend(other);
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A URL's host as permission rules see it: lower case, with the port when one is written.
pub fn host_of(url: &reqwest::Url) -> String {
    let host = url.host_str().unwrap_or_default().trim_end_matches('.').to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bad_schema() -> Value {
        json!({"type": "object", "properties": {"n": {"type": "no-such-type"}}})
    }

    #[test]
    fn a_tool_from_outside_with_a_bad_schema_is_refused_when_made() {
        let made = Tool::new("t", "", bad_schema(), |_, _| async { Ok(Value::Null) });
        assert!(matches!(made, Err(ToolboxError::InvalidSchema { .. })));
    }

    #[test]
    fn a_builtin_compiles_its_schema_at_first_use_and_a_bad_one_fails_the_call() {
        let tool = Tool::builtin("t", "", bad_schema(), |_, _| async { Ok(Value::Null) });
        assert!(tool.validator.get().is_none(), "nothing compiled when made");
        let message = tool.validate(&json!({"n": 1})).unwrap_err();
        assert!(message.contains("tool t has an invalid JSON Schema"), "{message}");
        let good =
            Tool::builtin("g", "", json!({"type": "object", "required": ["n"]}), |_, _| async { Ok(Value::Null) });
        assert!(good.validate(&json!({})).unwrap_err().contains("n"));
        assert!(good.validator.get().is_some(), "compiled once, kept");
    }
}
