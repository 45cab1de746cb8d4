//! The `Toolbox`: tools the model can call, their aliases, and before/after hooks.
//!
//! Runs one call exactly as DESIGN §3 says: resolve the name, validate the arguments
//! (validators are compiled once, when a tool is added), run global then per-tool before
//! hooks, the handler, then after hooks, and wrap the result with `"ok"`. Failures and
//! panics anywhere in that chain become a result; nothing here can take the agent down.

use crate::agent::output::{AgentEvent, Output};
use futures::future::BoxFuture;
use futures::FutureExt;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What a handler or hook sees of the call it serves.
#[derive(Clone)]
pub struct ToolContext {
    /// The model's id for this call.
    pub call_id: String,
    /// Cancelled when the user interrupts the turn; long-running tools must watch it.
    pub cancel: CancellationToken,
    output: Option<Arc<dyn Output>>,
}

impl ToolContext {
    pub fn new(call_id: impl Into<String>, cancel: CancellationToken, output: Option<Arc<dyn Output>>) -> Self {
        ToolContext { call_id: call_id.into(), cancel, output }
    }

    /// A context for running a tool outside a turn (tests, scripts).
    pub fn detached() -> Self {
        Self::new("", CancellationToken::new(), None)
    }

    /// Streams a piece of live output (e.g. from `execute`) to whoever is watching.
    pub fn progress(&self, chunk: &str) {
        if let Some(output) = &self.output {
            output.emit(AgentEvent::ToolOutput { id: self.call_id.clone(), chunk: chunk.to_string() });
        }
    }
}

pub type ToolFuture = BoxFuture<'static, anyhow::Result<Value>>;
pub type Handler = Arc<dyn Fn(Value, ToolContext) -> ToolFuture + Send + Sync>;

/// The call a hook is asked about: the canonical tool name and its arguments.
#[derive(Clone)]
pub struct HookCall {
    pub name: String,
    pub args: Value,
    pub context: ToolContext,
}

/// A before hook: `Ok(())` lets the call through, `Err(message)` refuses it.
pub type BeforeHook = Arc<dyn Fn(HookCall) -> BoxFuture<'static, Result<(), String>> + Send + Sync>;
/// An after hook: receives the result so far and returns the result to keep.
pub type AfterHook = Arc<dyn Fn(HookCall, Value) -> BoxFuture<'static, anyhow::Result<Value>> + Send + Sync>;

/// A tool definition as sent to the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// An error building a tool.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    #[error("tool {name}: invalid JSON Schema: {message}")]
    InvalidSchema { name: String, message: String },
}

/// A tool: its schema (compiled once), description, aliases and handler.
#[derive(Clone)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub aliases: Vec<String>,
    handler: Handler,
    validator: Arc<jsonschema::Validator>,
}

impl Tool {
    pub fn new<F, Fut>(name: &str, description: &str, parameters: Value, handler: F) -> Result<Tool, ToolboxError>
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        let validator = jsonschema::validator_for(&parameters)
            .map_err(|e| ToolboxError::InvalidSchema { name: name.to_string(), message: e.to_string() })?;
        Ok(Tool {
            name: name.to_string(),
            description: description.to_string(),
            parameters,
            aliases: Vec::new(),
            handler: Arc::new(move |args, ctx| handler(args, ctx).boxed()),
            validator: Arc::new(validator),
        })
    }

    /// Adds names this tool also answers to.
    pub fn with_aliases(mut self, aliases: &[&str]) -> Self {
        self.aliases.extend(aliases.iter().map(|a| a.to_string()));
        self
    }

    pub fn spec(&self) -> ToolSpec {
        ToolSpec { name: self.name.clone(), description: self.description.clone(), parameters: self.parameters.clone() }
    }

    /// Checks arguments against the schema; the message follows DESIGN §3.
    pub fn validate(&self, args: &Value) -> Result<(), String> {
        validation_message(&self.validator, args).map_or(Ok(()), Err)
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

/// Tools, aliases and hooks.
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    before: Vec<(Option<String>, BeforeHook)>,
    after: Vec<(Option<String>, AfterHook)>,
}

impl Toolbox {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing any tool of the same name.
    pub fn add(&mut self, tool: Tool) {
        match self.tools.iter().position(|t| t.name == tool.name) {
            Some(i) => self.tools[i] = tool,
            None => self.tools.push(tool),
        }
        self.reindex();
    }

    fn reindex(&mut self) {
        self.index.clear();
        for (i, tool) in self.tools.iter().enumerate() {
            for alias in &tool.aliases {
                self.index.insert(alias.clone(), i);
            }
        }
        // Canonical names win over another tool's alias.
        for (i, tool) in self.tools.iter().enumerate() {
            self.index.insert(tool.name.clone(), i);
        }
    }

