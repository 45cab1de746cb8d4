//! The `Session`: an agent, an input and the slash commands, plus the plugins whose setup
//! blocks filled them. Dispatches a line (command or turn) and forwards the agent's parts
//! so plugin code rarely touches the agent directly.

use crate::agent::agent::{Agent, TurnOutcome};
use crate::agent::commands::{Commands, Flow};
use crate::agent::conversation::Conversation;
use crate::agent::input::{Approver, Input};
use crate::agent::output::{AgentEvent, ContextSnapshot, Output};
use crate::agent::toolbox::Toolbox;
use crate::plugins::Plugin;
use crate::providers::{Provider, ProviderError, ProviderSettings, Providers};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

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
    pub agent: Agent,
    pub input: Box<dyn Input>,
    pub commands: Commands,
    pub providers: Providers,
    pub settings: ProviderSettings,
    pub approver: Arc<dyn Approver>,
    pub interrupter: Interrupter,
    plugins: Vec<Arc<dyn Plugin>>,
}

impl Session {
    pub fn new(
        agent: Agent,
        input: Box<dyn Input>,
        providers: Providers,
        settings: ProviderSettings,
        approver: Arc<dyn Approver>,
    ) -> Self {
        Session {
            agent,
            input,
            commands: Commands::new(),
            providers,
            settings,
            approver,
            interrupter: Interrupter::default(),
            plugins: Vec::new(),
        }
    }

    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.agent.provider
    }
    pub fn toolbox(&mut self) -> &mut Toolbox {
        &mut self.agent.toolbox
    }
    pub fn output(&self) -> Arc<dyn Output> {
        self.agent.output.clone()
    }
    pub fn conversation(&mut self) -> &mut Conversation {
        &mut self.agent.transcript.conversation
    }
    pub fn context(&self) -> ContextSnapshot {
        self.agent.context()
    }

    /// Shows text (command output).
    pub fn show(&self, text: impl Into<String>) {
        self.agent.output.emit(AgentEvent::Info(text.into()));
    }

    /// Runs one turn.
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.agent.turn(prompt, cancel).await
    }

    /// Switches to another provider by name, keeping the conversation.
    pub fn switch_provider(&mut self, name: &str, settings: ProviderSettings) -> Result<(), ProviderError> {
        let provider = self.providers.build(name, &settings)?;
        self.settings = settings;
        self.agent.provider = provider;
        self.agent.output.emit(AgentEvent::ProviderChanged {
            provider: self.agent.provider.name().to_string(),
            model: self.agent.provider.model().to_string(),
        });
        Ok(())
    }

    /// Adds a plugin and runs its setup block.
    pub fn add_plugin(&mut self, plugin: Arc<dyn Plugin>) -> anyhow::Result<()> {
        self.plugins.push(plugin.clone());
        plugin.setup(self).map_err(|e| e.context(format!("plugin {}", plugin.name())))
    }

    /// Empties the toolbox and commands and runs every setup block again.
    pub fn reload(&mut self) -> anyhow::Result<()> {
        self.agent.toolbox = Toolbox::new();
        self.commands.clear();
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
            let Some(line) = self.input.read_line("> ").await else { break };
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
            self.agent.output.emit(AgentEvent::Error(format!("unknown command: {name}. Available: {available}")));
            return Flow::Continue;
        };
        match (command.handler)(self, args.trim()) {
            Ok(flow) => {
                if flow == Flow::Exit {
                    self.agent.output.emit(AgentEvent::Exit);
                }
                flow
            }
            Err(error) => {
                self.agent.output.emit(AgentEvent::Error(format!("{name}: {error:#}")));
                Flow::Continue
            }
        }
    }
}
