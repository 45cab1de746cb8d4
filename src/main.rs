//! The `elelem` command line: `chat` (default), `ask`, `files` and `plugins`.

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use elelem::agent::input::DenyAll;
use elelem::agent::output::{Output, TurnEnd};
use elelem::ask::{prompt_with_stdin, JsonOutput};
use elelem::repl::{use_color, LineApprover, PlainOutput, Repl, StdinInput};
use elelem::startup::{banner, build_session, Options};
use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "elelem", version, about = "A fast, transparent terminal coding agent")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    global: Global,
}

#[derive(Args, Clone)]
struct Global {
    /// Provider: anthropic, openai, ollama or stub
    #[arg(short, long, global = true, value_name = "NAME")]
    provider: Option<String>,
    /// Model name (overrides ANTHROPIC_MODEL / OPENAI_MODEL / OLLAMA_MODEL)
    #[arg(short, long, global = true, value_name = "NAME")]
    model: Option<String>,
    /// Extended-thinking budget in tokens, where the provider supports it
    #[arg(long, global = true, value_name = "TOKENS", env = "ELELEM_THINKING")]
    thinking: Option<u32>,
    /// Trust this project: load its plugin files (.agents/plugins)
    #[arg(long, global = true)]
    trust: bool,
}

#[derive(Args, Clone, Default)]
struct PermissionFlags {
    /// Run this tool without asking (repeatable): --allow execute --allow write
    #[arg(long, value_name = "TOOL")]
    allow: Vec<String>,
    /// Run every tool call without asking (rules that deny still deny)
    #[arg(long)]
    yolo: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Chat interactively (the default)
    Chat {
        /// Line mode instead of the full-screen UI
        #[arg(long)]
        plain: bool,
        /// Leave the mouse to the terminal (native selection; no wheel scrolling)
        #[arg(long)]
        no_mouse: bool,
        #[command(flatten)]
        permissions: PermissionFlags,
    },
    /// Run one turn and print the reply
    Ask {
        /// The prompt; piped stdin is appended as a fenced block
        prompt: Vec<String>,
        /// Print every event as one JSON object per line
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        permissions: PermissionFlags,
    },
    /// Print files as a <documents> block (named paths, paths on stdin, or git ls-files)
    Files { paths: Vec<String> },
    /// List the plugin files and what each registered (tools, hooks, commands, providers)
    Plugins,
}

fn main() -> ExitCode {
    elelem::startup::quiet_caught_panics();
    let cli = Cli::parse();
    let options = |flags: PermissionFlags, headless: bool| Options {
        provider: cli.global.provider.clone(),
        model: cli.global.model.clone(),
        thinking_budget: cli.global.thinking,
        allow: flags.allow,
        yolo: flags.yolo,
        headless,
        trust: cli.global.trust,
        ..Options::default()
    };
    let command =
        cli.command.unwrap_or(Command::Chat { plain: false, no_mouse: false, permissions: PermissionFlags::default() });
    let result = match command {
        Command::Files { paths } => elelem::files::run(paths).map(|_| ExitCode::SUCCESS),
        Command::Plugins => {
            let mut options = options(PermissionFlags::default(), true);
            options.provider.get_or_insert_with(|| "stub".into());
            runtime().and_then(|rt| rt.block_on(plugins(options)))
        }
        Command::Ask { prompt, json, permissions } => {
            let options = Options { stderr_notices: json, ..options(permissions, true) };
            runtime().and_then(|rt| rt.block_on(ask(options, prompt.join(" "), json)))
        }
        Command::Chat { plain, no_mouse, permissions } => {
            let options = options(permissions, false);
            runtime().and_then(|rt| rt.block_on(chat(options, plain, !no_mouse)))
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("elelem: {}", elelem::sanitize::sanitize(&format!("{error:#}")));
            ExitCode::FAILURE
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")
}

async fn chat(options: Options, plain: bool, mouse: bool) -> anyhow::Result<ExitCode> {
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if interactive && !plain {
        let tui = elelem::tui::TuiOptions { mouse, color: use_color(true), yolo: options.yolo };
        let stopped = elelem::tui::run(&options, tui).await?;
        return Ok(stopped.map_or(ExitCode::SUCCESS, ExitCode::from));
    }
    let color = use_color(std::io::stdout().is_terminal());
    let output: Arc<dyn Output> = Arc::new(PlainOutput::stdout(color));
    let approver = Arc::new(LineApprover { color });
    let mut session = build_session(&options, output, Box::new(StdinInput::default()), approver)?;
    println!("{} ({}, {})", banner(), session.provider().name(), session.provider().model());
    if options.yolo {
        println!("--yolo: tool calls run without asking");
    }
    let stopped = Repl::run(&mut session).await;
    elelem::startup::shutdown();
    Ok(stopped.map_or(ExitCode::SUCCESS, |stop| ExitCode::from(stop.exit_status())))
}

/// `elelem plugins`: sets up a session (on the stub unless `-p` says otherwise) and prints
/// `/plugins`.
async fn plugins(options: Options) -> anyhow::Result<ExitCode> {
    let output: Arc<dyn Output> = Arc::new(PlainOutput::stdout(use_color(std::io::stdout().is_terminal())));
    let mut session = build_session(&options, output, Box::new(StdinInput::default()), Arc::new(DenyAll))?;
    session.command("/plugins");
    Ok(ExitCode::SUCCESS)
}

async fn ask(options: Options, prompt: String, json: bool) -> anyhow::Result<ExitCode> {
    let mut piped = String::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin().read_to_string(&mut piped).context("cannot read stdin")?;
    }
    let prompt = prompt_with_stdin(&prompt, &piped);
    if prompt.trim().is_empty() {
        anyhow::bail!("ask needs a prompt: elelem ask \"what does this project do?\"");
    }
    let output: Arc<dyn Output> = if json {
        Arc::new(JsonOutput::default())
    } else {
        Arc::new(PlainOutput::stderr(use_color(std::io::stderr().is_terminal())))
    };
    let mut session = build_session(&options, output, Box::new(StdinInput::default()), Arc::new(DenyAll))?;
    let cancel = session.interrupter().begin();
    let interrupter = session.interrupter().clone();
    let mut stops = elelem::signals::Stops::new(true)?;
    tokio::spawn(async move {
        // Ctrl-C interrupts the turn (exit 130 below); SIGTERM and SIGHUP end at once.
        loop {
            let stop = stops.next().await;
            interrupter.interrupt();
            if stop != elelem::signals::Stop::Interrupt {
                elelem::startup::shutdown();
                std::process::exit(i32::from(stop.exit_status()));
            }
        }
    });
    let outcome = session.turn(&prompt, cancel).await;
    elelem::startup::shutdown();
    if !json {
        println!("{}", elelem::sanitize::sanitize(&outcome.reply));
    }
    Ok(match outcome.end {
        TurnEnd::Done => ExitCode::SUCCESS,
        TurnEnd::Failed => ExitCode::FAILURE,
        TurnEnd::Interrupted => ExitCode::from(130),
    })
}