    /// A before hook for every tool (`None`) or for one tool by canonical name.
    pub fn before<F, Fut>(&mut self, tool: Option<&str>, hook: F)
    where
        F: Fn(HookCall) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
    {
        self.before.push((tool.map(str::to_string), Arc::new(move |c| hook(c).boxed())));
    }

    /// An after hook for every tool (`None`) or for one tool by canonical name.
    pub fn after<F, Fut>(&mut self, tool: Option<&str>, hook: F)
    where
        F: Fn(HookCall, Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        self.after.push((tool.map(str::to_string), Arc::new(move |c, v| hook(c, v).boxed())));
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(Tool::spec).collect()
    }

    /// Canonical names in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// The name a call resolves to: the canonical name, or `name?` for an unknown tool.
    pub fn resolve(&self, name: &str) -> String {
        match self.get(name) {
            Some(tool) => tool.name.clone(),
            None => format!("{name}?"),
        }
    }

    /// Runs one call and returns the JSON object sent back to the model.
    pub async fn run(&self, name: &str, args: Value, context: ToolContext) -> Value {
        let Some(tool) = self.get(name) else {
            let available = self.names().join(", ");
            return failure(format!("unknown tool: {name:?}. Available: {available}"));
        };
        if let Err(message) = tool.validate(&args) {
            return failure(message);
        }
        let call = HookCall { name: tool.name.clone(), args: args.clone(), context: context.clone() };
        let fail = |message: String| failure_with(message, &tool.name, &args);

        for hook in self.hooks_for(&self.before, &tool.name) {
            match AssertUnwindSafe(Caught(hook(call.clone()))).catch_unwind().await {
                Ok(Ok(())) => {}
                Ok(Err(refusal)) => return failure(refusal),
                Err(panic) => return fail(panic_message(panic)),
            }
        }
        let mut result = match AssertUnwindSafe(Caught((tool.handler)(args.clone(), context))).catch_unwind().await {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => return fail(format!("{error:#}")),
            Err(panic) => return fail(panic_message(panic)),
        };
        for hook in self.hooks_for(&self.after, &tool.name) {
            result = match AssertUnwindSafe(Caught(hook(call.clone(), result))).catch_unwind().await {
                Ok(Ok(value)) => value,
                Ok(Err(error)) => return fail(format!("{error:#}")),
                Err(panic) => return fail(panic_message(panic)),
            };
        }
        wrap(result)
    }

    /// Global hooks first, then this tool's, each in the order added.
    fn hooks_for<'a, H>(&'a self, hooks: &'a [(Option<String>, H)], tool: &str) -> Vec<&'a H> {
        let global = hooks.iter().filter(|(t, _)| t.is_none());
        let own = hooks.iter().filter(|(t, _)| t.as_deref() == Some(tool));
        global.chain(own).map(|(_, h)| h).collect()
    }
}

/// Marks a handler's result: an object with an `error` key failed, anything else succeeded.
pub fn wrap(result: Value) -> Value {
    let mut object = match result {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            let mut map = Map::new();
            map.insert("content".into(), other);
            map
        }
    };
    let ok = !object.contains_key("error");
    object.remove("ok");
    object.insert("ok".into(), Value::Bool(ok));
    Value::Object(object)
}

/// `{"error": message, "ok": false}`.
pub fn failure(message: impl Into<String>) -> Value {
    json!({"error": message.into(), "ok": false})
}

/// `{"error": message, "name": tool, "args": args, "ok": false}`.
fn failure_with(message: String, name: &str, args: &Value) -> Value {
    json!({"error": message, "name": name, "args": args, "ok": false})
}

thread_local! {
    /// How many `Caught` futures are being polled on this thread right now.
    static CATCHING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// True while a tool or hook is running on this thread: a panic here will be caught and
/// turned into a tool result, so a panic hook should neither print it nor restore the
/// terminal.
pub fn panic_is_caught() -> bool {
    CATCHING.with(|c| c.get() > 0)
}

/// Marks the thread as "panics are caught" while the inner future is polled.
struct Caught<F>(F);

struct CatchingMark;

impl CatchingMark {
    fn enter() -> Self {
        CATCHING.with(|c| c.set(c.get() + 1));
        CatchingMark
    }
}

impl Drop for CatchingMark {
    fn drop(&mut self) {
        CATCHING.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

impl<F: std::future::Future + Unpin> std::future::Future for Caught<F> {
    type Output = F::Output;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<F::Output> {
        let _mark = CatchingMark::enter();
        std::pin::Pin::new(&mut self.0).poll(cx)
    }
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("panicked: {text}")
}
