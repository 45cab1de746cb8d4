//! `ToolContext`: what a handler or hook sees of the call it serves (its id, the turn's
//! cancellation, the resolved paths, a prepare hook's say, a sub-agent, attached images,
//! where file text goes), with `FileAccess`, `PreApproval` and `SubAgent`.
//!
//! `SubAgent` is how a call reaches a child turn: a trait, so that a tool names no agent.
//! The agent running the call makes one through the `SubAgents` that `startup` gave it
//! (`startup::sub_agents::Children`).

use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::paths::ResolvedPath;
use crate::protocol::{Image, Usage};
use futures::future::BoxFuture;
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
    /// The call's path arguments as the toolbox resolved them, before any hook ran.
    paths: Arc<[ResolvedPath]>,
    /// What a prepare hook said about permission for this call (`Toolbox::prepare`).
    pre_approval: Option<PreApproval>,
    /// How to run a sub-agent, for a tool that declares `runs_agents` (`SubAgent`).
    sub_agent: Option<Arc<dyn SubAgent>>,
    /// The model reads images (`Provider::accepts_images`): a tool may then attach one.
    accepts_images: bool,
    /// Images the call attached to its result (shared by the context's clones).
    images: Arc<std::sync::Mutex<Vec<Image>>>,
    /// Where file tools read and write text, when not the disk (`FileAccess`).
    files: Option<Arc<dyn FileAccess>>,
}

/// Where the file tools read and write a file's text when a front end routes it away from
/// the disk (an editor's buffers, with unsaved changes: ACP's `fs/read_text_file` and
/// `fs/write_text_file`). The paths are the ones the toolbox resolved and the permission
/// gate checked. A method answering `None` does not route that call: the tool uses the
/// disk. The kernel names no tool: the tools ask their `ToolContext`.
pub trait FileAccess: Send + Sync {
    fn read_text(&self, path: &std::path::Path) -> BoxFuture<'static, Option<anyhow::Result<String>>>;
    fn write_text(&self, path: &std::path::Path, text: &str) -> BoxFuture<'static, Option<anyhow::Result<()>>>;
}

/// What a call of a tool that declares `runs_agents` runs a child turn with
/// (`ToolContext::sub_agent`): the same provider and step limit, the parent's toolbox minus
/// the tools that run agents, a fresh transcript. What the child shows reaches the front
/// ends tagged with the parent call's id (`AgentEvent::SubAgent`).
pub trait SubAgent: Send + Sync {
    /// Runs one child turn for `prompt` until it replies, fails, reaches the step limit or
    /// `cancel` fires.
    fn run<'a>(&'a self, prompt: &'a str, cancel: CancellationToken) -> BoxFuture<'a, SubReport>;

    /// Runs one child turn as `persona` says: its system prompt, only its tools, its model.
    fn run_as<'a>(
        &'a self,
        persona: &'a Persona,
        prompt: &'a str,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, SubReport>;
}

/// A sub-agent defined in a file (`.agents/agents/*.md`): who it is for the model (its
/// system prompt), the only tools it may call (`None`: every tool its parent's children
/// get) and its model (`None`: the parent's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Persona {
    pub name: String,
    /// When the parent should hand it work, as the file says.
    pub description: String,
    /// Its system prompt's own text (the environment's facts follow it).
    pub prompt: String,
    /// Tool names (aliases allowed); a name the toolbox does not know gives nothing.
    pub tools: Option<Vec<String>>,
    pub model: Option<String>,
}

/// What a child turn came to.
#[derive(Clone, Debug, PartialEq)]
pub struct SubReport {
    /// The child's final reply (empty when interrupted).
    pub reply: String,
    pub end: TurnEnd,
    /// Tokens of every model call the child made.
    pub usage: Usage,
}

/// A prepare hook's say on whether a call needs the user's approval; the permission gate
/// reads it (`ToolContext::pre_approval`). Neither answer lifts a deny rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreApproval {
    /// Run without asking, as `--yolo` would (with this reason).
    Allow(String),
    /// Put the call to the user even where it would run unasked (with this reason).
    Ask(String),
}

impl ToolContext {
    pub fn new(call_id: impl Into<String>, cancel: CancellationToken, output: Option<Arc<dyn Output>>) -> Self {
        ToolContext {
            call_id: call_id.into(),
            cancel,
            output,
            paths: Arc::new([]),
            pre_approval: None,
            sub_agent: None,
            accepts_images: false,
            images: Arc::default(),
            files: None,
        }
    }

