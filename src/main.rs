//! The `elelem` command line: `chat` (default; `elelem "prompt"` starts it with that
//! prompt sent first), `ask`, `acp`, `mcp`, `files` and `plugins`.

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use elelem::agent::input::DenyAll;
use elelem::agent::output::{Output, TurnEnd};
use elelem::ask::schema::{Schema, Shaped};
use elelem::ask::{prompt_with_stdin, JsonOutput};
use elelem::repl::{use_color, LineApprover, PlainOutput, Repl, StdinInput};
use elelem::sanitize::sanitize;
use elelem::startup::{banner, build_session, trust_question, Options, SessionChoice};
use elelem::tui::text::background::ThemeChoice;
use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "elelem", version, about = "A fast, transparent terminal coding agent")]
#[command(allow_external_subcommands = true, after_help = "elelem \"PROMPT\" starts chat with PROMPT sent first")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    global: Global,
}

/// `--effort`'s value.
fn parse_effort(text: &str) -> Result<elelem::protocol::Effort, String> {
    use elelem::protocol::Effort;
    Effort::parse(text).ok_or_else(|| format!("expected {}", Effort::WORDS))
}

/// Flags accepted anywhere on the command line: `elelem --yolo` is `elelem chat --yolo`.
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
    /// Reasoning effort: low, medium or high (OpenAI reasoning_effort, Anthropic's thinking
    /// budget, Ollama think)
    #[arg(long, global = true, value_name = "LEVEL", env = "ELELEM_EFFORT", value_parser = parse_effort)]
    effort: Option<elelem::protocol::Effort>,
    /// The provider's own web search, run on its side: Anthropic's web search server tool,
    /// OpenAI's web_search_options (search models only)
    #[arg(long, global = true, env = "ELELEM_WEB_SEARCH", value_parser = clap::builder::FalseyValueParser::new())]
    web_search: bool,
    #[command(flatten)]
    permissions: PermissionFlags,
    #[command(flatten)]
    chat: ChatFlags,
    /// Resume the latest session of this directory
    #[arg(short = 'c', long = "continue", global = true)]
    continue_session: bool,
    /// Resume a session by id (or pick one from a list)
    #[arg(long, global = true, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    resume: Option<String>,
    /// Trust this project's .agents/ settings for this run (its permission rules may
    /// loosen yours; your deny rules still win)
    #[arg(long, global = true)]
    trust: bool,
    /// Model calls one turn may make before it is stopped (default 100)
    #[arg(long, global = true, value_name = "N", env = "ELELEM_MAX_STEPS", value_parser = clap::value_parser!(u32).range(1..))]
    max_steps: Option<u32>,
}

#[derive(Args, Clone, Default)]
struct PermissionFlags {
    /// Run this tool without asking (repeatable): --allow execute --allow write
    #[arg(long, global = true, value_name = "TOOL")]
    allow: Vec<String>,
    /// Run every tool call without asking (rules that deny still deny)
    #[arg(long, global = true)]
    yolo: bool,
    /// Sandbox for `execute`: workspace-write (the default where the kernel has Landlock),
    /// read-only or off
    #[arg(long, global = true, value_name = "MODE", env = "ELELEM_SANDBOX")]
    sandbox: Option<String>,
    /// Let contained commands use the network (no network namespace, no TCP rule)
    #[arg(long, global = true)]
    sandbox_network: bool,
    /// Start in this mode: ask (the default), edits (file changes inside the project run
    /// unasked) or plan (read-only tools only); /mode and Shift+Tab change it
    #[arg(long, global = true, value_name = "ask|edits|plan", value_parser = parse_mode)]
    mode: Option<elelem::protocol::mode::Mode>,
}

fn parse_mode(text: &str) -> Result<elelem::protocol::mode::Mode, String> {
    elelem::protocol::mode::Mode::parse(text).ok_or_else(|| format!("`{text}` is not a mode: ask, edits or plan"))
}

