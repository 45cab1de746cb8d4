//! One plugin file as a kernel `Plugin`: every setup (startup and each `/reload`) reads the
//! file again into a fresh Lua state, runs it and its `elelem.setup` blocks, and applies
//! what they registered to the session, all or nothing. A file that fails is reported
//! (`failed to load plugin <file>: <line>: <message>`) and registers nothing; the other
//! plugins are not disturbed. The file is read the careful way (`safe_file`): a regular
//! file only (a FIFO put in its place is refused at once, never waited on), at most
//! `FILE_CAP` bytes, and a project's file never through a link out of the project.

use super::api::{self, FileApi, Registration};
use super::events;
use super::listing::{Registered, Status};
use super::providers::Renamed;
use super::sandbox::{off_async, LuaFn, Sandbox};
use super::tools::{after_hook, before_hook, build};
use super::values::{located, message, to_lua};
use super::Host;
use crate::agent::{AgentEvent, Flow, Plugin, Session};
use mlua::Value as LuaValue;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes of one plugin file that are read; a larger file fails to load.
pub const FILE_CAP: u64 = 1024 * 1024;

pub struct LuaFile {
    path: PathBuf,
    /// For a project's file, the project's root: the file may not lead out of it.
    within: Option<PathBuf>,
    label: String,
    host: Arc<Host>,
    status: Arc<Mutex<Status>>,
    /// The last load's state, to tell `/plugins` when it was abandoned.
    sandbox: Mutex<Option<Arc<Sandbox>>>,
}

impl LuaFile {
    /// The file at `path`; `within`, for a project's file, is the project's root.
    pub fn new(path: PathBuf, within: Option<PathBuf>, host: Arc<Host>) -> Self {
        let label = path.display().to_string();
        let status = Arc::new(Mutex::new(Status::NotLoaded));
        LuaFile { path, within, label, host, status, sandbox: Mutex::default() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How the last load went; a file whose state was abandoned since (a call that could
    /// not be stopped) is shown as failed with the reason.
    pub fn status(&self) -> Status {
        match self.sandbox.lock().as_ref().and_then(|s| s.abandoned()) {
            Some(why) => Status::Failed(why),
            None => self.status.lock().clone(),
        }
    }

    /// Reads and runs the file; `Ok(None)` when it is gone.
    fn load(&self, session: &mut Session) -> Result<Option<Registered>, String> {
        let reading = crate::safe_file::Reading::capped(FILE_CAP);
        let reading = match &self.within {
            Some(root) => reading.within(root),
            None => reading,
        };
        let source = match reading.bytes(&self.path) {
            Ok(source) => source,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.to_string()),
        };
        let chunk = self.path.file_name().map_or_else(|| self.label.clone(), |n| n.to_string_lossy().into_owned());
        let sandbox = Arc::new(Sandbox::new(self.host.limit, &chunk).map_err(|e| message(&e))?);
        let file = FileApi::new(session.output(), self.host.mirror.clone());
        let ran = off_async(|| -> mlua::Result<()> {
            let (api, name) = (file.clone(), format!("@{chunk}"));
            sandbox.call(move |lua| {
                api::install(lua, &api)?;
                lua.load(source).set_name(name).set_mode(mlua::chunk::ChunkMode::Text).exec()
            })?;
            for block in file.take_setups() {
                let api = file.clone();
                sandbox.call(move |_| block.get()?.call::<()>(api::session(&api)))?;
            }
            Ok(())
        });
        *self.sandbox.lock() = Some(sandbox.clone());
        ran.map_err(|e| located(&message(&e), &chunk))?;
        let applied = Applier { sandbox, file, host: self.host.clone(), status: self.status.clone() };
        applied.apply(session).map(Some)
    }
}

impl Plugin for LuaFile {
    fn name(&self) -> &str {
        &self.label
    }

    /// Never fails the session: a broken file is reported and skipped.
    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        self.host.mirror.refresh(session);
        let status = match self.load(session) {
            Ok(Some(registered)) => Status::Loaded(registered),
            Ok(None) => Status::Removed,
            Err(failure) => {
                self.host
                    .notice(session, AgentEvent::Error(format!("failed to load plugin {}: {failure}", self.label)));
                Status::Failed(failure)
            }
        };
        *self.status.lock() = status;
        Ok(())
    }
}

/// Applies one load's registrations to the session; kept by the file's commands, which may
/// register more.
#[derive(Clone)]
struct Applier {
    sandbox: Arc<Sandbox>,
    file: Arc<FileApi>,
    host: Arc<Host>,
    status: Arc<Mutex<Status>>,
}

/// A registration checked and ready to apply.
enum Step {
    Tool(crate::agent::Tool),
    Other(Registration),
}

impl Applier {
    /// Everything queued so far, all or nothing: the steps that can fail (building tools,
    /// claiming provider names) run before the session changes.
    fn apply(&self, session: &mut Session) -> Result<Registered, String> {
        let mut steps = Vec::new();
        for registration in self.file.take_pending() {
            steps.push(match registration {
                Registration::Tool(decl) => Step::Tool(build(decl, &self.sandbox).map_err(|e| e.to_string())?),
                Registration::Provider(endpoint) => {
                    if session.providers().names().contains(&endpoint.name.as_str())
                        && !self.host.declared.lock().contains(&endpoint.name)
                    {
                        return Err(format!("provider {}: that name belongs to a built-in provider", endpoint.name));
                    }
                    Step::Other(Registration::Provider(endpoint))
                }
                other => Step::Other(other),
            });
        }
        let mut registered = Registered::default();
        for step in steps {
            self.step(session, step, &mut registered);
        }
        Ok(registered)
    }

