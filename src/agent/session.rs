//! The `Session`: an agent, an input and the slash commands, plus the plugins whose setup
//! blocks filled them. Dispatches a line (command or turn: `session/lines.rs`) and forwards the agent's parts
//! so plugin code rarely touches the agent directly. Plugins may observe every event the
//! output shows and queue lines as if the user had typed them, and each plugin's
//! `before_line` hook runs before every turn and slash command. A plugin may take a typed
//! line before it is dispatched (`take_line`) and attach to a prompt before it is sent
//! (`attach`): features that read what the user typed are plugins, not the session's.
//!
//! The `Plugin` trait is defined here, with the session that runs it (`plugin.rs` adds
//! `SetupBlock`); the commands registry (`commands.rs`) does not know the session, so no
//! file of the kernel imports one that imports it back.

mod lines;

use super::agent::Agent;
use super::conversation::Conversation;
use super::input::{Approver, Input, TextEditor};
use super::interrupter::Interrupter;
use super::observers::{Observed, Observer, Watching};
use super::output::{AgentEvent, ContextSnapshot, Output};
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::panics::catch;
use crate::protocol::image::Image;
use crate::protocol::{Provider, ProviderError, ProviderSettings, Providers};
use futures::future::BoxFuture;
use std::collections::VecDeque;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;

/// The slash commands of a session: handlers that get the whole session.
pub type Commands = super::commands::Commands<Session>;

/// What the session is about to dispatch when it runs the plugins' `before_line` hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextLine {
    /// A turn (a prompt, or a command that asked for one).
    Turn,
    /// A slash command.
    Command,
}

/// What a plugin says about a prompt before its turn runs (`Plugin::on_prompt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptCheck {
    /// Send it, with this text added after it (if any).
    Go(Option<String>),
    /// Do not send it: the user is shown why, and no turn runs.
    Refuse(String),
}

/// A prompt on its way to the model: its text and the images sent with it. Plugins'
/// `attach` hooks add to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prompt {
    pub text: String,
    pub images: Vec<Image>,
}

/// How many times in a row plugins may send a turn on after it ended (`Plugin::on_stop`).
pub const MAX_STOP_CONTINUES: usize = 8;

/// A plugin: a name, a setup block run against the `Session` (ARCHITECTURE.md, "The
/// objects": plugins' setup blocks receive the session), and a hook run before each line.
/// Built-ins and plugin files register through this same trait.
pub trait Plugin: Send + Sync {
    fn name(&self) -> &str;
    /// Adds tools, hooks and commands to the session. Run again by `/reload`.
    fn setup(&self, session: &mut Session) -> anyhow::Result<()>;
    /// Runs before each turn and each slash command, for every plugin in the order they were
    /// set up: brings the session up to date (e.g. adds the tools of MCP servers that became
    /// ready in the background). It may wait first (a headless run waits for its servers to
    /// settle before a turn). A panic in it is shown as an error. By default, nothing.
    fn before_line<'a>(&'a self, session: &'a mut Session, next: NextLine) -> BoxFuture<'a, ()> {
        let _ = (session, next);
        Box::pin(async {})
    }
    /// Runs for each line typed (or queued) that is not blank, before it is dispatched, for
    /// every plugin in order until one returns true: that plugin took the line and handled
    /// it, and it goes no further (no command, no turn, no `before_line`). A panic in it is
    /// shown as an error and the next plugin is asked. By default, not taken.
    fn take_line<'a>(
        &'a self,
        session: &'a mut Session,
        line: &'a str,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, bool> {
        let _ = (session, line, cancel);
        Box::pin(async { false })
    }
    /// Runs for each prompt the user sends, before any `attach` hook: it may add text
    /// after the prompt or refuse it. By default, `Go(None)`.
    fn on_prompt<'a>(&'a self, prompt: &'a str, cancel: &'a CancellationToken) -> BoxFuture<'a, PromptCheck> {
        let _ = (prompt, cancel);
        Box::pin(async { PromptCheck::Go(None) })
    }
    /// Runs for each prompt about to be sent, after every `on_prompt` hook, for every
    /// plugin in order: it may add to the prompt (text after it, images), or return
    /// `Err(reason)` to send nothing (the user is shown the reason and the turn fails). A
    /// panic in it is shown as an error. By default, the prompt is left as it is.
    fn attach<'a>(
        &'a self,
        session: &'a mut Session,
        prompt: &'a mut Prompt,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<(), String>> {
        let _ = (session, prompt, cancel);
        Box::pin(async { Ok(()) })
    }
    /// Runs when a turn ended with a reply (`again`: the turn was itself sent on by a
    /// plugin); `Some(text)` sends the turn on with that text as the next prompt (at most
    /// `MAX_STOP_CONTINUES` times in a row). By default, `None`.
    fn on_stop<'a>(
        &'a self,
        reply: &'a str,
        again: bool,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Option<String>> {
        let _ = (reply, again, cancel);
        Box::pin(async { None })
    }
}

