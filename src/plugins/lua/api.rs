//! The Lua API of a plugin file: the `elelem` global (`setup`, `provider`, `version`) and
//! the `session` a setup block receives (`toolbox`, `commands`, `output`, `on`, `turn`,
//! and read access to `conversation`, `context`, `provider`, `cwd`). Lua code only asks;
//! what it asks for is queued as `Registration`s that the file plugin applies to the real
//! `Session` once it holds it (after setup, after each of the file's commands).

use super::events;
use super::mirror::Mirror;
use super::providers::{Endpoint, Wire};
use super::sandbox::LuaFn;
use super::tools::{declare, ToolDecl};
use super::values::{raise, to_lua};
use crate::agent::{AgentEvent, Output};
use mlua::{Function, Lua, Table, UserData, UserDataFields, UserDataMethods, Value as LuaValue};
use parking_lot::Mutex;
use std::sync::Arc;

/// One thing a plugin asked for.
pub enum Registration {
    Tool(ToolDecl),
    /// `tool` is `None` for `"*"`.
    Before {
        tool: Option<String>,
        hook: LuaFn,
    },
    After {
        tool: Option<String>,
        hook: LuaFn,
    },
    Command {
        name: String,
        usage: String,
        description: String,
        handler: LuaFn,
    },
    Observer {
        event: &'static str,
        handler: LuaFn,
    },
    Provider(Endpoint),
    /// A line to dispatch as if typed (`session:turn`).
    Turn(String),
}

/// What one file's Lua code shares with its plugin.
pub struct FileApi {
    pending: Mutex<Vec<Registration>>,
    setups: Mutex<Vec<LuaFn>>,
    output: Arc<dyn Output>,
    mirror: Arc<Mirror>,
}

impl FileApi {
    pub fn new(output: Arc<dyn Output>, mirror: Arc<Mirror>) -> Arc<Self> {
        Arc::new(FileApi { pending: Mutex::default(), setups: Mutex::default(), output, mirror })
    }

    /// The registrations queued so far, in order.
    pub fn take_pending(&self) -> Vec<Registration> {
        std::mem::take(&mut *self.pending.lock())
    }

    /// The setup blocks the file passed to `elelem.setup`.
    pub fn take_setups(&self) -> Vec<LuaFn> {
        std::mem::take(&mut *self.setups.lock())
    }

    fn push(&self, registration: Registration) {
        self.pending.lock().push(registration);
    }
}

/// Installs the `elelem` global.
pub fn install(lua: &Lua, api: &Arc<FileApi>) -> mlua::Result<()> {
    let elelem = lua.create_table()?;
    let setups = api.clone();
    elelem.set(
        "setup",
        lua.create_function(move |_, block: Function| {
            setups.setups.lock().push(LuaFn::hold(block)?);
            Ok(())
        })?,
    )?;
    let providers = api.clone();
    elelem.set(
        "provider",
        lua.create_function(move |lua, spec: Table| {
            providers.push(Registration::Provider(endpoint(lua, &spec)?));
            Ok(())
        })?,
    )?;
    elelem.set("version", env!("CARGO_PKG_VERSION"))?;
    lua.globals().set("elelem", elelem)
}

/// The session object handed to setup blocks.
pub fn session(api: &Arc<FileApi>) -> LuaSession {
    LuaSession(api.clone())
}

fn endpoint(lua: &Lua, spec: &Table) -> mlua::Result<Endpoint> {
    let name: Option<String> = spec.get("name")?;
    let name = name.filter(|n| !n.trim().is_empty()).ok_or_else(|| raise(lua, "elelem.provider needs a name"))?;
    let wire: Option<String> = spec.get("wire")?;
    let wire = wire.as_deref().and_then(Wire::parse).ok_or_else(|| {
        raise(lua, format!("provider {name}: wire must be one of {}, not {:?}", Wire::NAMES, wire.unwrap_or_default()))
    })?;
    Ok(Endpoint {
        name,
        wire,
        base_url: spec.get("base_url")?,
        key_env: spec.get("key_env")?,
        model: spec.get("model")?,
        default: spec.get::<Option<bool>>("default")?.unwrap_or(false),
    })
}