    fn step(&self, session: &mut Session, step: Step, registered: &mut Registered) {
        let registration = match step {
            Step::Tool(tool) => {
                registered.tools.push(match tool.aliases.is_empty() {
                    true => tool.name.clone(),
                    false => format!("{} ({})", tool.name, tool.aliases.join(", ")),
                });
                return session.toolbox_mut().add(tool);
            }
            Step::Other(registration) => registration,
        };
        // Hooks are keyed by canonical name; an alias names its tool.
        let canonical = |session: &Session, tool: Option<String>| {
            tool.map(|t| session.toolbox().get(&t).map_or(t, |found| found.name.clone()))
        };
        match registration {
            Registration::Tool(_) => {}
            Registration::Before { tool, hook } => {
                let tool = canonical(session, tool);
                registered.hooks.push(format!("before {}", tool.as_deref().unwrap_or("*")));
                session.toolbox_mut().before_stopping(tool.as_deref(), before_hook(self.sandbox.clone(), hook));
            }
            Registration::After { tool, hook } => {
                let tool = canonical(session, tool);
                registered.hooks.push(format!("after {}", tool.as_deref().unwrap_or("*")));
                session.toolbox_mut().after(tool.as_deref(), after_hook(self.sandbox.clone(), hook));
            }
            Registration::Command { name, usage, description, handler } => {
                registered.commands.push(format!("/{name}"));
                let applier = self.clone();
                session
                    .commands_mut()
                    .add(&name, &usage, &description, move |session, arg| applier.command(session, &handler, arg));
            }
            Registration::Observer { event, handler } => {
                registered.events.push(event.to_string());
                let (sandbox, output) = (self.sandbox.clone(), session.output());
                session.observe(Arc::new(move |shown: &AgentEvent| {
                    let Some((name, value)) = events::observed(shown) else { return };
                    if name != event || Observing::active() {
                        return;
                    }
                    let _observing = Observing::enter();
                    let handler = handler.clone();
                    let called = off_async(|| {
                        sandbox.call(move |lua| {
                            // What the observer shows is not observed again, on its thread too.
                            let _observing = Observing::enter();
                            handler.get()?.call::<()>(to_lua(lua, &value)?)
                        })
                    });
                    if let Err(error) = called {
                        output.emit(AgentEvent::Warning(format!("plugin on {event}: {}", message(&error))));
                    }
                }));
            }
            Registration::Provider(endpoint) => {
                registered.providers.push(endpoint.name.clone());
                self.host.declared.lock().insert(endpoint.name.clone());
                let wires = self.host.wires.clone();
                let name = endpoint.name.clone();
                if endpoint.default {
                    session.providers_mut().prefer(&name);
                }
                session.providers_mut().register(&name, move |settings| {
                    Ok(Arc::new(Renamed { name: endpoint.name.clone(), inner: wires(&endpoint, settings)? }))
                });
            }
            Registration::Turn(prompt) => session.queue_line(prompt),
        }
    }

    /// Runs one of the file's commands, then applies what it registered.
    fn command(&self, session: &mut Session, handler: &LuaFn, arg: &str) -> anyhow::Result<Flow> {
        self.host.mirror.refresh(session);
        let arg = (!arg.is_empty()).then(|| arg.to_string());
        let handler = handler.clone();
        let answered = off_async(|| {
            self.sandbox.call(move |_| match handler.get()?.call::<LuaValue>(arg)? {
                LuaValue::String(text) => Ok(Some(text.to_string_lossy())),
                _ => Ok(None),
            })
        });
        let later = self.apply(session);
        if let Ok(later) = &later {
            if let Status::Loaded(registered) = &mut *self.status.lock() {
                registered.extend(later);
            }
        }
        let answered = answered.map_err(|e| anyhow::anyhow!(message(&e)))?;
        later.map_err(anyhow::Error::msg)?;
        if let Some(text) = answered {
            session.show(text);
        }
        Ok(Flow::Continue)
    }
}

thread_local! {
    /// Set while a Lua observer runs on this thread: what it shows is not observed again.
    static OBSERVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

struct Observing;

impl Observing {
    fn active() -> bool {
        OBSERVING.with(|o| o.get())
    }
    fn enter() -> Self {
        OBSERVING.with(|o| o.set(true));
        Observing
    }
}

impl Drop for Observing {
    fn drop(&mut self) {
        OBSERVING.with(|o| o.set(false));
    }
}
