//! How a `Session` takes its lines: the run loop over the input (and the queued lines), a
//! line dispatched (blank skipped, taken by a plugin, a slash command, or a turn), a turn
//! with the plugins' prompt, attach and stop hooks, and `/compact`.

use super::{NextLine, Prompt, PromptCheck, Session, MAX_STOP_CONTINUES};
use crate::agent::agent::TurnOutcome;
use crate::agent::commands::Flow;
use crate::agent::output::AgentEvent;
use crate::panics::{catch, catch_sync};
use tokio_util::sync::CancellationToken;

impl Session {
    /// Runs one turn. Notes plugins left since the last turn go before the prompt; what
    /// the plugins' `attach` hooks add (files, images) and what their `on_prompt` hooks
    /// added go after it.
    pub async fn turn(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.before_line(NextLine::Turn).await;
        let mut added = Vec::new();
        for plugin in self.plugins.clone() {
            match catch(plugin.on_prompt(prompt, &cancel)).await {
                Ok(PromptCheck::Go(text)) => added.extend(text),
                Ok(PromptCheck::Refuse(reason)) => {
                    self.agent.output().emit(AgentEvent::Error(reason));
                    return TurnOutcome { reply: String::new(), end: crate::agent::output::TurnEnd::Failed };
                }
                Err(panic) => self.agent.output().emit(AgentEvent::Error(panic)),
            }
        }
        let mut outcome = self.agent_turn(prompt, &added, cancel.clone()).await;
        let mut again = 0;
        while outcome.end == crate::agent::output::TurnEnd::Done && again < MAX_STOP_CONTINUES && !cancel.is_cancelled()
        {
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

    /// The turn itself: the plugins' `attach` hooks run on the prompt, then `added` (what
    /// `on_prompt` hooks added) goes after it, with the notes plugins left before it.
    async fn agent_turn(&mut self, prompt: &str, added: &[String], cancel: CancellationToken) -> TurnOutcome {
        let mut attached = Prompt { text: prompt.to_string(), images: Vec::new() };
        for plugin in self.plugins.clone() {
            match catch(plugin.attach(self, &mut attached, &cancel)).await {
                Ok(Ok(())) => {}
                Ok(Err(refusal)) => {
                    self.agent.output().emit(AgentEvent::Error(format!("{refusal}. Nothing was sent.")));
                    return TurnOutcome { reply: String::new(), end: crate::agent::output::TurnEnd::Failed };
                }
                Err(panic) => self.agent.output().emit(AgentEvent::Error(panic)),
            }
        }
        let Prompt { text: prompt, images } = attached;
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

    /// Asks the model for a summary of the conversation and replaces the conversation with
    /// it, showing the conversation's estimated tokens before and after (one count, so the
    /// numbers it shows agree). A failure or an interrupt leaves the conversation as it was.
    async fn compact(&mut self, instructions: &str, cancel: CancellationToken) {
        let output = self.output();
        let tokens = |session: &Self| -> u64 {
            let messages = session.conversation().messages();
            messages.iter().map(|m| crate::protocol::models::estimate_tokens(&m.text()) + 4).sum()
        };
        let before = tokens(self);
        match self.agent.summarize(instructions, cancel).await {
            Ok(summary) if !summary.trim().is_empty() => {
                let text =
                    format!("Summary of the conversation so far (compacted at the user's request):\n\n{summary}");
                self.conversation_mut().replace_all(vec![crate::protocol::Message::user(text)]);
                let after = tokens(self);
                // The whole conversation changed: a prompt cache keeps only the system prompt and tools.
                output.emit(AgentEvent::Info(format!(
                    "Compacted: the conversation went from ~{before} to ~{after} tokens. The next request sends \
                     those ~{after} tokens uncached (a prompt cache keeps the system prompt and tools, unchanged)."
                )));
                self.publish_context();
            }
            Ok(_) => output.emit(AgentEvent::Error("compact: the model returned an empty summary".into())),
            Err(message) => output.emit(AgentEvent::Error(format!("compact: {message}"))),
        }
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

    /// Handles one line: skips blanks, lets the plugins take it (`Plugin::take_line`), runs
    /// `/commands`, and sends anything else as a turn.
    pub async fn dispatch(&mut self, line: &str, cancel: CancellationToken) -> Flow {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return Flow::Continue;
        }
        for plugin in self.plugins.clone() {
            match catch(plugin.take_line(self, line, &cancel)).await {
                Ok(true) => return Flow::Continue,
                Ok(false) => {}
                Err(panic) => self.agent.output().emit(AgentEvent::Error(panic)),
            }
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
