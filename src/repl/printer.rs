//! The line outputs' event printer, `PlainOutput`: how each `AgentEvent` reads as plain
//! lines (thinking set apart, numbered tool lines, a command's output as it streams, the
//! turn's tokens and time), written whole per event to stdout, or split between the reply
//! (stdout) and progress (stderr) for `ask`. Hook runs (the hooks plugin's `hook` rows) are
//! not printed: a call a `PreToolUse` hook refused prints the refusal whole on its `x` line,
//! a hook's failure is printed as its warning, and a `Stop` or `PostToolUse` hook's block
//! (which nothing else shows) as a line of its own. A provider's failure is one `Error:` line
//! (the agent's warning before it says the same), and in `ask` it is not the reply on stdout.

use super::{live, models};
use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::sanitize::{sanitize, sanitize_visible};
use crate::tool_outcome::{command_output, outcome, tail_start};
use std::io::Write;
use std::sync::Mutex;

/// Whether to colour output: a terminal, and `NO_COLOR` unset.
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub(super) const DIM: &str = "\x1b[2m";
pub(super) const GREEN: &str = "\x1b[32m";
pub(super) const RED: &str = "\x1b[31m";
pub(super) const RESET: &str = "\x1b[0m";

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Thinking,
    Saying,
}

/// Thinking lines start with this (dimmed too when colour is on), so reasoning never reads
/// as the reply.
pub const THINKING_PREFIX: &str = "┊ ";

/// What `PlainOutput` remembers between events.
struct State {
    /// The section being printed.
    section: Section,
    /// The text of the event being rendered.
    text: String,
    /// The thinking text printed so far ends a line (the next piece gets the prefix).
    thinking_line_start: bool,
    /// Tool calls of this session so far (they are numbered as in the TUI), and each
    /// running call (its line, and its output as printed so far).
    calls: usize,
    running: std::collections::HashMap<String, live::Running>,
    /// Hook runs under way (their event), and whether a `PreToolUse` hook ran since the last
    /// call started (its failure, a refusal, is then printed whole).
    hooks: std::collections::HashMap<String, String>,
    hook_ran: bool,
    /// When the running turn started, and its tokens so far.
    turn_started: Option<std::time::Instant>,
    turn_usage: crate::protocol::Usage,
    /// `ask` mode: the model's text written to the reply stream in this response, and
    /// whether what was written there ends a line.
    said: bool,
    reply_line_open: bool,
    /// A provider's failure said as a warning, held until the next event: the turn's error
    /// that follows says it again, and then only that error is printed (one line a failure).
    held: Option<String>,
}

/// Prints agent events as plain lines. Progress (thinking, tool lines, errors) goes to
/// `progress`; the reply text to `reply`. Each event is rendered whole and written with one
/// write and flush (the agent already merges streamed text per batch), never piece by piece.
///
/// As in the TUI: thinking is set apart (each line prefixed `┊ `, dimmed), a tool call is a
/// numbered line (`+ #2 execute cargo test`), a failed one is marked again when it ends
/// (`x #2 execute cargo test · exit 101`, red) and a command shows the last lines of its
/// output; after each turn a line gives its tokens and how long it took.
pub struct PlainOutput {
    color: bool,
    /// `ask` mode: the model's text goes here as it arrives (stdout), everything else to
    /// `write` (stderr), and the turn's end writes the reply's last line ending (or the
    /// reply itself when it was not streamed: an error).
    reply: Option<fn(&str)>,
    state: Mutex<State>,
    write: fn(&str),
}

impl PlainOutput {
    fn with(color: bool, reply: Option<fn(&str)>, write: fn(&str)) -> Self {
        let state = State {
            section: Section::None,
            text: String::new(),
            thinking_line_start: true,
            calls: 0,
            running: std::collections::HashMap::new(),
            hooks: std::collections::HashMap::new(),
            hook_ran: false,
            turn_started: None,
            turn_usage: crate::protocol::Usage::default(),
            said: false,
            reply_line_open: false,
            held: None,
        };
        PlainOutput { color, reply, state: Mutex::new(state), write }
    }

    /// Everything to stderr (`ask --json-schema`: stdout is only the checked value).
    pub fn progress(color: bool) -> Self {
        Self::with(color, None, print_stderr)
    }

    /// Everything to stdout (the line REPL).
    pub fn stdout(color: bool) -> Self {
        Self::with(color, None, print_stdout)
    }

