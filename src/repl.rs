//! The line-mode `Repl` (`elelem chat --plain`, or when stdin/stdout is not a terminal):
//! reads lines from an `Input` (`StdinInput`), dispatches each one, asks approvals on the
//! terminal (`LineApprover`), and prints what the agent shows through `PlainOutput`
//! (`printer.rs`). Ctrl-C cancels a running turn, never the process. A running command's
//! output is printed line by line as it comes (`live.rs`).

mod live;
mod models;
mod printer;

pub use printer::{use_color, PlainOutput, THINKING_PREFIX};

use crate::agent::input::{Approval, ApprovalRequest, Approver, Input, NEVER_ASK_AGAIN};
use crate::agent::session::Session;
use crate::agent::PreviewKind;
use crate::sanitize::sanitize_visible;
use crate::signals::{Stop, Stops};
use futures::future::BoxFuture;
use printer::{print_stdout, DIM, GREEN, RED, RESET};
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

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

/// Lines from the process's stdin; the prompt is printed to stdout. On a terminal it is
/// printed before the line is read, and the end of input (Ctrl-D) ends its line; piped, it
/// is printed with the line read (echoed, so output never continues the prompt's line),
/// so the end of input leaves no prompt behind.
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
        let first = self.first.take();
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
        if terminal {
            print_stdout(prompt);
        }
        let prompt = prompt.to_string();
        Box::pin(async move {
            if let Some(line) = first {
                let shown = if terminal { String::new() } else { prompt };
                print_stdout(&format!("{shown}{}\n", sanitize_visible(&line)));
                return Some(line);
            }
            let line = stdin_lines().lock().await.next_line().await.ok().flatten();
            match (&line, terminal) {
                // Echo a piped line after its prompt, as a terminal would show it typed.
                (Some(line), false) => print_stdout(&format!("{prompt}{}\n", sanitize_visible(line))),
                // The end of input on a terminal: the prompt's line ends.
                (None, true) => print_stdout("\n"),
                _ => {}
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
pub const PIPED_NOTICE: &str = "stdin is not a terminal: its lines are prompts, not answers; this run is \
     headless, as `elelem ask` is: tool calls that need approval are refused (allow them with --allow TOOL or --yolo)";

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