pub struct Session {
    agent: Agent,
    input: Box<dyn Input>,
    commands: Commands,
    providers: Providers,
    settings: ProviderSettings,
    approver: Arc<dyn Approver>,
    interrupter: Interrupter,
    plugins: Vec<Arc<dyn Plugin>>,
    /// What happened outside a turn (plugins' notes) for the next prompt to carry.
    notes: Vec<String>,
    observers: Arc<RwLock<Vec<Watching>>>,
    /// Lines to dispatch before reading the input again.
    queued: VecDeque<String>,
    /// The user's editor, when the front end offers one.
    editor: Option<Arc<dyn TextEditor>>,
    /// The permission mode (ask, accept edits, plan).
    mode: crate::protocol::mode::SharedMode,
}

impl Session {
    pub fn new(
        mut agent: Agent,
        input: Box<dyn Input>,
        providers: Providers,
        settings: ProviderSettings,
        approver: Arc<dyn Approver>,
    ) -> Self {
        let observers = Arc::new(RwLock::new(Vec::new()));
        agent.set_output(Arc::new(Observed { front: agent.output().clone(), observers: observers.clone() }));
        Session {
            agent,
            input,
            commands: Commands::new(),
            providers,
            settings,
            approver,
            interrupter: Interrupter::default(),
            plugins: Vec::new(),
            notes: Vec::new(),
            observers,
            queued: VecDeque::new(),
            editor: None,
            mode: Default::default(),
        }
    }

    pub fn provider(&self) -> &Arc<dyn Provider> {
        self.agent.provider()
    }
    pub fn toolbox(&self) -> &Toolbox {
        self.agent.toolbox()
    }
    pub fn toolbox_mut(&mut self) -> &mut Toolbox {
        self.agent.toolbox_mut()
    }
    pub(crate) fn output(&self) -> Arc<dyn Output> {
        self.agent.output().clone()
    }
    pub(crate) fn conversation(&self) -> &Conversation {
        &self.agent.transcript().conversation
    }
    pub(crate) fn conversation_mut(&mut self) -> &mut Conversation {
        &mut self.agent.transcript_mut().conversation
    }
    pub(crate) fn transcript(&self) -> &Transcript {
        self.agent.transcript()
    }
    pub(crate) fn context(&self) -> ContextSnapshot {
        self.agent.context()
    }
    /// Tells the output what the model will see next.
    pub(crate) fn publish_context(&self) {
        self.agent.publish_context();
    }
    pub(crate) fn commands(&self) -> &Commands {
        &self.commands
    }
    pub fn commands_mut(&mut self) -> &mut Commands {
        &mut self.commands
    }
    /// The registry `/provider` switches among.
    pub(crate) fn providers(&self) -> &Providers {
        &self.providers
    }
    /// The registry, for plugins that declare providers.
    pub(crate) fn providers_mut(&mut self) -> &mut Providers {
        &mut self.providers
    }
    /// What the current provider was built with.
    pub(crate) fn settings(&self) -> &ProviderSettings {
        &self.settings
    }
    /// Who answers permission questions.
    pub(crate) fn approver(&self) -> Arc<dyn Approver> {
        self.approver.clone()
    }
    /// The user's editor, offered by the front end (`None`: commands take text inline).
    pub(crate) fn editor(&self) -> Option<Arc<dyn TextEditor>> {
        self.editor.clone()
    }
    pub fn set_editor(&mut self, editor: Arc<dyn TextEditor>) {
        self.editor = Some(editor);
    }
    /// Routes the file tools' reads and writes through the front end (an editor's buffers).
    pub fn set_file_access(&mut self, files: Arc<dyn super::tool::FileAccess>) {
        self.agent.set_file_access(files);
    }
    /// Asks for replies that fit a JSON Schema from now on (`ask --json-schema`).
    pub fn set_reply_schema(&mut self, schema: Option<Arc<crate::protocol::ReplySchema>>) {
        self.agent.set_reply_schema(schema);
    }

    /// The permission mode, shared: the permissions gate keeps a clone and reads it per call.
    pub fn mode(&self) -> crate::protocol::mode::SharedMode {
        self.mode.clone()
    }

