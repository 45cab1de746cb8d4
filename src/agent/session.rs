//! The `Session`: an agent, an input and the slash commands, plus the plugins whose setup
//! blocks filled them. Dispatches a line (command or turn) and forwards the agent's parts
//! so plugin code rarely touches the agent directly. Plugins may observe every event the
//! output shows and queue lines as if the user had typed them.

use super::agent::{Agent, TurnOutcome};
use super::caught::catch_sync;
use super::commands::{Commands, Flow};
use super::conversation::Conversation;
use super::input::{Approver, Input};
use super::output::{AgentEvent, ContextSnapshot, Output};
use super::plugin::Plugin;
use super::toolbox::Toolbox;
use super::transcript::Transcript;
use crate::protocol::{Provider, ProviderError, ProviderSettings, Providers};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, RwLock};
use tokio_util::sync::CancellationToken;

/// Sees every event the session's output shows, just after the front end does. Observers
/// are plugin state: `reload` forgets them before the setup blocks run again.
pub type Observer = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// The front end's output with the observers behind it.
struct Observed {
    front: Arc<dyn Output>,
    observers: Arc<RwLock<Vec<Observer>>>,
}

impl Output for Observed {
    fn emit(&self, event: AgentEvent) {
        let observers = self.observers.read().map(|o| o.clone()).unwrap_or_default();
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
    observers: Arc<RwLock<Vec<Observer>>>,
    /// Lines to dispatch before reading the input again.
    queued: VecDeque<String>,
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
            observers,
            queued: VecDeque::new(),
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
    /// Cancels the running turn; front ends keep a clone.
    pub fn interrupter(&self) -> &Interrupter {
        &self.interrupter
    }
    /// The names of the plugins set up, in order.
    pub fn plugin_names(&self) -> Vec<String> {
        self.plugins.iter().map(|p| p.name().to_string()).collect()
    }

    /// Adds an observer of every event shown from now on.
    pub fn observe(&mut self, observer: Observer) {
        if let Ok(mut observers) = self.observers.write() {
            observers.push(observer);
        }
    }

    /// Queues a line to dispatch as if the user had typed it, before the input is read
    /// again (`run` only; a command that wants a turn uses this).
    pub fn queue_line(&mut self, line: impl Into<String>) {
        self.queued.push_back(line.into());
    }

    /// Shows text (command output).
    pub fn show(&self, text: impl Into<String>) {
        self.agent.output().emit(AgentEvent::Info(text.into()));
    }

    /// Runs one turn.
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.agent.turn(prompt, cancel).await
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
        if line.starts_with('/') {
            return self.command(line);
        }
        self.turn(line, cancel).await;
        Flow::Continue
    }

    /// Runs a slash command line such as `/context 2`.
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
