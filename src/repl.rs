//! The line-mode `Repl` (`elelem chat --plain`, or when stdin/stdout is not a terminal):
//! reads lines from an `Input`, dispatches each one, and prints what the agent shows
//! through `PlainOutput`. Ctrl-C cancels a running turn, never the process.

use crate::agent::input::{Approval, ApprovalRequest, Approver, Input};
use crate::agent::output::{AgentEvent, Delta, Output, TurnEnd};
use crate::agent::session::Session;
use crate::agent::PreviewKind;
use crate::sanitize::{sanitize, sanitize_visible};
use crate::signals::{Stop, Stops};
use futures::future::BoxFuture;
use std::io::Write;
use std::sync::Mutex;
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

/// Whether to colour output: a terminal, and `NO_COLOR` unset.
pub fn use_color(is_terminal: bool) -> bool {
    is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const RESET: &str = "\x1b[0m";

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Thinking,
    Saying,
}

/// Prints agent events as plain lines. Progress (thinking, tool lines, errors) goes to
/// `progress`; the reply text to `reply`. Each event is rendered whole and written with one
/// write and flush (the agent already merges streamed text per batch), never piece by piece.
pub struct PlainOutput {
    color: bool,
    /// `ask` mode: the streamed reply is not printed (the final reply is, by the caller).
    quiet_reply: bool,
    /// The section being printed, and the text of the event being rendered.
    state: Mutex<(Section, String)>,
    write: fn(&str),
}

impl PlainOutput {
    /// Everything to stdout (the line REPL).
    pub fn stdout(color: bool) -> Self {
        PlainOutput {
            color,
            quiet_reply: false,
            state: Mutex::new((Section::None, String::new())),
            write: print_stdout,
        }
    }

    /// Progress to stderr, reply left to the caller (`ask`).
    pub fn stderr(color: bool) -> Self {
        PlainOutput { color, quiet_reply: true, state: Mutex::new((Section::None, String::new())), write: print_stderr }
    }

    fn paint(&self, style: &str, text: &str) -> String {
        if self.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// The text `event` prints, appended to `out`; `section` is where the output is.
    fn render(&self, event: AgentEvent, section: &mut Section, out: &mut String) {
        // Moves to a new section, ending the previous one's line.
        let mut enter = |next: Section, out: &mut String| {
            if *section != next && *section != Section::None {
                out.push('\n');
            }
            *section = next;
        };
        match event {
            AgentEvent::Delta(Delta::Thinking(text)) => {
                enter(Section::Thinking, out);
                out.push_str(&self.paint(DIM, &sanitize(&text)));
            }
            AgentEvent::Delta(Delta::Saying(text)) if !self.quiet_reply => {
                enter(Section::Saying, out);
                out.push_str(&sanitize(&text));
            }
            AgentEvent::ToolStarted { call, .. } => {
                enter(Section::None, out);
                out.push_str(&format!("+ {}\n", sanitize_visible(&call_line(&call.name, &call.arguments))));
            }
            AgentEvent::ToolFinished { result, .. } => {
                if let Some(error) = result.error() {
                    let first = error.lines().next().unwrap_or("");
                    out.push_str(&format!("{}\n", self.paint(RED, &format!("  x {}", sanitize(first)))));
                }
            }
            AgentEvent::Retrying { attempt, max, delay, reason } => {
                enter(Section::None, out);
                let line =
                    format!("{}: retrying in {:.1}s (attempt {attempt}/{max})", sanitize(&reason), delay.as_secs_f64());
                out.push_str(&format!("{}\n", self.paint(DIM, &line)));
            }
            AgentEvent::Error(message) => {
                enter(Section::None, out);
                out.push_str(&format!("{}\n", self.paint(RED, &format!("Error: {}", sanitize(&message)))));
            }
            AgentEvent::Info(text) => {
                enter(Section::None, out);
                out.push_str(&format!("{}\n", sanitize(&text)));
            }
            AgentEvent::Clipboard(text) if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
                out.push_str(&crate::clipboard::osc52(&text));
            }
            AgentEvent::TurnFinished { end, .. } => {
                enter(Section::None, out);
                if end == TurnEnd::Interrupted {
                    out.push_str(&format!("{}\n", self.paint(DIM, "[interrupted]")));
                }
            }
            _ => {}
        }
    }
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

/// `name(args)` with the arguments as compact JSON, cut to fit a line.
pub fn call_line(name: &str, args: &serde_json::Value) -> String {
    let mut args = args.to_string();
    if args.chars().count() > 120 {
        args = args.chars().take(117).collect::<String>() + "...";
    }
    format!("{name}({args})")
}

impl Output for PlainOutput {
    fn emit(&self, event: AgentEvent) {
        let Ok(mut state) = self.state.lock() else { return };
        let (section, text) = &mut *state;
        self.render(event, section, text);
        if !text.is_empty() {
            (self.write)(text);
            text.clear();
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

/// Lines from the process's stdin; the prompt is printed to stdout.
#[derive(Default)]
pub struct StdinInput {
    _shared: (),
}

impl Input for StdinInput {
    fn read_line(&mut self, prompt: &str) -> BoxFuture<'_, Option<String>> {
        print_stdout(prompt);
        Box::pin(async move { stdin_lines().lock().await.next_line().await.ok().flatten() })
    }
}

/// Asks `Allow? [y/N/a]` on the terminal.
pub struct LineApprover {
    pub color: bool,
}

/// The question `LineApprover` prints: what the call would do (the command, or the diff
/// with `+` lines green and `-` lines red), then `Allow TOOL? [y/N/a] `.
pub fn approval_question(request: &ApprovalRequest, color: bool) -> String {
    const GREEN: &str = "\x1b[32m";
    let what = match request.preview.kind {
        PreviewKind::Command => "wants to run",
        PreviewKind::Diff => "wants to make this change",
        PreviewKind::Arguments => "wants to run with",
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
    text.push_str(&format!("Allow {}? [y/N/a] ", sanitize_visible(&request.tool)));
    text
}

impl Approver for LineApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<'static, Approval> {
        let question = approval_question(&request, self.color);
        Box::pin(async move {
            print_stdout(&question);
            let answer = stdin_lines().lock().await.next_line().await.ok().flatten().unwrap_or_default();
            if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                print_stdout(&format!("{answer}\n")); // echo a piped answer, as a terminal would
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

/// Reads and dispatches lines until EOF or `/exit`.
pub struct Repl;

impl Repl {
    /// Runs until end of input or `/exit` (`None`), or until SIGTERM/SIGHUP (`Some`, after
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