    /// `ask`: progress to stderr, the model's text to stdout as it arrives.
    pub fn stderr(color: bool) -> Self {
        Self::with(color, Some(print_stdout), print_stderr)
    }

    /// `ask` mode: `text` goes to the reply stream now, after the progress rendered before it.
    fn say(&self, reply: fn(&str), text: &str, state: &mut State) {
        if text.is_empty() {
            return;
        }
        if !state.text.is_empty() {
            (self.write)(&state.text);
            state.text.clear();
        }
        reply(text);
        state.said = true;
        state.reply_line_open = !text.ends_with('\n');
    }

    /// `ask` mode, a turn's end: the streamed reply's line ended, or the reply written whole
    /// when the last response streamed none of it; one line end either way, as `println!` of
    /// the reply would. A failed turn's reply (`Error: …`) is not written: its error is
    /// already on the progress stream, once, and stdout keeps only what the model said.
    fn end_reply(&self, reply_to: fn(&str), reply: &str, end: TurnEnd, state: &mut State) {
        let streamed = state.said && end == TurnEnd::Done;
        let tail = if end == TurnEnd::Failed {
            let open = if state.reply_line_open { "\n" } else { "" };
            open.to_string()
        } else if streamed || reply.is_empty() {
            "\n".to_string()
        } else {
            let open = if state.reply_line_open { "\n" } else { "" };
            format!("{open}{}\n", sanitize(reply))
        };
        self.say(reply_to, &tail, state);
        state.said = false;
        state.reply_line_open = false;
    }

