//! The line-mode `Repl` (`elelem chat --plain`, or when stdin/stdout is not a terminal):
//! reads lines from an `Input`, dispatches each one, and prints what the agent shows
//! through `PlainOutput`. Ctrl-C cancels a running turn, never the process. A running
//! command's output is printed line by line as it comes (`live.rs`).

mod live;
mod models;

use crate::agent::input::{Approval, ApprovalRequest, Approver, Input, NEVER_ASK_AGAIN};
use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::agent::session::Session;
use crate::agent::PreviewKind;
use crate::sanitize::{sanitize, sanitize_visible};
use crate::signals::{Stop, Stops};
use crate::tool_outcome::{command_output, outcome, tail_start};
use futures::future::BoxFuture;
use std::io::Write;
use std::sync::Mutex;
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

/// Whether to colour output: a terminal, and `NO_COLOR` unset.
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

const DIM: &str = "\x1b[2m";
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

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
    /// When the running turn started, and its tokens so far.
    turn_started: Option<std::time::Instant>,
    turn_usage: crate::protocol::Usage,
    /// `ask` mode: the model's text written to the reply stream in this response, and
    /// whether what was written there ends a line.
    said: bool,
    reply_line_open: bool,
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
            turn_started: None,
            turn_usage: crate::protocol::Usage::default(),
            said: false,
            reply_line_open: false,
        };
        PlainOutput { color, reply, state: Mutex::new(state), write }
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
    /// when the last response streamed none of it (an error, say); one line end either way,
    /// as `println!` of the reply would.
    fn end_reply(&self, reply_to: fn(&str), reply: &str, end: TurnEnd, state: &mut State) {
        let streamed = state.said && end == TurnEnd::Done;
        let tail = if streamed || reply.is_empty() {
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
            let reason = outcome.reason.map(|r| format!(" · {r}")).unwrap_or_default();
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
                state.running.insert(call.id, live::Running::new(label, state.calls));
            }
            AgentEvent::ToolFinished { call, result } => {
                enter(Section::None, state);
                self.finished(&call, &result, state);
            }
            AgentEvent::Usage(usage) => state.turn_usage.add(&usage),
            AgentEvent::SubAgent { event, .. } => match *event {
                AgentEvent::ToolStarted { call, summary } => {
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
            AgentEvent::Info(text) => {
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

fn print_stdout(text: &str) {
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
    fn pace(&self) -> Option<std::time::Duration> {
        Some(crate::agent::output::LINE_PACE)
    }

    fn emit(&self, event: AgentEvent) {
        let Ok(mut state) = self.state.lock() else { return };
        self.render(event, &mut state);
        if !state.text.is_empty() {
            (self.write)(&state.text);
            state.text.clear();
        }
    }
}

/// The user's editor in the line REPL: it simply takes over the terminal until it exits.
pub struct LineEditor;

impl crate::agent::TextEditor for LineEditor {
    fn edit(&self, text: &str) -> anyhow::Result<String> {
        crate::editor::block(|| crate::editor::edit(text))
    }
}

/// The process's one buffered stdin reader, shared by `StdinInput` and `LineApprover` so
/// an answer typed (or piped) after a prompt is not swallowed by the other's buffer.
fn stdin_lines() -> &'static tokio::sync::Mutex<Lines<BufReader<Stdin>>> {
    static LINES: std::sync::OnceLock<tokio::sync::Mutex<Lines<BufReader<Stdin>>>> = std::sync::OnceLock::new();
    LINES.get_or_init(|| tokio::sync::Mutex::new(BufReader::new(tokio::io::stdin()).lines()))
}

/// Lines from the process's stdin; the prompt is printed to stdout (and a piped line after
/// it, so output never continues the prompt's line).
#[derive(Default)]
pub struct StdinInput {
    /// A line given on the command line (`elelem "prompt"`), read before stdin's.
    first: Option<String>,
}

impl StdinInput {
    /// Reads `line` first, shown after the prompt as if typed, then stdin's lines.
    pub fn with_first(line: String) -> Self {
        StdinInput { first: Some(line) }
    }
}

impl Input for StdinInput {
    fn read_line(&mut self, prompt: &str) -> BoxFuture<'_, Option<String>> {
        print_stdout(prompt);
        let first = self.first.take();
        Box::pin(async move {
            if let Some(line) = first {
                print_stdout(&format!("{}\n", sanitize_visible(&line)));
                return Some(line);
            }
            let line = stdin_lines().lock().await.next_line().await.ok().flatten();
            if let Some(line) = line.as_ref().filter(|_| !std::io::IsTerminal::is_terminal(&std::io::stdin())) {
                // Echo a piped line, as a terminal would: what follows starts on its own line.
                print_stdout(&format!("{}\n", sanitize_visible(line)));
            }
            line
        })
    }
}

/// Asks `Allow? [y/N/a]` on the terminal. Only a terminal: when stdin is piped, its lines
/// are prompts, so nothing is read and the call is refused (the piped REPL runs headless,
/// so the gate refuses first with `ask`'s message; this is the backstop).
pub struct LineApprover {
    pub color: bool,
}

/// What the line REPL says at start when stdin is not a terminal.
pub const PIPED_NOTICE: &str = "stdin is not a terminal: its lines are prompts, not answers; tool calls that \
     need approval are refused, as in `elelem ask` (allow them with --allow TOOL or --yolo)";

/// The question `LineApprover` prints: what the call would do (the command, or the diff
/// with `+` lines green and `-` lines red), then `Allow TOOL? [y/N/a] `.
pub fn approval_question(request: &ApprovalRequest, color: bool) -> String {
    let what = match request.preview.kind {
        PreviewKind::Command => "wants to run",
        PreviewKind::Diff => "wants to make this change",
        PreviewKind::Arguments => "wants to run with",
        PreviewKind::Trust => "is not trusted",
    };
    let mut text = format!("{} {what}:\n", sanitize_visible(&request.tool));
    for line in sanitize_visible(&request.preview.text).lines() {
        let style = match line.as_bytes().first() {
            _ if !color || line.starts_with("+++") || line.starts_with("---") => None,
            Some(b'+') => Some(GREEN),
            Some(b'-') => Some(RED),
            Some(b'@') => Some(DIM),
            _ => None,
        };
        match style {
            Some(style) => text.push_str(&format!("  {style}{line}{RESET}\n")),
            None => text.push_str(&format!("  {line}\n")),
        }
    }
    if request.preview.kind == PreviewKind::Trust {
        text.push_str(&format!(
            "Trust {}? [y]es / [n]o, do not ask again / Enter: not now ",
            sanitize_visible(&request.tool)
        ));
    } else {
        text.push_str(&format!("Allow {}? [y/N/a] ", sanitize_visible(&request.tool)));
    }
    text
}

impl Approver for LineApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let question = approval_question(&request, self.color);
        let trust = request.preview.kind == PreviewKind::Trust;
        Box::pin(async move {
            if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                return Approval::No; // the next piped line is a prompt, not an answer
            }
            print_stdout(&question);
            let answer = stdin_lines().lock().await.next_line().await.ok().flatten().unwrap_or_default();
            if trust {
                return parse_trust_answer(&answer);
            }
            parse_answer(&answer)
        })
    }
}

