//! The `Toolbox`: tools the model can call, their aliases, and before/after hooks.
//!
//! Runs one call as ARCHITECTURE.md ("A tool call") says: resolve the name, validate the arguments
//! (each schema is compiled once: see `tool.rs`), run the prepare hooks (which may
//! change the arguments or have a say on approval), then global then per-tool before
//! hooks, the handler, then after hooks, and wrap the result into a `ToolResult`. Failures
//! and panics anywhere in that chain become a result; nothing here can take the agent down.
//! Calls may run at the same time (`agent/batch.rs`, sub-agents); their hooks up to the
//! handler run one call at a time (`admission`), so approvals are asked one at a time.

use super::tool::{PreApproval, Tool, ToolContext};
use crate::panics::catch;
use crate::paths::{self, ResolvedPath};
use crate::protocol::{ToolResult, ToolSpec};
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

/// The call a hook is asked about: the tool (canonical, with its self-description) and
/// the arguments.
#[derive(Clone)]
pub struct HookCall {
    pub tool: Arc<Tool>,
    pub args: Value,
    pub context: ToolContext,
}

impl HookCall {
    /// The tool's canonical name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }
}

/// Why a before hook stopped a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookStop {
    /// The hook's answer: the call may not run; the result is just this message.
    Refuse(String),
    /// The hook itself failed: reported like a failing handler, with the tool name and
    /// the arguments.
    Fail(String),
}

/// What a prepare hook returns for a call it lets through.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prepared {
    /// Arguments to run the call with instead of the model's (validated again).
    pub args: Option<Value>,
    /// A say on whether the call needs the user's approval (the gate reads it).
    pub approval: Option<PreApproval>,
}

/// A prepare hook: runs first, once the arguments are valid; may refuse the call, change
/// its arguments or have a say on its approval (`Prepared`).
pub type PrepareHook = Arc<dyn Fn(HookCall) -> BoxFuture<'static, Result<Prepared, HookStop>> + Send + Sync>;

/// A before hook: `Ok(())` lets the call through, `Err(stop)` refuses it or fails it.
pub type BeforeHook = Arc<dyn Fn(HookCall) -> BoxFuture<'static, Result<(), HookStop>> + Send + Sync>;
/// An after hook: receives the result so far and returns the result to keep.
pub type AfterHook = Arc<dyn Fn(HookCall, Value) -> BoxFuture<'static, anyhow::Result<Value>> + Send + Sync>;

/// A call past its prepare hooks, ready to run (`Toolbox::prepare_call`).
pub struct ReadyCall {
    tool: Arc<Tool>,
    args: Value,
    context: ToolContext,
    /// The admission, held from the prepare hooks until the before hooks have run.
    admitted: tokio::sync::OwnedMutexGuard<()>,
}

impl ReadyCall {
    /// The arguments it runs with: the model's, or what a prepare hook replaced them with.
    pub fn args(&self) -> &Value {
        &self.args
    }
}

/// Tools, aliases and hooks.
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Vec<Arc<Tool>>,
    index: HashMap<String, usize>,
    prepare: Vec<PrepareHook>,
    before: Vec<(Option<String>, BeforeHook)>,
    after: Vec<(Option<String>, AfterHook)>,
    /// Held while a call's prepare and before hooks run, so calls running at the same time
    /// (a batch, sub-agents) are admitted — and the user asked about them — one at a time,
    /// in the order they came. Shared by the toolboxes cloned from this one.
    admission: Arc<tokio::sync::Mutex<()>>,
}