#[derive(Args, Clone, Default)]
struct ChatFlags {
    /// chat: line mode instead of the full-screen UI
    #[arg(long, global = true)]
    plain: bool,
    /// chat: leave the mouse to the terminal (native selection; no wheel scrolling)
    #[arg(long, global = true)]
    no_mouse: bool,
    /// chat: colours for a light or dark terminal background (auto: the background colour
    /// the terminal answers to an OSC 11 query, else COLORFGBG, else dark); without it,
    /// ELELEM_THEME, then what /theme saved, then auto
    #[arg(long, global = true, value_name = "light|dark|auto", value_parser = parse_theme)]
    theme: Option<ThemeChoice>,
}

fn parse_theme(text: &str) -> Result<ThemeChoice, String> {
    ThemeChoice::parse(text).ok_or_else(|| format!("`{text}` is not a theme: light, dark or auto"))
}

#[derive(Subcommand)]
enum Command {
    /// Chat interactively (the default)
    Chat,
    /// Run one turn and print the reply
    Ask {
        /// The prompt; piped stdin is appended as a fenced block
        prompt: Vec<String>,
        /// Print every event as one JSON object per line
        #[arg(long)]
        json: bool,
        /// The reply must fit this JSON Schema (a file, or inline JSON): stdout is only its value
        #[arg(long, value_name = "FILE|JSON")]
        json_schema: Option<String>,
    },
    /// Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, ...)
    Acp,
    /// Serve the agent as an MCP server on stdin/stdout (tools: prompt, sessions)
    Mcp {
        /// Another folder calls may work in (repeatable; the current one always is)
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<std::path::PathBuf>,
    },
    /// Print files as a <documents> block (named paths, paths on stdin, or git ls-files)
    Files { paths: Vec<String> },
    /// List recorded sessions, newest first
    Sessions,
    /// List the plugin files and what each registered (tools, hooks, commands, providers)
    Plugins,
    /// Any other word starts chat with the words as its first prompt: `elelem "fix the
    /// failing test"` (flags go before the prompt; a subcommand's name is never a prompt)
    #[command(external_subcommand)]
    Prompt(Vec<String>),
}

