//! The tool bridge: a `toolbox:add{...}` table becomes a kernel `Tool` (schema from
//! `params`/`required`, aliases, `read_only`, a Lua summary), and Lua functions become its
//! handler and the toolbox's before/after hooks. Every call goes through the file's
//! `Sandbox` (the plugin's own thread), so the kernel's tool flow (ARCHITECTURE.md, "A tool call") applies unchanged:
//! a raising handler or hook is a failure carrying the message, tool name and arguments;
//! a before hook returning `{error = ...}` refuses the call.

use super::sandbox::{off_async, LuaFn, Sandbox};
use super::values::{from_lua, message, raise, to_lua};
use crate::agent::tool::generic_summary;
use crate::agent::{HookCall, HookStop, Tool, ToolContext, ToolboxError};
use futures::future::BoxFuture;
use mlua::{Function, Lua, Table, Value as LuaValue};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A tool as a plugin declared it.
pub struct ToolDecl {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    pub aliases: Vec<String>,
    pub read_only: bool,
    pub summary: Option<LuaFn>,
    pub handler: LuaFn,
}

/// Reads `{name, description, params, required, aliases, read_only, summary, handler}`.
pub fn declare(lua: &Lua, spec: &Table) -> mlua::Result<ToolDecl> {
    let name: Option<String> = spec.get("name")?;
    let name = name.filter(|n| !n.trim().is_empty()).ok_or_else(|| raise(lua, "toolbox:add needs a name"))?;
    let handler: Option<Function> = spec.get("handler")?;
    let handler = handler.ok_or_else(|| raise(lua, format!("tool {name}: toolbox:add needs a handler function")))?;
    let mut properties = BTreeMap::new();
    if let Some(params) = spec.get::<Option<Table>>("params")? {
        for pair in params.pairs::<String, LuaValue>() {
            let (param, schema) = pair?;
            properties.insert(param, from_lua(lua, schema)?);
        }
    }
    let required: Vec<String> = spec.get::<Option<Vec<String>>>("required")?.unwrap_or_default();
    let parameters = json!({
        "type": "object",
        "properties": Map::from_iter(properties),
        "required": required,
    });
    Ok(ToolDecl {
        name,
        description: spec.get::<Option<String>>("description")?.unwrap_or_default(),
        parameters,
        aliases: spec.get::<Option<Vec<String>>>("aliases")?.unwrap_or_default(),
        read_only: spec.get::<Option<bool>>("read_only")?.unwrap_or(false),
        summary: spec.get::<Option<Function>>("summary")?.map(LuaFn::hold).transpose()?,
        handler: LuaFn::hold(handler)?,
    })
}

/// The kernel tool for a declaration, calling into `sandbox`.
pub fn build(decl: ToolDecl, sandbox: &Arc<Sandbox>) -> Result<Tool, ToolboxError> {
    let (runner, handler) = (sandbox.clone(), decl.handler);
    let mut tool = Tool::new(&decl.name, &decl.description, decl.parameters, move |args: Value, ctx: ToolContext| {
        let (sandbox, handler) = (runner.clone(), handler.clone());
        async move {
            let called = sandbox.run(move |lua| {
                let value: LuaValue = handler.get()?.call(to_lua(lua, &args)?)?;
                from_lua(lua, value)
            });
            // An interrupt does not wait for plugin code: the call is left to finish (or be
            // abandoned at its deadline) on the plugin's thread.
            tokio::select! {
                result = called => result.map_err(|e| anyhow::anyhow!(message(&e))),
                _ = ctx.cancel.cancelled() => Err(anyhow::anyhow!("interrupted")),
            }
        }
    })?;
    let aliases: Vec<&str> = decl.aliases.iter().map(String::as_str).collect();
    tool = tool.with_aliases(&aliases);
    if decl.read_only {
        tool = tool.read_only();
    }
    if let Some(summary) = decl.summary {
        let sandbox = sandbox.clone();
        tool = tool.with_summary(move |args| {
            let (summary, owned) = (summary.clone(), args.clone());
            let line =
                off_async(|| sandbox.call(move |lua| summary.get()?.call::<Option<String>>(to_lua(lua, &owned)?)));
            line.ok().flatten().unwrap_or_else(|| generic_summary(args))
        });
    }
    Ok(tool)
}

/// A before hook: `fn(args, tool_name)` returning nothing lets the call through,
/// `{error = message}` refuses it, and raising fails it.
pub fn before_hook(
    sandbox: Arc<Sandbox>,
    hook: LuaFn,
) -> impl Fn(HookCall) -> BoxFuture<'static, Result<(), HookStop>> + Send + Sync + 'static {
    move |call: HookCall| {
        let (sandbox, hook) = (sandbox.clone(), hook.clone());
        Box::pin(async move {
            let (name, args, cancel) = (call.name().to_string(), call.args, call.context.cancel);
            let answer = sandbox.run(move |lua| {
                let value: LuaValue = hook.get()?.call((to_lua(lua, &args)?, name))?;
                from_lua(lua, value)
            });
            let answer = tokio::select! {
                answer = answer => answer,
                _ = cancel.cancelled() => return Err(HookStop::Fail("interrupted".into())),
            };
            match answer {
                Ok(value) => match value.get("error") {
                    Some(Value::String(refusal)) => Err(HookStop::Refuse(refusal.clone())),
                    Some(other) if !other.is_null() => Err(HookStop::Refuse(other.to_string())),
                    _ => Ok(()),
                },
                Err(error) => Err(HookStop::Fail(message(&error))),
            }
        })
    }
}

/// An after hook: `fn(args, result, tool_name)` returning nothing keeps the result, a value
/// replaces it, and raising fails the call.
pub fn after_hook(
    sandbox: Arc<Sandbox>,
    hook: LuaFn,
) -> impl Fn(HookCall, Value) -> BoxFuture<'static, anyhow::Result<Value>> + Send + Sync + 'static {
    move |call: HookCall, result: Value| {
        let (sandbox, hook) = (sandbox.clone(), hook.clone());
        Box::pin(async move {
            let (name, args, cancel) = (call.name().to_string(), call.args, call.context.cancel);
            let answer = sandbox.run(move |lua| {
                let value: LuaValue = hook.get()?.call((to_lua(lua, &args)?, to_lua(lua, &result)?, name))?;
                Ok(if value.is_nil() { result } else { from_lua(lua, value)? })
            });
            tokio::select! {
                answer = answer => answer.map_err(|e| anyhow::anyhow!(message(&e))),
                _ = cancel.cancelled() => Err(anyhow::anyhow!("interrupted")),
            }
        })
    }
}