    /// This context for a model that reads images (or not).
    pub fn with_images_accepted(mut self, accepts: bool) -> Self {
        self.accepts_images = accepts;
        self
    }

    /// Whether the model reads images, so a tool may attach one (`read` of a png).
    pub fn accepts_images(&self) -> bool {
        self.accepts_images
    }

    /// Attaches an image to this call's result: it goes to the model with the result.
    pub fn attach_image(&self, image: Image) {
        if let Ok(mut images) = self.images.lock() {
            images.push(image);
        }
    }

    /// The images attached so far, taken.
    pub fn take_images(&self) -> Vec<Image> {
        self.images.lock().map(|mut images| std::mem::take(&mut *images)).unwrap_or_default()
    }

    /// This context with the front end's file access (`None`: the disk).
    pub fn with_files(mut self, files: Option<Arc<dyn FileAccess>>) -> Self {
        self.files = files;
        self
    }

    /// The file's text through the front end's `FileAccess`; `None`: read the disk.
    pub async fn read_routed(&self, path: &std::path::Path) -> Option<anyhow::Result<String>> {
        self.files.as_ref()?.read_text(path).await
    }

    /// Writes the file's text through the front end's `FileAccess`; `None`: write the disk.
    pub async fn write_routed(&self, path: &std::path::Path, text: &str) -> Option<anyhow::Result<()>> {
        self.files.as_ref()?.write_text(path, text).await
    }

    /// This context with a prepare hook's say on permission.
    pub fn with_pre_approval(mut self, approval: Option<PreApproval>) -> Self {
        self.pre_approval = approval;
        self
    }

    /// What a prepare hook said about permission for this call, if anything.
    pub fn pre_approval(&self) -> Option<&PreApproval> {
        self.pre_approval.as_ref()
    }

    /// This context with a way to run a sub-agent (given by the agent to tools that
    /// declare `runs_agents`).
    pub fn with_sub_agent(mut self, sub_agent: Arc<dyn SubAgent>) -> Self {
        self.sub_agent = Some(sub_agent);
        self
    }

    /// How this call may run a sub-agent: `None` outside a turn, for a tool that does not
    /// declare `runs_agents`, and inside a sub-agent (no recursion).
    pub fn sub_agent(&self) -> Option<&dyn SubAgent> {
        self.sub_agent.as_deref()
    }

    /// Who shows this call's events (none outside a turn).
    pub fn output(&self) -> Option<&Arc<dyn Output>> {
        self.output.as_ref()
    }

    /// This context with the call's resolved path arguments.
    pub fn with_paths(mut self, paths: Vec<ResolvedPath>) -> Self {
        self.paths = paths.into();
        self
    }

    /// Where path argument `arg` points, as resolved once for this call (`paths`):
    /// the gate checked this path, and the tool must open this one, not the text given.
    pub fn path(&self, arg: &str) -> Option<&std::path::Path> {
        self.paths.iter().find(|p| p.arg == arg).map(|p| p.real.as_path())
    }

    /// Every path argument of the call, resolved.
    pub fn resolved_paths(&self) -> &[ResolvedPath] {
        &self.paths
    }

    /// A context for running a tool outside a turn (tests, scripts).
    pub fn detached() -> Self {
        Self::new("", CancellationToken::new(), None)
    }

    /// Streams a piece of live output (e.g. from `execute`) to whoever is watching.
    pub fn progress(&self, chunk: &str) {
        if let Some(output) = &self.output {
            output.emit(AgentEvent::Delta(Delta::ToolOutput { id: self.call_id.clone(), chunk: chunk.to_string() }));
        }
    }

    /// Reports the whole texts of a change to a file this call would make (from its
    /// preview) or made (after writing), for front ends that show changes their own way
    /// (`AgentEvent::FileChange`); `old` is `None` for a new file.
    pub fn file_change(&self, path: &std::path::Path, old: Option<&str>, new: &str) {
        if let Some(output) = &self.output {
            output.emit(AgentEvent::FileChange {
                call_id: self.call_id.clone(),
                path: path.to_path_buf(),
                old: old.map(str::to_string),
                new: new.to_string(),
            });
        }
    }

    /// Runs blocking work off the async threads; a panic there fails this call like a
    /// panic in the handler itself.
    pub async fn blocking<R: Send + 'static>(&self, f: impl FnOnce() -> R + Send + 'static) -> anyhow::Result<R> {
        crate::panics::run_blocking(f).await
    }
}