fn main() -> ExitCode {
    elelem::startup::protect_process();
    // Before any thread starts too: HOME from USERPROFILE on Windows (nothing elsewhere).
    elelem::data_dir::default_home();
    // The relocation table the loader has just applied is never read again.
    elelem::relocations::release();
    elelem::startup::quiet_caught_panics();
    elelem::signals::ignore_file_size_limit();
    let cli = Cli::parse();
    let global = cli.global;
    // `--resume` without an id in the full-screen app: its picker, not a numbered question.
    let tui_runs = matches!(&cli.command, None | Some(Command::Chat) | Some(Command::Prompt(_)))
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
        && !global.chat.plain;
    let pick_in_tui = tui_runs && global.resume.as_deref() == Some("");
    let session = match session_choice(&global, pick_in_tui) {
        Ok(choice) => choice,
        Err(error) => {
            eprintln!("elelem: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    let sandbox_mode = match global.permissions.sandbox.as_deref().map(elelem::tools::sandbox::Mode::parse) {
        None => None,
        Some(Ok(mode)) => Some(mode),
        Some(Err(error)) => {
            eprintln!("elelem: --sandbox: {error}");
            return ExitCode::FAILURE;
        }
    };
    elelem::tools::sandbox::configure(
        sandbox_mode,
        global.permissions.sandbox_network,
        elelem::data_dir::data_dir().into_iter().collect(),
    );
    let options = |headless: bool| Options {
        session: session.clone(),
        provider: global.provider.clone(),
        model: global.model.clone(),
        thinking_budget: global.thinking,
        effort: global.effort,
        web_search: global.web_search,
        allow: global.permissions.allow.clone(),
        yolo: global.permissions.yolo,
        mode: global.permissions.mode,
        max_steps: global.max_steps.map(|n| n as usize),
        headless,
        trust: global.trust,
        // The line front ends' pace (the TUI sets its own, ACP its own).
        pace: Some(elelem::startup::LINE_PACE),
        ..Options::default()
    };
    let (command, first) = match cli.command.unwrap_or(Command::Chat) {
        Command::Prompt(words) => (Command::Chat, Some(words.join(" ")).filter(|p| !p.trim().is_empty())),
        command => (command, None),
    };
    let result = match command {
        Command::Files { paths } => elelem::files::run(paths).map(|_| ExitCode::SUCCESS),
        Command::Sessions => {
            print!(
                "{}",
                sessions_table(&elelem::sessions::Store::default_location().map(|s| s.list()).unwrap_or_default())
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Plugins => {
            let mut options = options(true);
            options.provider.get_or_insert_with(|| "stub".into());
            runtime().and_then(|rt| rt.block_on(plugins(options)))
        }
        Command::Ask { prompt, json, json_schema } => {
            let options = Options { stderr_notices: json, ..options(true) };
            // A schema that is not one is refused before anything starts.
            let result = json_schema.as_deref().map(Schema::load).transpose().and_then(|schema| {
                let ask = ask(options, prompt.join(" "), json, schema);
                one_thread_runtime().and_then(|rt| rt.block_on(on_a_task(ask)))
            });
            elelem::startup::shutdown();
            result
        }
        Command::Acp => {
            let result = runtime().and_then(|rt| rt.block_on(on_a_task(elelem::acp::run(options(false)))));
            elelem::startup::shutdown();
            result.map(|_| ExitCode::SUCCESS)
        }
        Command::Mcp { roots } => {
            let result = runtime().and_then(|rt| rt.block_on(on_a_task(elelem::mcp_server::run(options(true), roots))));
            elelem::startup::shutdown();
            result.map(|_| ExitCode::SUCCESS)
        }
        Command::Chat | Command::Prompt(_) => {
            let options = options(false);
            let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
            if interactive && !global.chat.plain {
                let chat = tui_chat(options, !global.chat.no_mouse, global.chat.theme, first, pick_in_tui);
                runtime().and_then(|rt| rt.block_on(chat))
            } else {
                let result = one_thread_runtime().and_then(|rt| rt.block_on(on_a_task(line_chat(options, first))));
                elelem::startup::shutdown();
                result
            }
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

/// `--continue`, `--resume ID`, or `--resume` alone (a numbered list to pick from, or in
/// the full-screen app its picker, over a new session until one is chosen).
fn session_choice(global: &Global, pick_in_tui: bool) -> anyhow::Result<SessionChoice> {
    Ok(match (&global.resume, global.continue_session) {
        (Some(id), _) if !id.is_empty() => SessionChoice::Resume(id.clone()),
        (Some(_), _) if pick_in_tui => SessionChoice::New,
        (Some(_), _) => SessionChoice::Resume(pick_session()?),
        (None, true) => SessionChoice::Continue,
        (None, false) => SessionChoice::New,
    })
}

/// Lists the newest sessions and reads a number from the terminal.
fn pick_session() -> anyhow::Result<String> {
    let sessions = elelem::sessions::Store::default_location().map(|s| s.list()).unwrap_or_default();
    anyhow::ensure!(!sessions.is_empty(), "no recorded sessions to resume");
    anyhow::ensure!(
        std::io::stdin().is_terminal(),
        "--resume without an id needs a terminal; `elelem sessions` lists the ids"
    );
    let shown = &sessions[..sessions.len().min(20)];
    print!("{}", sessions_table(shown));
    print!("Resume which session? [1-{}] ", shown.len());
    std::io::Write::flush(&mut std::io::stdout())?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    let n: usize = answer.trim().parse().with_context(|| format!("not a number: {:?}", answer.trim()))?;
    let chosen = n.checked_sub(1).and_then(|i| shown.get(i)).with_context(|| format!("no session {n}"))?;
    Ok(chosen.file.id.clone())
}

/// One line per session: number, id, start date and time (UTC), turns, size, directory,
/// first prompt. All of it comes from files anyone could have written: the id and directory
/// are shown with invisible characters made visible, the prompt sanitised like a reply.
fn sessions_table(sessions: &[elelem::sessions::SessionInfo]) -> String {
    use elelem::sanitize::{sanitize, sanitize_visible};
    let mut out = String::new();
    for (i, s) in sessions.iter().enumerate() {
        let prompt: String = sanitize(&s.first_prompt).chars().take(50).collect();
        let turns = if s.truncated { format!("{}+", s.turns) } else { s.turns.to_string() };
        out.push_str(&format!(
            "{:>3}. {}  {}  {:>4} {}  {:>8}  {:>18}  {}  {}\n",
            i + 1,
            sanitize_visible(&s.file.id),
            elelem::dates::date_time(s.started),
            turns,
            if s.turns == 1 && !s.truncated { "turn " } else { "turns" },
            human_size(s.bytes),
            tokens(&s.usage),
            sanitize_visible(&s.cwd),
            prompt
        ));
    }
    if out.is_empty() {
        out.push_str("no recorded sessions\n");
    }
    out
}

/// `↑1.2M (88% cached) ↓4k`: a session's tokens in and out, and the share read from cache.
fn tokens(usage: &elelem::protocol::Usage) -> String {
    let short = |n: u64| match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{}k", n / 1_000),
        n => n.to_string(),
    };
    if usage.input_tokens + usage.output_tokens == 0 {
        return "-".into();
    }
    let cached = match usage.cache_read_tokens {
        0 => String::new(),
        _ => format!(" ({}% cached)", usage.cache_read_percent()),
    };
    format!("↑{}{cached} ↓{}", short(usage.input_tokens), short(usage.output_tokens))
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// The interactive runtime: the UI runs on the main thread (`block_on`), and one worker runs
/// the agent, its tools' async parts and the extensions; blocking work goes to tokio's
/// blocking pool (`spawn_blocking`, `block_in_place`). A second worker only woke up to find
/// nothing to steal: two thread switches per streamed batch instead of one (~30% of the
/// workers' CPU in a paced stream).
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The runtime of `ask` and the line REPL: one thread. The HTTP connection, the stream
/// parser and the output run on it, so a streamed reply costs no cross-thread wake per
/// chunk (~2 s of CPU for 1 MB in 32-byte events when the REPL ran on the interactive
/// runtime). Blocking work (stdin, tool commands) still goes to tokio's blocking pool.
fn one_thread_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")
}

/// Runs `work` as a task of the runtime, not as `block_on`'s own future. On a
/// current-thread runtime, a task that wakes the `block_on` future makes the runtime look
/// at its sockets (an `epoll_wait`) before polling it again; a task waking a task does not.
/// A streamed reply hands each chunk from the HTTP connection's task to the reader, so as
/// the `block_on` future that was one system call per network event (~31,000 for 1 MB).
/// Other tasks may still run between the end of `work` and `block_on` returning, so what
/// would make them speak (stopping the MCP servers: their tasks report the broken pipe,
/// after `ask --json`'s last line) is done once the runtime is gone.
async fn on_a_task<T: Send + 'static>(
    work: impl std::future::Future<Output = anyhow::Result<T>> + Send + 'static,
) -> anyhow::Result<T> {
    tokio::spawn(work).await.context("the command's task failed")?
}

async fn tui_chat(
    options: Options,
    mouse: bool,
    theme: Option<ThemeChoice>,
    first_prompt: Option<String>,
    pick_session: bool,
) -> anyhow::Result<ExitCode> {
    let color = use_color(true);
    let tui = elelem::tui::TuiOptions { mouse, color, yolo: options.yolo, theme, first_prompt, pick_session };
    let options = Options { replay_history: true, ..options };
    let stopped = elelem::tui::run(&options, tui).await?;
    Ok(stopped.map_or(ExitCode::SUCCESS, ExitCode::from))
}

/// The line REPL (stdin or stdout is not a terminal, or `--plain`).
/// With stdin not a terminal, the lines are prompts, never answers: what would be asked
/// about is refused as in `ask` (the session is headless), and the REPL says so at start.
async fn line_chat(options: Options, first: Option<String>) -> anyhow::Result<ExitCode> {
    let color = use_color(std::io::stdout().is_terminal());
    let piped = !std::io::stdin().is_terminal();
    let options = Options { headless: options.headless || piped, ..options };
    let output: Arc<dyn Output> = Arc::new(PlainOutput::stdout(color));
    let approver = Arc::new(LineApprover { color });
    // Only a person at a terminal can answer; piped input never waits on the question. It
    // comes before the session is built, so what the session sets up and says follows it.
    let trust = match trust_question(&options).filter(|_| std::io::stdin().is_terminal()) {
        Some(question) => Some(question.answer(approver.as_ref()).await),
        None => None,
    };
    let options = Options { trust: options.trust || trust.as_ref().is_some_and(|a| a.trusted()), ..options };
    let input = first.map_or_else(StdinInput::default, StdinInput::with_first);
    let mut session = build_session(&options, output, Box::new(input), approver)?;
    session.set_editor(Arc::new(elelem::repl::LineEditor));
    let (provider, sandbox) = (session.provider(), elelem::startup::sandbox_label());
    // The provider refuses a model name with control characters; a plugin's provider name
    // is not checked, so both are sanitized on their way out.
    let (name, model) = (sanitize(provider.name()), sanitize(provider.model()));
    println!("{} ({name}, {model}) · {sandbox}", banner());
    if options.yolo {
        println!("--yolo: tool calls run without asking");
    } else if piped {
        println!("{}", elelem::repl::PIPED_NOTICE);
    }
    if let Some(answered) = trust {
        answered.tell(&session);
    }
    let stopped = Repl::run(&mut session).await;
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

async fn ask(options: Options, prompt: String, json: bool, schema: Option<Schema>) -> anyhow::Result<ExitCode> {
    let mut piped = String::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin().read_to_string(&mut piped).context("cannot read stdin")?;
    }
    let prompt = prompt_with_stdin(&prompt, &piped);
    if prompt.trim().is_empty() {
        anyhow::bail!("ask needs a prompt: elelem ask \"what does this project do?\"");
    }
    let json_output = json.then(|| Arc::new(JsonOutput::default()));
    let finished = json_output.clone();
    let color = use_color(std::io::stderr().is_terminal());
    let output: Arc<dyn Output> = match &json_output {
        Some(json_output) => json_output.clone(),
        // With a schema the reply is checked before anything reaches stdout.
        None if schema.is_some() => Arc::new(PlainOutput::progress(color)),
        None => Arc::new(PlainOutput::stderr(color)),
    };
    let mut session = build_session(&options, output, Box::new(StdinInput::default()), Arc::new(DenyAll))?;
    // The sandbox for commands, once, where progress goes (stdout is the reply or JSON lines).
    eprintln!("elelem: {}", elelem::startup::sandbox_label());
    let cancel = session.interrupter().begin();
    let interrupter = session.interrupter().clone();
    let mut stops = elelem::signals::Stops::new(true)?;
    tokio::spawn(async move {
        // Ctrl-C interrupts the turn (exit 130 below); SIGTERM, SIGHUP and SIGQUIT end at once.
        loop {
            let stop = stops.next().await;
            interrupter.interrupt();
            if stop != elelem::signals::Stop::Interrupt {
                if let Some(json_output) = &json_output {
                    json_output.close();
                }
                elelem::startup::shutdown();
                std::process::exit(i32::from(stop.exit_status()));
            }
        }
    });
    let end = match schema {
        Some(schema) => match schema.run(&mut session, &prompt, cancel).await {
            Shaped::Fits(value) => {
                match &finished {
                    Some(json_output) => json_output.value(&value),
                    // Escaped as `--json` lines are: the same value, nothing a terminal acts on.
                    None => println!("{}", elelem::sanitize::escape_json_line(&value.to_string())),
                }
                TurnEnd::Done
            }
            Shaped::Never(complaint) => {
                let message = format!(
                    "the reply does not fit the JSON Schema after {} tries: {complaint}",
                    elelem::ask::schema::RETRIES + 1
                );
                match &finished {
                    Some(json_output) => json_output.error(&message),
                    None => eprintln!("elelem: {}", sanitize(&message)),
                }
                TurnEnd::Failed
            }
            Shaped::Ended(end) => end,
        },
        None => session.turn(&prompt, cancel).await.end,
    };
    if let Some(json_output) = &finished {
        json_output.finish();
    }
    Ok(match end {
        TurnEnd::Done => ExitCode::SUCCESS,
        TurnEnd::Failed => ExitCode::FAILURE,
        TurnEnd::Interrupted => ExitCode::from(130),
    })
}