/// An answer typed to `Allow TOOL? [y/N/a]`: `y`, `a`, or no — `n <reason>` tells the
/// model why.
pub fn parse_answer(answer: &str) -> Approval {
    let answer = answer.trim();
    let (word, rest) = answer.split_once(char::is_whitespace).unwrap_or((answer, ""));
    match (word.to_ascii_lowercase().as_str(), rest.trim()) {
        ("y" | "yes", "") => Approval::Yes,
        ("a" | "always", "") => Approval::Always,
        ("n" | "no", reason) if !reason.is_empty() => Approval::NoBecause(reason.to_string()),
        _ => Approval::No,
    }
}

/// An answer to `Trust …? [y]es / [n]o / Enter: not now`: `y` trusts, `n` declines for
/// good, anything else is "not now".
pub fn parse_trust_answer(answer: &str) -> Approval {
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Approval::Yes,
        "n" | "no" => Approval::NoBecause(NEVER_ASK_AGAIN.to_string()),
        _ => Approval::No,
    }
}

/// Reads and dispatches lines until EOF or `/exit`.
pub struct Repl;

impl Repl {
    /// Runs until end of input or `/exit` (`None`), or until SIGTERM/SIGHUP/SIGQUIT (`Some`, after
    /// interrupting the turn and killing what tools started). Ctrl-C interrupts the running
    /// turn, never the process.
    pub async fn run(session: &mut Session) -> Option<Stop> {
        let interrupter = session.interrupter().clone();
        let ctrl_c = tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                if !interrupter.interrupt() {
                    print_stdout("\n> ");
                }
            }
        });
        let mut stops = Stops::new(false).ok();
        let stopped = tokio::select! {
            _ = session.run() => None,
            stop = async {
                match stops.as_mut() {
                    Some(stops) => stops.next().await,
                    None => std::future::pending().await,
                }
            } => Some(stop),
        };
        ctrl_c.abort();
        if stopped.is_some() {
            session.interrupter().interrupt();
        }
        stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Preview;
    use serde_json::json;

    #[test]
    fn the_trust_question_reads_yes_no_and_anything_else_as_not_now() {
        assert_eq!(parse_trust_answer("Y"), Approval::Yes);
        assert_eq!(parse_trust_answer(" no "), Approval::NoBecause(NEVER_ASK_AGAIN.into()));
        for not_now in ["", "a", "always", "n because"] {
            assert_eq!(parse_trust_answer(not_now), Approval::No, "{not_now:?}");
        }
    }

    #[test]
    fn the_line_outputs_take_streamed_text_at_the_line_pace() {
        // Unpaced, a reply read as fast as it is sent is one stdout write per network event.
        for output in [PlainOutput::stdout(false), PlainOutput::stderr(true)] {
            assert_eq!(output.pace(), Some(crate::agent::output::LINE_PACE));
        }
    }

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

    #[test]
    fn n_with_words_after_it_is_a_refusal_with_a_reason() {
        assert_eq!(parse_answer("y\n"), Approval::Yes);
        assert_eq!(parse_answer(" Always "), Approval::Always);
        assert_eq!(parse_answer(""), Approval::No);
        assert_eq!(parse_answer("n"), Approval::No);
        assert_eq!(parse_answer("n use the test helper"), Approval::NoBecause("use the test helper".into()));
        assert_eq!(parse_answer("No  Not in prod "), Approval::NoBecause("Not in prod".into()));
        assert_eq!(parse_answer("yes please"), Approval::No, "anything unclear is a no");
    }

    #[test]
    fn the_question_shows_the_command_then_asks() {
        let preview = Preview { kind: PreviewKind::Command, text: "cargo test".into() };
        let request = ApprovalRequest {
            call_id: "c1".into(),
            tool: "run".into(),
            args: json!({}),
            summary: String::new(),
            preview,
        };
        assert_eq!(approval_question(&request, false), "run wants to run:\n  cargo test\nAllow run? [y/N/a] ");
    }

    #[test]
    fn a_diff_is_coloured_line_by_line() {
        let detail = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n".to_string();
        let preview = Preview { kind: PreviewKind::Diff, text: detail };
        let request = ApprovalRequest {
            call_id: "c1".into(),
            tool: "edit".into(),
            args: json!({}),
            summary: String::new(),
            preview,
        };
        assert_eq!(
            approval_question(&request, true),
            "edit wants to make this change:\n  --- a/f\n  +++ b/f\n  \x1b[2m@@ -1 +1 @@\x1b[0m\n  \
             \x1b[31m-old\x1b[0m\n  \x1b[32m+new\x1b[0m\nAllow edit? [y/N/a] "
        );
    }
}