/// `"*"` for every tool, else one tool's name.
fn target(name: String) -> Option<String> {
    (name != "*").then_some(name)
}

pub struct LuaSession(Arc<FileApi>);
struct LuaToolbox(Arc<FileApi>);
struct LuaCommands(Arc<FileApi>);
struct LuaOutput(Arc<FileApi>);

impl UserData for LuaSession {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("toolbox", |_, this| Ok(LuaToolbox(this.0.clone())));
        fields.add_field_method_get("commands", |_, this| Ok(LuaCommands(this.0.clone())));
        fields.add_field_method_get("output", |_, this| Ok(LuaOutput(this.0.clone())));
        fields.add_field_method_get("conversation", |lua, this| to_lua(lua, &this.0.mirror.conversation()));
        fields.add_field_method_get("context", |lua, this| to_lua(lua, &this.0.mirror.context()));
        fields.add_field_method_get("provider", |lua, this| to_lua(lua, &this.0.mirror.provider()));
        fields.add_field_method_get("cwd", |_, this| Ok(this.0.mirror.cwd()));
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("on", |lua, this, (event, handler): (String, Function)| {
            let Some(event) = events::NAMES.iter().find(|n| **n == event) else {
                return Err(raise(lua, format!("unknown event {event:?}; one of {}", events::NAMES.join(", "))));
            };
            this.0.push(Registration::Observer { event, handler: LuaFn::hold(handler)? });
            Ok(())
        });
        methods.add_method("turn", |_, this, prompt: String| {
            this.0.push(Registration::Turn(prompt));
            Ok(())
        });
    }
}

impl UserData for LuaToolbox {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("add", |lua, this, spec: Table| {
            this.0.push(Registration::Tool(declare(lua, &spec)?));
            Ok(())
        });
        methods.add_method("before", |_, this, (tool, hook): (String, Function)| {
            this.0.push(Registration::Before { tool: target(tool), hook: LuaFn::hold(hook)? });
            Ok(())
        });
        methods.add_method("after", |_, this, (tool, hook): (String, Function)| {
            this.0.push(Registration::After { tool: target(tool), hook: LuaFn::hold(hook)? });
            Ok(())
        });
    }
}

impl UserData for LuaCommands {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("register", |lua, this, spec: Table| {
            let name: Option<String> = spec.get("name")?;
            let name = name
                .map(|n| n.trim_start_matches('/').to_string())
                .filter(|n| !n.trim().is_empty() && !n.contains(char::is_whitespace))
                .ok_or_else(|| raise(lua, "commands:register needs a name without spaces"))?;
            let handler: Option<Function> = spec.get("handler")?;
            let handler = handler.ok_or_else(|| raise(lua, format!("command {name}: needs a handler function")))?;
            this.0.push(Registration::Command {
                name,
                usage: spec.get::<Option<String>>("usage")?.unwrap_or_default(),
                description: spec.get::<Option<String>>("description")?.unwrap_or_default(),
                handler: LuaFn::hold(handler)?,
            });
            Ok(())
        });
    }
}

/// How one `output` method's text is shown.
type Shown = fn(String) -> AgentEvent;

impl UserData for LuaOutput {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        let shown: [(&str, Shown); 3] =
            [("say", AgentEvent::Info), ("warn", AgentEvent::Warning), ("error", AgentEvent::Error)];
        for (name, event) in shown {
            methods.add_method(name, move |_, this, text: LuaValue| {
                let text = match text {
                    LuaValue::String(s) => s.to_string_lossy(),
                    LuaValue::Nil => String::new(),
                    other => other.to_string()?,
                };
                this.0.output.emit(event(text));
                Ok(())
            });
        }
    }
}