    fn paint(&self, style: &str, text: &str) -> String {
        if self.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// Thinking text with each line prefixed.
    fn thinking(&self, text: &str, state: &mut State) {
        for piece in sanitize(text).split_inclusive('\n') {
            if state.thinking_line_start {
                state.text.push_str(&self.paint(DIM, THINKING_PREFIX));
            }
            state.text.push_str(&self.paint(DIM, piece));
            state.thinking_line_start = piece.ends_with('\n');
        }
    }

    /// A finished call: marked again when it failed, then the tail of a command's output.
    fn finished(&self, call: &crate::protocol::ToolCall, result: &crate::protocol::ToolResult, state: &mut State) {
        let running = state.running.remove(&call.id).unwrap_or_default();
        let (label, streamed) = (&running.label, running.streamed);
        let outcome = outcome(result);
        if outcome.failed {
            // A hook's refusal is shown whole, every line of it.
            let whole = result.error().filter(|_| running.hook_ran).map(|e| sanitize_visible(e.trim()).into_owned());
            let reason =
                whole.or(outcome.reason).map(|r| format!(" · {}", r.replace('\n', "\n  "))).unwrap_or_default();
            state.text.push_str(&format!("{}\n", self.paint(RED, &format!("x {label}{reason}"))));
        }
        if let Some(pending) = running.finish() {
            // Every line was printed as it came; only one without a line end is left.
            if let Some(line) = pending {
                state.text.push_str(&format!("{}\n", self.paint(DIM, &format!("  │ {line}"))));
            }
            return;
        }
        let Some(output) = command_output(result, streamed) else { return };
        let output = sanitize(output.trim_end());
        let lines: Vec<&str> = output.lines().collect();
        let start = tail_start(&lines);
        if start > 0 {
            state.text.push_str(&format!("{}\n", self.paint(DIM, &format!("  ⋮ {start} earlier lines"))));
        }
        for line in lines[start..].iter().filter(|l| !l.trim().is_empty()) {
            state.text.push_str(&format!("{}\n", self.paint(DIM, &format!("  │ {line}"))));
        }
    }

    /// `turn ↑1.2k ↓340 · 4.2s`, after a turn.
    fn turn_line(&self, state: &mut State) -> Option<String> {
        let took = state.turn_started.take()?.elapsed();
        let usage = std::mem::take(&mut state.turn_usage);
        let tokens = if usage.input_tokens + usage.output_tokens > 0 {
            let cached = match usage.cache_read_tokens {
                0 => String::new(),
                _ => format!(" ({}% cached)", usage.cache_read_percent()),
            };
            format!("↑{}{cached} ↓{} · ", count(usage.input_tokens), count(usage.output_tokens))
        } else {
            String::new()
        };
        Some(format!("{}\n", self.paint(DIM, &format!("turn {tokens}{:.1}s", took.as_secs_f64()))))
    }

    /// Renders `event` into `state.text`.
    fn render(&self, event: AgentEvent, state: &mut State) {
        // Moves to a new section, ending the previous one's line.
        let enter = |next: Section, state: &mut State| {
            if state.section != next && state.section != Section::None {
                if !(state.section == Section::Thinking && state.thinking_line_start) {
                    state.text.push('\n');
                }
                state.thinking_line_start = true;
            }
            state.section = next;
        };
        match event {
            AgentEvent::TurnStarted { .. } => {
                state.turn_started = Some(std::time::Instant::now());
                state.turn_usage = crate::protocol::Usage::default();
            }
            AgentEvent::Delta(Delta::Thinking(text)) => {
                enter(Section::Thinking, state);
                self.thinking(&text, state);
            }
            AgentEvent::Delta(Delta::Saying(text)) => match self.reply {
                Some(reply) => self.say(reply, &sanitize(&text), state),
                None => {
                    enter(Section::Saying, state);
                    state.text.push_str(&sanitize(&text));
                }
            },
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) => {
                let others = state.running.len() > 1;
                if let Some(running) = state.running.get_mut(&id) {
                    // With calls running side by side, each line says whose it is.
                    let whose = if others { format!("#{} ", running.number) } else { String::new() };
                    let lines = running.chunk(&chunk);
                    if !lines.is_empty() {
                        enter(Section::None, state);
                    }
                    for line in lines {
                        state.text.push_str(&format!("{}\n", self.paint(DIM, &format!("  {whose}│ {line}"))));
                    }
                }
            }
            AgentEvent::ToolStarted { call, summary } if is_hook(&call) => {
                let event = summary.split(':').next().unwrap_or_default().to_string();
                state.hooks.insert(call.id, event);
            }
            AgentEvent::ToolFinished { call, result } if state.hooks.contains_key(&call.id) => {
                let event = state.hooks.remove(&call.id).unwrap_or_default();
                state.hook_ran |= event == "PreToolUse";
                let blocked = result.error().filter(|e| !result.is_ok() && e.starts_with("blocked"));
                if let Some(error) = blocked.filter(|_| matches!(event.as_str(), "Stop" | "PostToolUse")) {
                    enter(Section::None, state);
                    let command = call.arguments["command"].as_str().unwrap_or_default();
                    let command = cut(command.lines().next().unwrap_or_default(), 120);
                    let line = format!("hook {event}: {command} · {}", sanitize_visible(error.trim()));
                    state.text.push_str(&format!("{}\n", self.paint(RED, &line)));
                }
            }
            AgentEvent::ToolStarted { call, summary } => {
                enter(Section::None, state);
                if let Some(reply) = self.reply.filter(|_| state.reply_line_open) {
                    // The text before a tool call ends its line on the reply stream.
                    self.say(reply, "\n", state);
                }
                state.said = false;
                state.calls += 1;
                let summary = sanitize_visible(&summary).replace('\n', " ⏎ ");
                let label = format!("#{} {} {}", state.calls, sanitize_visible(&call.name), cut(&summary, 120));
                let label = label.trim_end().to_string();
                state.text.push_str(&format!("{} {}\n", self.paint(GREEN, "+"), label));
                let mut running = live::Running::new(label, state.calls);
                running.hook_ran = std::mem::take(&mut state.hook_ran);
                state.running.insert(call.id, running);
            }
            AgentEvent::ToolFinished { call, result } => {
                enter(Section::None, state);
                self.finished(&call, &result, state);
            }
            AgentEvent::Usage(usage) => state.turn_usage.add(&usage),
            AgentEvent::SubAgent { event, .. } => match *event {
                AgentEvent::ToolStarted { call, summary } if !is_hook(&call) => {
                    enter(Section::None, state);
                    let summary = sanitize_visible(&summary).replace('\n', " ⏎ ");
                    let label = format!("  ↳ {} {}", sanitize_visible(&call.name), cut(&summary, 120));
                    state.text.push_str(&format!("{}\n", self.paint(DIM, label.trim_end())));
                }
                AgentEvent::Usage(usage) => state.turn_usage.add(&usage),
                _ => {}
            },
            AgentEvent::Retrying { attempt, max, delay, reason } => {
                enter(Section::None, state);
                let line =
                    format!("{}: retrying in {:.1}s (attempt {attempt}/{max})", sanitize(&reason), delay.as_secs_f64());
                state.text.push_str(&format!("{}\n", self.paint(DIM, &line)));
            }
            AgentEvent::Error(message) => {
                enter(Section::None, state);
                state.text.push_str(&format!("{}\n", self.paint(RED, &format!("Error: {}", sanitize(&message)))));
            }
            AgentEvent::Info(text) | AgentEvent::Jobs { text, .. } => {
                enter(Section::None, state);
                state.text.push_str(&format!("{}\n", sanitize(&text)));
            }
            AgentEvent::Models { provider, current, listed } => {
                enter(Section::None, state);
                state.text.push_str(&models::text(&provider, &current, &listed));
            }
            AgentEvent::Mode(mode) => {
                enter(Section::None, state);
                state.text.push_str(&format!("{}\n", self.paint(DIM, mode.describe())));
            }
            AgentEvent::Plan(plan) => {
                enter(Section::None, state);
                let (done, all) = plan.progress();
                state.text.push_str(&format!("{}\n", self.paint(DIM, &format!("plan ({done}/{all} done):"))));
                for line in plan.lines() {
                    state.text.push_str(&format!("  {}\n", sanitize(&line)));
                }
            }
            AgentEvent::Warning(text) => {
                enter(Section::None, state);
                state.text.push_str(&format!("{}\n", self.paint(RED, &format!("warning: {}", sanitize(&text)))));
            }
            AgentEvent::Clipboard(text) if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
                state.text.push_str(&crate::clipboard::osc52(&text));
            }
            AgentEvent::TurnFinished { end, reply } => {
                enter(Section::None, state);
                if end == TurnEnd::Interrupted {
                    state.text.push_str(&format!("{}\n", self.paint(DIM, "[interrupted]")));
                }
                match self.reply {
                    Some(reply_to) => self.end_reply(reply_to, &reply, end, state),
                    None => {
                        if let Some(line) = self.turn_line(state) {
                            state.text.push_str(&line);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether `warning` is the agent's `provider NAME failed: MESSAGE` (`Agent::failed`), which
/// the turn's error (`MESSAGE`) follows.
fn is_provider_failure(warning: &str) -> bool {
    warning.starts_with("provider ") && warning.contains(" failed: ")
}

/// Whether the error `message` says again what the provider-failure `warning` said.
fn restates(warning: &str, message: &str) -> bool {
    is_provider_failure(warning) && warning.strip_suffix(message).is_some_and(|head| head.ends_with(" failed: "))
}

/// Whether a tool row is a hook run's (the hooks plugin's `hook_N` rows).
fn is_hook(call: &crate::protocol::ToolCall) -> bool {
    call.name == "hook" && call.id.starts_with("hook_")
}

/// `950`, `1.2k`, `34k`.
fn count(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..10_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{}k", n / 1000),
    }
}

/// `text` cut to `max` characters, ending in `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    text.chars().take(max - 1).chain(['…']).collect()
}

pub(super) fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn print_stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

impl Output for PlainOutput {
    fn emit(&self, event: AgentEvent) {
        let Ok(mut state) = self.state.lock() else { return };
        // A provider's failure comes as a warning, then as the turn's error: one line.
        if let Some(held) = state.held.take() {
            if !matches!(&event, AgentEvent::Error(message) if restates(&held, message)) {
                self.render(AgentEvent::Warning(held), &mut state);
            }
        }
        match event {
            AgentEvent::Warning(text) if is_provider_failure(&text) => state.held = Some(text),
            event => self.render(event, &mut state),
        }
        if !state.text.is_empty() {
            (self.write)(&state.text);
            state.text.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn in_colour_thinking_is_dim_and_a_failed_call_red() {
        let output = PlainOutput::with(true, None, |_| {});
        let mut state = output.state.lock().unwrap();
        output.render(AgentEvent::thinking("a\nb"), &mut state);
        assert_eq!(state.text, format!("{DIM}┊ {RESET}{DIM}a\n{RESET}{DIM}┊ {RESET}{DIM}b{RESET}"));
        state.text.clear();
        let call = crate::protocol::ToolCall { id: "c".into(), name: "read".into(), arguments: json!({}) };
        output.render(AgentEvent::ToolStarted { call: call.clone(), summary: "x.md".into() }, &mut state);
        let result = json!({"error": "no such file", "ok": false}).into();
        output.render(AgentEvent::ToolFinished { call, result }, &mut state);
        assert_eq!(state.text, format!("\n{GREEN}+{RESET} #1 read x.md\n{RED}x #1 read x.md · no such file{RESET}\n"));
    }
}