impl Toolbox {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing any tool of the same name. Constant time per tool (a plugin
    /// may add tens of thousands): only replacing a tool whose aliases changed re-indexes.
    pub fn add(&mut self, tool: Tool) {
        let tool = Arc::new(tool);
        let existing = self.index.get(&tool.name).copied().filter(|&i| self.tools[i].name == tool.name);
        match existing {
            Some(i) => {
                let same_aliases = self.tools[i].aliases == tool.aliases;
                self.tools[i] = tool;
                if !same_aliases {
                    self.reindex();
                }
            }
            None => {
                let i = self.tools.len();
                for alias in &tool.aliases {
                    // Canonical names win over another tool's alias.
                    let taken = self.index.get(alias).is_some_and(|&j| self.tools[j].name == *alias);
                    if !taken {
                        self.index.insert(alias.clone(), i);
                    }
                }
                self.index.insert(tool.name.clone(), i);
                self.tools.push(tool);
            }
        }
    }

    /// Adds many tools (each replacing any tool of its name), indexing once: adding a
    /// server's 20,000 tools one `add` at a time would index 20,000 times.
    pub fn add_all(&mut self, tools: impl IntoIterator<Item = Tool>) {
        for tool in tools {
            let tool = Arc::new(tool);
            match self.index.get(&tool.name).copied().filter(|&i| self.tools[i].name == tool.name) {
                Some(i) => self.tools[i] = tool,
                None => {
                    self.index.insert(tool.name.clone(), self.tools.len());
                    self.tools.push(tool);
                }
            }
        }
        self.reindex();
    }

    /// Removes every tool named in `names` (canonical names), indexing once.
    pub fn remove_all(&mut self, names: &[String]) {
        if names.is_empty() {
            return;
        }
        let names: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        self.tools.retain(|t| !names.contains(t.name.as_str()));
        self.reindex();
    }

    /// Removes a tool by canonical name; `false` when there was none.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.name != name);
        if self.tools.len() != before {
            self.reindex();
        }
        self.tools.len() != before
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

    /// A prepare hook for every tool: run in the order added, before the before hooks,
    /// each seeing the arguments the one before left (`Prepared`).
    pub fn prepare<F, Fut>(&mut self, hook: F)
    where
        F: Fn(HookCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Prepared, HookStop>> + Send + 'static,
    {
        self.prepare.push(Arc::new(move |c| hook(c).boxed()));
    }

    /// A before hook for every tool (`None`) or for one tool by canonical name;
    /// `Err(message)` refuses the call.
    pub fn before<F, Fut>(&mut self, tool: Option<&str>, hook: F)
    where
        F: Fn(HookCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        self.before_stopping(tool, move |c| hook(c).map(|r| r.map_err(HookStop::Refuse)));
    }

    /// A before hook that can also fail in its own right (`HookStop::Fail`), e.g. one
    /// written in a plugin language whose code may raise.
    pub fn before_stopping<F, Fut>(&mut self, tool: Option<&str>, hook: F)
    where
        F: Fn(HookCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), HookStop>> + Send + 'static,
    {
        self.before.push((tool.map(str::to_string), Arc::new(move |c| hook(c).boxed())));
    }

    /// An after hook for every tool (`None`) or for one tool by canonical name.
    pub fn after<F, Fut>(&mut self, tool: Option<&str>, hook: F)
    where
        F: Fn(HookCall, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        self.after.push((tool.map(str::to_string), Arc::new(move |c, v| hook(c, v).boxed())));
    }

    pub fn tools(&self) -> &[Arc<Tool>] {
        &self.tools
    }

    /// The tool a name or alias resolves to.
    pub fn get(&self, name: &str) -> Option<&Arc<Tool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(|t| t.spec()).collect()
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

    /// A call in one line, as the tool summarises it (arguments as JSON for an unknown tool).
    pub fn summarize(&self, name: &str, args: &Value) -> String {
        match self.get(name) {
            Some(tool) => tool.summarize(args),
            None => super::tool::generic_summary(args),
        }
    }

    /// Runs one call and returns the result sent back to the model.
    pub async fn run(&self, name: &str, args: Value, context: ToolContext) -> ToolResult {
        match self.prepare_call(name, args, context).await {
            Ok(call) => self.run_prepared(call).await,
            Err(result) => result,
        }
    }

    /// The first steps of a call: resolve the name, validate the arguments and run the
    /// prepare hooks. `Ok` is the call as it will run (its arguments may be a hook's);
    /// `Err` the result that ends it before anything else runs.
    pub async fn prepare_call(&self, name: &str, args: Value, context: ToolContext) -> Result<ReadyCall, ToolResult> {
        let Some(tool) = self.get(name).cloned() else {
            let available = self.names().join(", ");
            return Err(ToolResult::failure(format!("unknown tool: {name:?}. Available: {available}")));
        };
        tool.validate(&args).map_err(ToolResult::failure)?;
        // Held until the before hooks have run (`run_prepared`): one call at a time asks.
        let admitted = self.admission.clone().lock_owned().await;
        let (args, context) = self.prepared(&tool, args, context).await?;
        Ok(ReadyCall { tool, args, context, admitted })
    }

    /// The rest of a call `prepare_call` let through: before hooks, the handler, after
    /// hooks, the result wrapped.
    pub async fn run_prepared(&self, call: ReadyCall) -> ToolResult {
        let ReadyCall { tool, args, context, admitted } = call;
        let context = context.with_paths(resolve_paths(&tool, &args));
        let call = HookCall { tool: tool.clone(), args: args.clone(), context: context.clone() };
        let fail = |message: String| failure_with(message, &tool.name, &args);

        for hook in self.hooks_for(&self.before, &tool.name) {
            match catch(hook(call.clone())).await {
                Ok(Ok(())) => {}
                Ok(Err(HookStop::Refuse(refusal))) => return ToolResult::failure(refusal),
                Ok(Err(HookStop::Fail(message))) => return fail(message),
                Err(panic) => return fail(panic),
            }
        }
        drop(admitted);
        let mut result = match catch((tool.handler())(args.clone(), context)).await {
            Ok(Ok(value)) => value,
            Ok(Err(error)) => return fail(format!("{error:#}")),
            Err(panic) => return fail(panic),
        };
        for hook in self.hooks_for(&self.after, &tool.name) {
            result = match catch(hook(call.clone(), result)).await {
                Ok(Ok(value)) => value,
                Ok(Err(error)) => return fail(format!("{error:#}")),
                Err(panic) => return fail(panic),
            };
        }
        ToolResult::from_value(result)
    }

    /// Runs the prepare hooks: the arguments to go on with (validated again when one
    /// changed them) and the context with their say on approval (a later hook's wins), or
    /// the result that ends the call.
    async fn prepared(
        &self,
        tool: &Arc<Tool>,
        mut args: Value,
        context: ToolContext,
    ) -> Result<(Value, ToolContext), ToolResult> {
        let mut approval = None;
        for hook in &self.prepare {
            let call = HookCall { tool: tool.clone(), args: args.clone(), context: context.clone() };
            match catch(hook(call)).await {
                Ok(Ok(prepared)) => {
                    if let Some(changed) = prepared.args {
                        tool.validate(&changed).map_err(|e| {
                            ToolResult::failure(format!("a hook changed the arguments into invalid ones: {e}"))
                        })?;
                        args = changed;
                    }
                    approval = prepared.approval.or(approval);
                }
                Ok(Err(HookStop::Refuse(refusal))) => return Err(ToolResult::failure(refusal)),
                Ok(Err(HookStop::Fail(message))) | Err(message) => {
                    return Err(failure_with(message, &tool.name, &args))
                }
            }
        }
        Ok((args, context.with_pre_approval(approval)))
    }

    /// Runs the before hooks (the global ones — the permissions gate among them — then
    /// `tool`'s own) for a call that is not the model's: a file the user mentions is
    /// checked as a call of a read-only tool with one path argument. The path arguments
    /// are resolved as `run` resolves them; `Ok` is the context holding them (open those
    /// paths), `Err` the refusal.
    pub async fn check(&self, tool: Arc<Tool>, args: Value, context: ToolContext) -> Result<ToolContext, String> {
        let context = context.with_paths(resolve_paths(&tool, &args));
        let call = HookCall { tool: tool.clone(), args, context: context.clone() };
        for hook in self.hooks_for(&self.before, &tool.name) {
            match catch(hook(call.clone())).await {
                Ok(Ok(())) => {}
                Ok(Err(HookStop::Refuse(message) | HookStop::Fail(message))) | Err(message) => return Err(message),
            }
        }
        Ok(context)
    }

    /// Global hooks first, then this tool's, each in the order added.
    fn hooks_for<'a, H>(&'a self, hooks: &'a [(Option<String>, H)], tool: &str) -> Vec<&'a H> {
        let global = hooks.iter().filter(|(t, _)| t.is_none());
        let own = hooks.iter().filter(|(t, _)| t.as_deref() == Some(tool));
        global.chain(own).map(|(_, h)| h).collect()
    }
}

/// The call's path arguments resolved once (`paths::resolve`), for every hook and the
/// handler to share.
fn resolve_paths(tool: &Tool, args: &Value) -> Vec<ResolvedPath> {
    let mut arguments = tool.path_arguments(args).peekable();
    if arguments.peek().is_none() {
        return Vec::new();
    }
    let (base, home) = (paths::working_dir(), paths::home());
    arguments
        .map(|(arg, given)| ResolvedPath {
            arg: arg.to_string(),
            given: given.to_string(),
            real: paths::resolve(given, &base, home.as_deref()),
        })
        .collect()
}

/// `{"error": message, "name": tool, "args": args, "ok": false}`.
fn failure_with(message: String, name: &str, args: &Value) -> ToolResult {
    ToolResult::from_value(json!({"error": message, "name": name, "args": args}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, aliases: &[&str]) -> Tool {
        Tool::builtin(name, "", json!({"type": "object"}), |_, _| async { Ok(json!(null)) }).with_aliases(aliases)
    }

    #[test]
    fn adding_one_by_one_resolves_like_a_full_reindex() {
        let mut toolbox = Toolbox::new();
        toolbox.add(tool("a", &["x", "b"]));
        toolbox.add(tool("b", &["y"]));
        toolbox.add(tool("c", &["x", "a"]));
        toolbox.add(tool("a", &["z"])); // replaced: its old aliases go
        let mut reindexed = toolbox.clone();
        reindexed.reindex();
        for name in ["a", "b", "c", "x", "y", "z", "q"] {
            let (got, want) = (toolbox.resolve(name), reindexed.resolve(name));
            assert_eq!(got, want, "{name}");
        }
        assert_eq!(toolbox.resolve("x"), "c", "a later tool's alias wins over an earlier one's");
        assert_eq!(toolbox.resolve("b"), "b", "a canonical name wins over an alias");
        assert_eq!(toolbox.names(), ["a", "b", "c"]);
    }

    fn described(name: &str, description: &str) -> Tool {
        Tool::new(name, description, json!({"type": "object"}), |_: Value, _: ToolContext| async { Ok(json!({})) })
            .unwrap()
    }

    #[test]
    fn adds_and_removes_in_batches_like_one_at_a_time() {
        let mut toolbox = Toolbox::new();
        toolbox.add(described("a", "first").with_aliases(&["b1"]));
        toolbox.add_all((0..1000).map(|i| described(&format!("b{i}"), "")).chain([described("a", "second")]));
        assert_eq!(toolbox.names().len(), 1001);
        assert_eq!(toolbox.get("a").unwrap().description, "second");
        // A canonical name wins over another tool's alias.
        assert_eq!(toolbox.get("b1").unwrap().name, "b1");
        let gone: Vec<String> = (0..1000).map(|i| format!("b{i}")).collect();
        toolbox.remove_all(&gone);
        assert_eq!(toolbox.names(), ["a"]);
        assert!(toolbox.get("b5").is_none());
    }
}
