//! The `Session`: an agent, an input and the slash commands, plus the plugins whose setup
//! blocks filled them. Dispatches a line (command or turn) and forwards the agent's parts
//! so plugin code rarely touches the agent directly. Plugins may observe every event the
//! output shows and queue lines as if the user had typed them.

use super::agent::{Agent, TurnOutcome};
use super::caught::catch_sync;
use super::commands::{Commands, Flow};
use super::conversation::Conversation;
use super::input::{Approver, Input, TextEditor};
use super::output::{AgentEvent, ContextSnapshot, Output};
use super::plugin::Plugin;
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::protocol::{Provider, ProviderError, ProviderSettings, Providers};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use tokio_util::sync::CancellationToken;

/// Sees every event the session's output shows, just after the front end does. Observers
/// are plugin state: `reload` forgets them before the setup blocks run again.
pub type Observer = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// An observer and the events it wants (every one, unless it said).
#[derive(Clone)]
struct Watching {
    wants: fn(&AgentEvent) -> bool,
    observer: Observer,
}

/// The front end's output with the observers behind it. An event is copied for the
/// observers only when one of them wants it (not every streamed delta, nor each context
/// holding a long reply, for an observer that only counts turns).
struct Observed {
    front: Arc<dyn Output>,
    observers: Arc<RwLock<Vec<Watching>>>,
}

impl Output for Observed {
    fn pace(&self) -> Option<std::time::Duration> {
        self.front.pace()
    }

    fn emit(&self, event: AgentEvent) {
        let observers: Vec<Observer> = self
            .observers
            .read()
            .map(|o| o.iter().filter(|w| (w.wants)(&event)).map(|w| w.observer.clone()).collect())
            .unwrap_or_default();
        if observers.is_empty() {
            return self.front.emit(event);
        }
        self.front.emit(event.clone());
        for observer in observers {
            observer(&event);
        }
    }
}

/// Cancels whatever turn is running; shared between a session loop and its front end.
#[derive(Clone, Default)]
pub struct Interrupter(Arc<Mutex<Option<CancellationToken>>>);

impl Interrupter {
    /// A fresh token for the next turn.
    pub fn begin(&self) -> CancellationToken {
        let token = CancellationToken::new();
        if let Ok(mut current) = self.0.lock() {
            *current = Some(token.clone());
        }
        token
    }

    /// Cancels the running turn; `false` when none was running.
    pub fn interrupt(&self) -> bool {
        match self.0.lock().ok().and_then(|mut current| current.take()) {
            Some(token) if !token.is_cancelled() => {
                token.cancel();
                true
            }
            _ => false,
        }
    }