    /// Switches the mode: tells the model (the system prompt says the mode) and the front end.
    pub fn set_mode(&mut self, mode: crate::protocol::mode::Mode) {
        self.mode.set(mode);
        self.agent.transcript_mut().system_prompt.set_mode(mode);
        self.agent.output().emit(AgentEvent::Mode(mode));
    }

    /// Takes the last `turns` turns out of the conversation (`/rewind`): returns the prompt
    /// of the earliest one taken, and tells the model's context and the front end.
    pub fn rewind(&mut self, turns: usize) -> Result<String, String> {
        let users = self.conversation().messages().iter().filter(|m| m.role == crate::protocol::Role::User).count();
        let Some(removed) = self.conversation_mut().rewind(turns) else {
            return Err(format!("cannot rewind {turns} turn(s): the conversation holds {users} prompt(s)"));
        };
        self.publish_context();
        self.agent.output().emit(AgentEvent::Rewound { turns });
        Ok(removed.first().map(|m| m.content.clone()).unwrap_or_default())
    }

    /// Cancels the running turn; front ends keep a clone.
    pub fn interrupter(&self) -> &Interrupter {
        &self.interrupter
    }
    /// Runs every plugin's `before_line` hook, in order, before `next`.
    async fn before_line(&mut self, next: NextLine) {
        for plugin in self.plugins.clone() {
            if let Err(panic) = catch(plugin.before_line(self, next)).await {
                self.agent.output().emit(AgentEvent::Error(panic));
            }
        }
    }

    /// Adds an observer of every event shown from now on.
    pub fn observe(&mut self, observer: Observer) {
        self.observe_only(|_| true, observer);
    }

    /// Adds an observer of the events `wants` picks, shown from now on; other events are
    /// not copied for it.
    pub fn observe_only(&mut self, wants: fn(&AgentEvent) -> bool, observer: Observer) {
        if let Ok(mut observers) = self.observers.write() {
            observers.push(Watching { wants, observer });
        }
    }

    /// Queues a line to dispatch as if the user had typed it, before the input is read
    /// again (`run` only; a command that wants a turn uses this).
    pub fn queue_line(&mut self, line: impl Into<String>) {
        self.queued.push_back(line.into());
    }

    /// Sets a named section of the system prompt (empty text removes it); see
    /// `SystemPrompt::set_section`.
    pub(crate) fn set_prompt_section(&mut self, name: &str, text: impl Into<String>) {
        self.agent.transcript_mut().system_prompt.set_section(name, text);
    }

    /// The working directory the session's system prompt describes.
    pub(crate) fn cwd(&self) -> std::path::PathBuf {
        self.agent.transcript().system_prompt.cwd().to_path_buf()
    }

    /// Adds a note for the next prompt to carry, before it, so what it says stays in the
    /// conversation from then on.
    pub(crate) fn add_note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Shows text (command output).
    pub fn show(&self, text: impl Into<String>) {
        self.agent.output().emit(AgentEvent::Info(text.into()));
    }

    /// The tool traffic of the last finished turn.
    pub(crate) fn last_turn(&self) -> &[crate::protocol::Message] {
        self.agent.last_turn()
    }

    /// Keeps a tool call of the last turn (and its result) in the conversation.
    pub(crate) fn keep(&mut self, call_id: &str) -> bool {
        let kept = self.agent.keep(call_id);
        if kept {
            self.publish_context();
        }
        kept
    }

    /// Switches to another provider by name, keeping the conversation.
    pub(crate) fn switch_provider(&mut self, name: &str, settings: ProviderSettings) -> Result<(), ProviderError> {
        let provider = self.providers.build(name, &settings)?;
        self.settings = settings;
        self.agent.set_provider(provider);
        self.agent.output().emit(AgentEvent::ProviderChanged {
            provider: self.provider().name().to_string(),
            model: self.provider().model().to_string(),
        });
        Ok(())
    }

    /// Adds a plugin and runs its setup block.
    pub fn add_plugin(&mut self, plugin: Arc<dyn Plugin>) -> anyhow::Result<()> {
        self.plugins.push(plugin.clone());
        plugin.setup(self).map_err(|e| e.context(format!("plugin {}", plugin.name())))
    }

    /// Empties the toolbox, commands and observers and runs every setup block again.
    pub fn reload(&mut self) -> anyhow::Result<()> {
        *self.agent.toolbox_mut() = Toolbox::new();
        self.commands.clear();
        if let Ok(mut observers) = self.observers.write() {
            observers.clear();
        }
        for plugin in self.plugins.clone() {
            plugin.setup(self).map_err(|e| e.context(format!("plugin {}", plugin.name())))?;
        }
        self.agent.publish_context();
        Ok(())
    }
}
