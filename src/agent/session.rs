//! The `Session`: an agent, an input and the slash commands, plus the plugins whose setup
//! blocks filled them. Dispatches a line (command or turn) and forwards the agent's parts
//! so plugin code rarely touches the agent directly. Plugins may observe every event the
//! output shows and queue lines as if the user had typed them, and each plugin's
//! `before_line` hook runs before every turn and slash command.
//!
//! The `Plugin` trait is defined here, with the session that runs it (`plugin.rs` adds
//! `SetupBlock`); the commands registry (`commands.rs`) does not know the session, so no
//! file of the kernel imports one that imports it back.

use super::agent::{Agent, TurnOutcome};
use super::caught::{catch, catch_sync};
use super::commands::Flow;
use super::conversation::Conversation;
use super::input::{Approver, Input, TextEditor};
use super::interrupter::Interrupter;
use super::observed::{Observed, Observer, Watching};
use super::output::{AgentEvent, ContextSnapshot, Output};
use super::toolbox::Toolbox;
use super::transcript::Transcript;
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
    /// Runs for each prompt the user sends, before mentioned files are attached: it may
    /// add text after the prompt or refuse it. By default, `Go(None)`.
    fn on_prompt<'a>(&'a self, prompt: &'a str, cancel: &'a CancellationToken) -> BoxFuture<'a, PromptCheck> {
        let _ = (prompt, cancel);
        Box::pin(async { PromptCheck::Go(None) })
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
    /// What the user did outside a turn (`!command` runs) for the next prompt to carry.
    notes: Vec<String>,
    /// `!command` runs so far, to number them.
    shell_runs: usize,
    /// What runs a `!command` (set by a plugin: the built-in tools).
    shell_runner: Option<super::shell_escape::ShellRunner>,
    observers: Arc<RwLock<Vec<Watching>>>,
    /// Lines to dispatch before reading the input again.
    queued: VecDeque<String>,
    /// The user's editor, when the front end offers one.
    editor: Option<Arc<dyn TextEditor>>,
    /// The permission mode (ask, accept edits, plan).
    mode: super::mode::SharedMode,
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
            shell_runs: 0,
            shell_runner: None,
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

    /// The permission mode, shared: the permissions gate keeps a clone and reads it per call.
    pub fn mode(&self) -> super::mode::SharedMode {
        self.mode.clone()
    }

    /// Switches the mode: tells the model (a system prompt section) and the front end.
    pub fn set_mode(&mut self, mode: super::mode::Mode) {
        self.mode.set(mode);
        self.set_prompt_section("mode", mode.instructions());
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

    /// Adds a note for the next prompt to carry, before it (like a `!command`'s), so what
    /// it says stays in the conversation from then on.
    pub(crate) fn add_note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Shows text (command output).
    pub fn show(&self, text: impl Into<String>) {
        self.agent.output().emit(AgentEvent::Info(text.into()));
    }

    /// Runs one turn. Notes of `!command` runs since the last turn go before the prompt;
    /// files it mentions (`@src/main.rs`) are attached after it, each checked by the
    /// toolbox's before hooks as a path a tool would read (`mentions`).
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.before_line(NextLine::Turn).await;
        let mut added = Vec::new();
        for plugin in self.plugins.clone() {
            match catch(plugin.on_prompt(prompt, &cancel)).await {
                Ok(PromptCheck::Go(text)) => added.extend(text),
                Ok(PromptCheck::Refuse(reason)) => {
                    self.agent.output().emit(AgentEvent::Error(reason));
                    return TurnOutcome { reply: String::new(), end: super::output::TurnEnd::Failed };
                }
                Err(panic) => self.agent.output().emit(AgentEvent::Error(panic)),
            }
        }
        let mut outcome = self.agent_turn(prompt, &added, cancel.clone()).await;
        let mut again = 0;
        while outcome.end == super::output::TurnEnd::Done && again < MAX_STOP_CONTINUES && !cancel.is_cancelled() {
            let mut next = None;
            for plugin in self.plugins.clone() {
                match catch(plugin.on_stop(&outcome.reply, again > 0, &cancel)).await {
                    Ok(Some(text)) => {
                        next = Some(text);
                        break;
                    }
                    Ok(None) => {}
                    Err(panic) => self.agent.output().emit(AgentEvent::Error(panic)),
                }
            }
            let Some(next) = next else { break };
            again += 1;
            outcome = self.agent.turn(&next, cancel.clone()).await;
        }
        outcome
    }

    /// The turn itself: mentioned files attached after the prompt, then `added` (what
    /// plugins added), with the notes of `!command` runs before it.
    async fn agent_turn(&mut self, prompt: &str, added: &[String], cancel: CancellationToken) -> TurnOutcome {
        let (prompt, images) = match prompt.contains('@') {
            true => {
                let cwd = self.agent.transcript().system_prompt.cwd().to_path_buf();
                let provider = self.agent.provider().clone();
                let to = super::mentions::For {
                    cwd: &cwd,
                    toolbox: self.agent.toolbox(),
                    cancel: &cancel,
                    output: self.agent.output(),
                    no_images: (!provider.accepts_images()).then(|| provider.model()),
                };
                match super::mentions::attach(prompt, to).await {
                    Ok(attached) => (attached.text, attached.images),
                    Err(refusal) => {
                        self.agent.output().emit(AgentEvent::Error(format!("{refusal}. Nothing was sent.")));
                        return TurnOutcome { reply: String::new(), end: super::output::TurnEnd::Failed };
                    }
                }
            }
            false => (prompt.to_string(), Vec::new()),
        };
        let prompt = match added.is_empty() {
            true => prompt,
            false => format!("{prompt}\n\n{}", added.join("\n\n")),
        };
        if self.notes.is_empty() {
            return self.agent.turn_with_images(&prompt, images, cancel).await;
        }
        let mut full = std::mem::take(&mut self.notes).join("\n\n");
        full.push_str("\n\n");
        full.push_str(&prompt);
        self.agent.turn_with_images(&full, images, cancel).await
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

    /// Sets what runs the user's `!command` lines.
    pub(crate) fn set_shell_runner(&mut self, runner: super::shell_escape::ShellRunner) {
        self.shell_runner = Some(runner);
    }

    /// `!command`: runs it as the user and keeps a note of it for the next prompt.
    async fn shell(&mut self, command: &str, cancel: CancellationToken) {
        self.shell_runs += 1;
        let id = format!("shell_{}", self.shell_runs);
        let runner = self.shell_runner.clone();
        let note = super::shell_escape::run(command, id, self.agent.output(), &cancel, runner).await;
        self.notes.push(note);
    }

    /// Asks the model for a summary of the conversation and replaces the conversation with
    /// it, showing the estimated tokens before and after. A failure or an interrupt leaves
    /// the conversation as it was.
    async fn compact(&mut self, instructions: &str, cancel: CancellationToken) {
        let output = self.output();
        let before = self.agent.transcript().estimated_tokens();
        match self.agent.summarize(instructions, cancel).await {
            Ok(summary) if !summary.trim().is_empty() => {
                let text =
                    format!("Summary of the conversation so far (compacted at the user's request):\n\n{summary}");
                self.conversation_mut().replace_all(vec![crate::protocol::Message::user(text)]);
                let after = self.agent.transcript().estimated_tokens();
                // The whole conversation changed: a prompt cache keeps only the system prompt and tools.
                let rewritten: u64 = self
                    .conversation()
                    .messages()
                    .iter()
                    .map(|m| crate::protocol::models::estimate_tokens(&m.text()) + 4)
                    .sum();
                output.emit(AgentEvent::Info(format!(
                    "Compacted: ~{before} → ~{after} tokens. The next request sends the ~{rewritten} tokens \
                     of the new conversation uncached (a prompt cache keeps the system prompt and tools)."
                )));
                self.publish_context();
            }
            Ok(_) => output.emit(AgentEvent::Error("compact: the model returned an empty summary".into())),
            Err(message) => output.emit(AgentEvent::Error(format!("compact: {message}"))),
        }
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

    /// Reads lines from the input and dispatches each one until end of input or `/exit`.
    /// Each line gets a fresh cancellation token from the interrupter.
    pub async fn run(&mut self) {
        loop {
            let line = match self.queued.pop_front() {
                Some(line) => line,
                None => match self.input.read_line("> ").await {
                    Some(line) => line,
                    None => break,
                },
            };
            let cancel = self.interrupter.begin();
            let flow = self.dispatch(&line, cancel).await;
            self.interrupter.end();
            if flow == Flow::Exit {
                break;
            }
        }
    }

    /// Handles one line: skips blanks, runs `/commands`, and sends anything else as a turn.
    pub async fn dispatch(&mut self, line: &str, cancel: CancellationToken) -> Flow {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return Flow::Continue;
        }
        if let Some(command) = line.strip_prefix('!') {
            if !command.trim().is_empty() {
                self.shell(command.trim(), cancel).await;
            }
            return Flow::Continue;
        }
        if line.starts_with('/') {
            self.before_line(NextLine::Command).await;
            match self.command(line) {
                Flow::Turn(prompt) => {
                    self.turn(&prompt, cancel).await;
                    return Flow::Continue;
                }
                Flow::Compact(instructions) => {
                    self.compact(&instructions, cancel).await;
                    return Flow::Continue;
                }
                flow => return flow,
            }
        }
        self.turn(line, cancel).await;
        Flow::Continue
    }

    /// Runs a slash command line such as `/context 2` (`dispatch` runs the plugins'
    /// `before_line` hooks first; this does not).
    pub fn command(&mut self, line: &str) -> Flow {
        let line = line.trim();
        let (name, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let Some(command) = self.commands.get(name).cloned() else {
            let available = self.commands.names().join(", ");
            self.agent.output().emit(AgentEvent::Error(format!("unknown command: {name}. Available: {available}")));
            return Flow::Continue;
        };
        // A command from a plugin may panic; that is its error, not the session's end.
        match catch_sync(|| (command.handler)(self, args.trim())) {
            Ok(Ok(flow)) => {
                if flow == Flow::Exit {
                    self.agent.output().emit(AgentEvent::Exit);
                }
                flow
            }
            Ok(Err(error)) => {
                self.agent.output().emit(AgentEvent::Error(format!("{name}: {error:#}")));
                Flow::Continue
            }
            Err(panic) => {
                self.agent.output().emit(AgentEvent::Error(format!("{name}: {panic}")));
                Flow::Continue
            }
        }
    }
}