    /// Forgets the finished turn's token.
    pub fn end(&self) {
        if let Ok(mut current) = self.0.lock() {
            *current = None;
        }
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
    /// Run before each turn and each slash command (plugins that bring tools in late).
    before_line: Vec<BeforeLine>,
    /// Awaited before each turn (set-up a headless run must not race).
    settlers: Vec<Settler>,
    observers: Arc<RwLock<Vec<Watching>>>,
    /// Lines to dispatch before reading the input again.
    queued: VecDeque<String>,
    /// The user's editor, when the front end offers one.
    editor: Option<Arc<dyn TextEditor>>,
}

/// A plugin's refresh, run before each turn and each slash command: e.g. adding the tools
/// of a server that became ready in the background.
pub type BeforeLine = Arc<dyn Fn(&mut Session) + Send + Sync>;

/// A plugin's wait before each turn: e.g. a headless run waiting for servers that start in
/// the background. A future, so it works on a current-thread runtime too.
pub type Settler = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

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
            before_line: Vec::new(),
            settlers: Vec::new(),
            observers,
            queued: VecDeque::new(),
            editor: None,
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
    pub fn output(&self) -> Arc<dyn Output> {
        self.agent.output().clone()
    }
    pub fn conversation(&self) -> &Conversation {
        &self.agent.transcript().conversation
    }
    pub fn conversation_mut(&mut self) -> &mut Conversation {
        &mut self.agent.transcript_mut().conversation
    }
    pub fn transcript(&self) -> &Transcript {
        self.agent.transcript()
    }
    pub fn context(&self) -> ContextSnapshot {
        self.agent.context()
    }
    /// Tells the output what the model will see next.
    pub fn publish_context(&self) {
        self.agent.publish_context();
    }
    pub fn commands(&self) -> &Commands {
        &self.commands
    }
    pub fn commands_mut(&mut self) -> &mut Commands {
        &mut self.commands
    }
    /// The registry `/provider` switches among.
    pub fn providers(&self) -> &Providers {
        &self.providers
    }
    /// The registry, for plugins that declare providers.
    pub fn providers_mut(&mut self) -> &mut Providers {
        &mut self.providers
    }
    /// What the current provider was built with.
    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }
    /// Who answers permission questions.
    pub fn approver(&self) -> Arc<dyn Approver> {
        self.approver.clone()
    }
    /// The user's editor, offered by the front end (`None`: commands take text inline).
    pub fn editor(&self) -> Option<Arc<dyn TextEditor>> {
        self.editor.clone()
    }
    pub fn set_editor(&mut self, editor: Arc<dyn TextEditor>) {
        self.editor = Some(editor);
    }
    /// Cancels the running turn; front ends keep a clone.
    pub fn interrupter(&self) -> &Interrupter {
        &self.interrupter
    }
    /// The names of the plugins set up, in order.
    pub fn plugin_names(&self) -> Vec<String> {
        self.plugins.iter().map(|p| p.name().to_string()).collect()
    }

    /// Runs `refresh` before each turn and each slash command (cleared by `reload`).
    pub fn before_line(&mut self, refresh: impl Fn(&mut Session) + Send + Sync + 'static) {
        self.before_line.push(Arc::new(refresh));
    }

    /// Awaits `settle()` before each turn, ahead of the refreshes (cleared by `reload`).
    pub fn settle_before_turn(
        &mut self,
        settle: impl Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync + 'static,
    ) {
        self.settlers.push(Arc::new(settle));
    }

    fn refresh(&mut self) {
        for refresh in self.before_line.clone() {
            if let Err(panic) = catch_sync(|| refresh(self)) {
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

    /// Shows text (command output).
    /// Sets a named section of the system prompt (empty text removes it); see
    /// `SystemPrompt::set_section`.
    pub fn set_prompt_section(&mut self, name: &str, text: impl Into<String>) {
        self.agent.transcript_mut().system_prompt.set_section(name, text);
    }

    /// The working directory the session's system prompt describes.
    pub fn cwd(&self) -> std::path::PathBuf {
        self.agent.transcript().system_prompt.cwd().to_path_buf()
    }

    pub fn show(&self, text: impl Into<String>) {
        self.agent.output().emit(AgentEvent::Info(text.into()));
    }

    /// Runs one turn. Notes of `!command` runs since the last turn go before the prompt;
    /// files it mentions (`@src/main.rs`) are attached after it, each checked by the
    /// toolbox's before hooks as a path a tool would read (`mentions`).
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        for settle in self.settlers.clone() {
            settle().await;
        }
        self.refresh();
        let prompt = match prompt.contains('@') {
            true => {
                let cwd = self.agent.transcript().system_prompt.cwd().to_path_buf();
                super::mentions::attach(prompt, &cwd, self.agent.toolbox(), &cancel, self.agent.output()).await
            }
            false => prompt.to_string(),
        };
        if self.notes.is_empty() {
            return self.agent.turn(&prompt, cancel).await;
        }
        let mut full = std::mem::take(&mut self.notes).join("\n\n");
        full.push_str("\n\n");
        full.push_str(&prompt);
        self.agent.turn(&full, cancel).await
    }

    /// The tool traffic of the last finished turn.
    pub fn last_turn(&self) -> &[crate::protocol::Message] {
        self.agent.last_turn()
    }

    /// Keeps a tool call of the last turn (and its result) in the conversation.
    pub fn keep(&mut self, call_id: &str) -> bool {
        let kept = self.agent.keep(call_id);
        if kept {
            self.publish_context();
        }
        kept
    }

    /// Sets what runs the user's `!command` lines.
    pub fn set_shell_runner(&mut self, runner: super::shell_escape::ShellRunner) {
        self.shell_runner = Some(runner);
    }

    /// `!command`: runs it as the user and keeps a note of it for the next prompt.
    pub async fn shell(&mut self, command: &str, cancel: CancellationToken) {
        self.shell_runs += 1;
        let id = format!("shell_{}", self.shell_runs);
        let runner = self.shell_runner.clone();
        let note = super::shell_escape::run(command, id, self.agent.output(), &cancel, runner).await;
        self.notes.push(note);
    }

    /// Asks the model for a summary of the conversation and replaces the conversation with
    /// it, showing the estimated tokens before and after. A failure or an interrupt leaves
    /// the conversation as it was.
    pub async fn compact(&mut self, instructions: &str, cancel: CancellationToken) {
        let output = self.output();
        let before = self.agent.transcript().estimated_tokens();
        match self.agent.summarize(instructions, cancel).await {
            Ok(summary) if !summary.trim().is_empty() => {
                let text =
                    format!("Summary of the conversation so far (compacted at the user's request):\n\n{summary}");
                self.conversation_mut().replace_all(vec![crate::protocol::Message::user(text)]);
                let after = self.agent.transcript().estimated_tokens();
                output.emit(AgentEvent::Info(format!("Compacted: ~{before} → ~{after} tokens.")));
                self.publish_context();
            }
            Ok(_) => output.emit(AgentEvent::Error("compact: the model returned an empty summary".into())),
            Err(message) => output.emit(AgentEvent::Error(format!("compact: {message}"))),
        }
    }

    /// Switches to another provider by name, keeping the conversation.
    pub fn switch_provider(&mut self, name: &str, settings: ProviderSettings) -> Result<(), ProviderError> {
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
        self.before_line.clear();
        self.settlers.clear();
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

    /// Runs a slash command line such as `/context 2`.
    pub fn command(&mut self, line: &str) -> Flow {
        self.refresh();
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
