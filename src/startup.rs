//! Startup, the one composition root: builds a `Session` the way ARCHITECTURE.md ("The objects") says — the
//! providers registry (stub included), the agent, every plugin's setup block against the
//! session (built-ins, then plugin files), and the provider named by `-p` (or the default):
//! a name no built-in provider has is looked up again after the plugin files declared
//! theirs. This is the only place that lists the built-in plugins, turns command-line
//! options into their settings, and says how a declared provider's wire is built.

mod recording;
pub mod sub_agents;

pub use crate::pacing::{Demand, Pace, LINE_PACE};
pub use recording::{sessions_in, unrecorded_id, SessionChoice, SessionRow};

use crate::agent::input::{Approver, Input};
use crate::agent::output::Output;
use crate::agent::system_prompt::{Environment, Sandbox, SystemPrompt};
use crate::agent::toolbox::Toolbox;
use crate::agent::transcript::Transcript;
use crate::agent::{Agent, Plugin, Session};
use crate::plugins::agent_files::AgentFiles;
use crate::plugins::checkpoints::Checkpoints;
use crate::plugins::commands::BuiltinCommands;
use crate::plugins::cost::CostPlugin;
use crate::plugins::hooks::run::{CommandRunner, Ended, Ran, Script};
use crate::plugins::hooks::{HookSession, HooksPlugin};
use crate::plugins::lua::{Endpoint, Folders, LuaSettings, PluginFiles, Wire};
pub use crate::plugins::mcp::config::{ServerConfig as McpServer, Transport as McpTransport, DEFAULT_CALL_TIMEOUT};
use crate::plugins::mcp::{McpPlugin, McpSettings};
use crate::plugins::md_commands::MarkdownCommands;
use crate::plugins::mentions::Mentions;
use crate::plugins::permissions::{PermissionFlags, PermissionsPlugin};
use crate::plugins::redact::RedactPlugin;
use crate::plugins::sandbox_command::SandboxCommand;
use crate::plugins::shell_escape::ShellEscape;
use crate::plugins::skills::SkillsPlugin;
use crate::plugins::transcript_export::TranscriptExport;
use crate::plugins::trust::{ProjectTrust, Trust, TrustQuestion, TrustStore};
use crate::protocol::mode::Mode;
use crate::protocol::{Provider, ProviderError, ProviderSettings, Providers};
use crate::providers::anthropic::{self, AnthropicConfig, AnthropicProvider};
use crate::providers::http::HttpOptions;
use crate::providers::ollama::{self, OllamaConfig, OllamaProvider};
use crate::providers::openai::{self, OpenAiConfig, OpenAiProvider};
use crate::providers::prompt_cache::PromptCache;
use crate::tools::secret_env::SecretPolicy;
use crate::tools::BuiltinTools;
use anyhow::Context as _;
use recording::{record, restore, Recording};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use sub_agents::{Children, Models};

/// Options shared by every front end.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub thinking_budget: Option<u32>,
    /// `--effort`: how hard a reasoning model should think.
    pub effort: Option<crate::protocol::Effort>,
    /// `--web-search`: the provider's own web search, where it has one.
    pub web_search: bool,
    /// Tools allowed without asking (`--allow TOOL`, repeatable).
    pub allow: Vec<String>,
    /// Allow every tool call without asking (`--yolo`); front ends show it.
    pub yolo: bool,
    /// Nobody can answer questions (`ask`): calls whose policy is `ask` are refused.
    pub headless: bool,
    /// The mode to start in (`--mode`); `None`: ask, or a resumed session's last mode.
    pub mode: Option<crate::protocol::mode::Mode>,
    /// Trust the project's own `.agents/` settings for this run (`--trust`).
    pub trust: bool,
    /// Model calls one turn may make (`--max-steps`, `ELELEM_MAX_STEPS`); `None`: the
    /// kernel's default.
    pub max_steps: Option<usize>,
    /// Also print plugin load failures and notices on stderr (`ask --json`, whose stdout
    /// is read by a program).
    pub stderr_notices: bool,
    /// MCP servers the front end adds to the user's files' (an ACP client's).
    pub mcp_servers: Vec<McpServer>,
    /// Wait for the MCP servers to settle before each turn, though someone can answer
    /// questions (ACP: the editor shows nothing of servers starting).
    pub settle_mcp: bool,
    /// Plugins set up after the built-in ones (embedders and test harnesses).
    pub extra_plugins: ExtraPlugins,
    /// Which session to record into: a new one, the latest of this directory, or one by id.
    pub session: SessionChoice,
    /// Show a resumed session's history again through the output (the full-screen app);
    /// otherwise a one-line summary.
    pub replay_history: bool,
    /// When the front end wants streamed text (`LINE_PACE` for the line front ends; the
    /// TUI's frame scheduler grants it, `Pace::Asked`): every provider the session builds
    /// is then paced (`crate::pacing`: text arriving in between is merged and handed over
    /// at once). `None`: streams are read as they come.
    pub pace: Option<Pace>,
    /// Filled with the session's jobs, for a front end that shows them live.
    pub jobs: JobsView,
}

/// The session's background jobs for a front end that shows them live (the TUI's jobs popup
/// while it is open): a slot the front end hands in (`Options::jobs`), which each session
/// built fills with its jobs table's rows.
#[derive(Clone, Default)]
pub struct JobsView(Arc<std::sync::Mutex<Option<ListJobs>>>);

type ListJobs = Arc<dyn Fn() -> Vec<crate::protocol::events::JobRow> + Send + Sync>;

impl JobsView {
    /// The jobs now, oldest first (`None` before a session filled the view).
    pub fn rows(&self) -> Option<Vec<crate::protocol::events::JobRow>> {
        let list = self.0.lock().ok()?.clone()?;
        Some(list())
    }

    /// Where the rows come from from now on (the session built last: its jobs table).
    pub fn fill(&self, list: impl Fn() -> Vec<crate::protocol::events::JobRow> + Send + Sync + 'static) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(Arc::new(list));
        }
    }
}

impl fmt::Debug for JobsView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JobsView")
    }
}

/// Plugins added by whoever embeds elelem.
#[derive(Clone, Default)]
pub struct ExtraPlugins(pub Vec<Arc<dyn Plugin>>);

impl fmt::Debug for ExtraPlugins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter().map(|p| p.name())).finish()
    }
}

/// The plugins every session starts with, in order. Permissions come after the tools so
/// rules and `--allow` names written with an alias resolve to the tool; checkpoints come
/// after permissions so a refused call keeps none; redaction comes last so its after hook
/// sees what the others' hooks returned.
/// `hook_session`: the recorded session's id and file, which hooks are told.
pub fn builtin_plugins(options: &Options, checkpoints: Checkpoints, hook_session: HookSession) -> Vec<Arc<dyn Plugin>> {
    let flags = PermissionFlags {
        allow: options.allow.clone(),
        yolo: options.yolo,
        headless: options.headless,
        trust: options.trust,
        sandbox: crate::plugins::permissions::SandboxLink::new(crate::tools::sandbox::link),
    };
    let secrets = SecretPolicy::from_env().secret_values();
    // TRUST: the project's MCP servers start only when the project is trusted.
    let project = std::env::current_dir().unwrap_or_default();
    let commands_trust = project_trust(options, &project);
    // TRUST: the project's hooks run only when the project is trusted.
    let (hooks_cwd, hooks_trust) = (project.clone(), project_trust(options, &project));
    // TRUST: the project's agent files (tools and a model of their own) load only when the project is trusted.
    let agents_trust = project_trust(options, &project);
    // TRUST: the project's language servers (lsp.json) start only when the project is trusted.
    let (cwd_for_lsp, lsp_trust) = (project.clone(), project_trust(options, &project));
    let mcp = McpSettings {
        trust: project_trust(options, &project),
        headless: options.headless || options.settle_mcp,
        home: home(),
        project,
        extra: options.mcp_servers.clone(),
    };
    let jobs = crate::tools::jobs::Jobs::new();
    let (listed, stopped, viewed) = (Arc::clone(&jobs), Arc::clone(&jobs), Arc::clone(&jobs));
    options.jobs.fill(move || viewed.rows());
    vec![
        Arc::new(BuiltinTools::with_jobs(jobs)),
        Arc::new(crate::plugins::jobs_command::JobsCommand::new(
            move || (listed.describe(), listed.rows()),
            move |id| stopped.stop_now(id),
        )),
        // What the user types: `!command` lines run in the shell, `@path` mentions attached.
        Arc::new(ShellEscape::new(crate::tools::shell::runner())),
        Arc::new(Mentions),
        Arc::new(McpPlugin::new(mcp)),
        Arc::new(PermissionsPlugin::new(flags)),
        Arc::new(BuiltinCommands),
        // Skills and Markdown commands are instructions, not code: a project's load untrusted.
        Arc::new(SkillsPlugin::new(home())),
        Arc::new(MarkdownCommands::new(home(), commands_trust)),
        // Agents defined in files, which the task tool offers (after the tools: it replaces it).
        Arc::new(AgentFiles::new(home(), agents_trust, crate::tools::CLAUDE_CODE_NAMES, crate::tools::task::offering)),
        Arc::new(crate::plugins::nested_agents::NestedAgents::new()),
        Arc::new(CostPlugin::new(home())),
        Arc::new(checkpoints),
        Arc::new(crate::plugins::lsp::LspPlugin::new(home(), cwd_for_lsp, lsp_trust, lsp_contain())),
        Arc::new(HooksPlugin::new(
            home(),
            hooks_cwd,
            hooks_trust,
            hook_runner(),
            crate::tools::CLAUDE_CODE_NAMES,
            hook_session,
        )),
        Arc::new(RedactPlugin::new(secrets)),
        Arc::new(SandboxCommand::new(crate::tools::sandbox::describe, crate::tools::sandbox::switch)),
    ]
}

/// Runs a hook's script through the tools' runner with input (its JSON on stdin through a
/// pipe, stdout and stderr apart, own process group, secret variables removed, output
/// bounded, the tree killed at its timeout), not contained: hooks are the user's own
/// commands.
fn hook_runner() -> CommandRunner {
    Arc::new(|script: Script, cancel| {
        Box::pin(async move {
            use crate::tools::run_command::{Ending, Limits};
            use crate::tools::run_with_input;
            let limits = Limits { timeout: script.timeout, keep: 64 * 1024, max_output: 1024 * 1024 };
            let piped = run_with_input::run(&script.text, &script.cwd, script.stdin, &limits, &cancel).await?;
            let ended = match piped.ending {
                Ending::Exited(status) => Ended::Exited(status),
                ending => Ended::Stopped(run_with_input::stopped(ending, &limits)),
            };
            Ok::<Ran, anyhow::Error>(Ran { ended, stdout: piped.stdout, stderr: piped.stderr })
        })
    })
}

/// How a language server starts: without secret variables, and contained like a command
/// while the sandbox is on (a server runs the project's code: build scripts, proc macros,
/// plugins it loads), else in a process group of its own.
fn lsp_contain() -> crate::plugins::lsp::Contain {
    Arc::new(|cmd: &mut tokio::process::Command, project: &Path| {
        let policy = SecretPolicy::from_env();
        let contained = crate::tools::sandbox::active();
        let removed = if contained { policy.removed_names_contained() } else { policy.removed_names() };
        for name in removed {
            cmd.env_remove(name);
        }
        if contained {
            crate::tools::sandbox::contain(cmd, project, None)
        } else {
            crate::process_tree::own_group(cmd);
            Ok(())
        }
    })
}

/// Where the model's commands run, as the system prompt states it: the shell `execute`
/// runs (`tools::run_command` starts `bash -c`) and the sandbox in force, read at each
/// render from the sandbox's settings (so `/sandbox` shows at the next call).
fn environment() -> Environment {
    use crate::tools::sandbox;
    let sandbox = match sandbox::mode() {
        _ if !sandbox::active() => Sandbox::Off,
        sandbox::Mode::Off => Sandbox::Off,
        sandbox::Mode::ReadOnly => Sandbox::ReadOnly,
        sandbox::Mode::WorkspaceWrite => Sandbox::WorkspaceWrite,
    };
    let shell = crate::tools::shell_program::name().to_string();
    Environment { shell, sandbox, network: sandbox::settings().network }
}

/// How a sub-agent defined in a file gets its `model`: the parent's provider, by name,
/// built again from the registry with that model and the session's other settings.
fn agent_models(providers: Providers, settings: ProviderSettings) -> Models {
    Arc::new(move |current, model| {
        let settings = ProviderSettings { model: Some(model.to_string()), ..settings.clone() };
        providers.build(current.name(), &settings).map_err(|error| error.to_string())
    })
}

/// Whether the project around `cwd` is trusted: `--trust`, or remembered in the trust
/// store (asked again at each `/reload`, so trusting the project during a run applies).
fn project_trust(options: &Options, cwd: &Path) -> ProjectTrust {
    ProjectTrust::new(trust(options), cwd.to_path_buf())
}

/// `--trust`, else the user's trust store.
fn trust(options: &Options) -> Trust {
    Trust::new(TrustStore::from_env(), options.trust)
}

/// The user's home directory (`$HOME`, when set and not empty).
fn home() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(std::path::PathBuf::from)
}

/// What the user set up for this project, as the TUI's first screen tells it: plugin files
/// that load and MCP servers that start (the project's only when it is trusted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Configured {
    pub plugin_files: usize,
    pub mcp_servers: usize,
}

pub fn configured(options: &Options, cwd: &Path) -> Configured {
    let trust = project_trust(options, cwd);
    let trusted = trust.is_trusted();
    let folders = crate::plugins::lua::loader::Folders::with_trust(home().as_deref(), cwd, trust);
    let mcp = crate::plugins::mcp::config::load(home().as_deref(), cwd, trusted);
    Configured { plugin_files: folders.scan().files.len(), mcp_servers: mcp.servers.len() }
}

/// The values of this process's secret variables (read once): what a front end masks in a
/// command's output while it streams (the result itself is masked by the tool).
pub fn secret_values() -> &'static [String] {
    static VALUES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    VALUES.get_or_init(|| SecretPolicy::from_env().secret_values())
}

/// The id of the newest session recorded in `cwd`: the one `--continue` would pick up.
pub fn latest_session_id(cwd: &Path) -> Option<String> {
    crate::sessions::Store::default_location()?.latest_in(cwd).map(|info| info.file.id)
}

/// The plugin that loads `~/.agents/plugins/*.lua` and, in a trusted project,
/// `.agents/plugins/*.lua`.
pub fn plugin_files(options: &Options, cwd: &Path) -> Arc<dyn Plugin> {
    // TRUST: whether this project's plugin files load (`--trust` or the trust store).
    let trust = project_trust(options, cwd);
    let home = home();
    let settings = LuaSettings {
        folders: Folders::with_trust(home.as_deref(), cwd, trust),
        cwd: cwd.to_path_buf(),
        wires: Arc::new(wire),
        limit: crate::plugins::lua::sandbox::limit_from_env(),
        stderr_notices: options.stderr_notices,
    };
    Arc::new(PluginFiles::new(settings))
}

/// Builds a provider a plugin declared on one of the built-in wires (`-m` wins over the
/// declared model; HTTP settings come from the environment as for the built-ins).
fn wire(endpoint: &Endpoint, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> {
    let model = settings.model.clone().or_else(|| endpoint.model.clone());
    let base = endpoint.base_url.as_deref();
    let http = HttpOptions::from_env()?;
    Ok(match endpoint.wire {
        Wire::OpenAi => {
            let model = model.unwrap_or_else(|| openai::DEFAULT_MODEL.into());
            let key = endpoint.key();
            let mut config = OpenAiConfig::new(base.unwrap_or(openai::DEFAULT_BASE_URL), key.as_deref(), &model);
            config.http = http;
            config.cache_key = config.cache_key_from_env()?;
            config.effort = settings.effort;
            config.web_search = settings.web_search;
            Arc::new(OpenAiProvider::new(config)?)
        }
        Wire::Anthropic => {
            let key = endpoint.key().ok_or_else(|| endpoint.missing_key())?;
            let model = model.unwrap_or_else(|| anthropic::DEFAULT_MODEL.into());
            let mut config = AnthropicConfig::new(base.unwrap_or(anthropic::DEFAULT_BASE_URL), &key, &model);
            config.thinking_budget = anthropic::thinking_budget(settings);
            config.http = http;
            config.cache = PromptCache::from_env().map_err(ProviderError::Config)?;
            config.web_search = settings.web_search;
            Arc::new(AnthropicProvider::new(config)?)
        }
        Wire::Ollama => {
            let model = model.unwrap_or_else(|| ollama::DEFAULT_MODEL.into());
            let mut config = OllamaConfig::new(base.unwrap_or(ollama::DEFAULT_HOST), &model);
            config.think = settings.thinking_budget.is_some_and(|b| b > 0);
            config.effort = settings.effort;
            config.http = http;
            Arc::new(OllamaProvider::new(config)?)
        }
    })
}

/// Builds the session with its plugins set up.
pub fn build_session(
    options: &Options,
    output: Arc<dyn Output>,
    input: Box<dyn Input>,
    approver: Arc<dyn Approver>,
) -> anyhow::Result<Session> {
    build_recorded_session(options, output, input, approver).map(|(session, _)| session)
}

/// Builds the session with its plugins set up, and gives the id of the session file it
/// records into (`None`: not recorded), for a front end that names sessions (ACP).
pub fn build_recorded_session(
    options: &Options,
    output: Arc<dyn Output>,
    input: Box<dyn Input>,
    approver: Arc<dyn Approver>,
) -> anyhow::Result<(Session, Option<String>)> {
    let mut providers = crate::providers::builtin()?;
    // The front end's pace, around every provider built from here on (a `/model` switch,
    // a plugin file's provider): the agent reads streams as they come.
    if let Some(pace) = options.pace.clone() {
        providers.wrap_each(move |provider| crate::pacing::paced(provider, pace.clone()));
    }
    let settings = ProviderSettings {
        model: options.model.clone(),
        thinking_budget: options.thinking_budget,
        effort: options.effort,
        web_search: options.web_search,
    };
    let name = options.provider.clone().unwrap_or_else(crate::providers::default_name);
    // A name no built-in has may be declared by a plugin file: start on the stub and look
    // again once the files ran (ARCHITECTURE.md, "The objects").
    let declared_later = !providers.names().contains(&name.as_str());
    let provider = providers.build(if declared_later { "stub" } else { &name }, &settings)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let transcript = Transcript::new(
        SystemPrompt::new(cwd.clone()).with_instructions(crate::instructions::render).with_environment(environment),
    );
    let Recording { resumed: mut recorded, output, journal, file } = record(&options.session, &cwd, output)?;
    let id = file.as_ref().map(|file| file.id.clone());
    let hook_session = match file {
        Some(file) => HookSession { id: file.id, transcript_path: Some(file.path) },
        None => HookSession::unrecorded(),
    };
    // `/export` writes to the data directory by default, named after the session.
    let export = Arc::new(TranscriptExport::new(
        crate::data_dir::data_dir().map(|dir| dir.join("exports")),
        id.clone().unwrap_or_else(|| format!("unrecorded-{}", std::process::id())),
    ));
    let checkpoints = Checkpoints::new(journal, cwd.clone());
    if let Some(resumed) = recorded.as_mut() {
        let records = std::mem::take(&mut resumed.replayed.files);
        let live = std::mem::take(&mut resumed.replayed.live_turns);
        let warnings = checkpoints.resume(records, resumed.replayed.turns, live);
        resumed.replayed.warnings.extend(warnings);
    }
    let mut agent = Agent::new(provider, Toolbox::new(), output.clone(), transcript);
    // Calls of tools that run agents (`task`) get a child agent of this one; an agent
    // file's `model` is the parent's provider built again with that model.
    agent.set_sub_agents(Arc::new(Children::with_models(agent_models(providers.clone(), settings.clone()))));
    if let Some(steps) = options.max_steps {
        agent.set_max_steps(steps);
    }
    let mut session = Session::new(agent, input, providers, settings.clone(), approver);
    let plugins = builtin_plugins(options, checkpoints, hook_session)
        .into_iter()
        .chain([export.clone() as Arc<dyn Plugin>])
        .chain(options.extra_plugins.0.iter().cloned());
    for plugin in plugins.chain([plugin_files(options, &cwd)]) {
        session.add_plugin(plugin)?;
    }
    // A provider a plugin file declared with `default = true` wins when `-p` names none.
    let preferred = session.providers().preferred().filter(|_| options.provider.is_none()).map(str::to_string);
    if let Some(preferred) = preferred {
        if let Err(error) = session.switch_provider(&preferred, settings) {
            let kept = session.provider().name().to_string();
            let notice = format!("default provider {preferred} from a plugin file: {error:#}; using {kept}");
            session.output().emit(crate::agent::AgentEvent::Warning(notice));
        }
    } else if declared_later {
        session.switch_provider(&name, settings)?;
    }
    if let Some(mode) = options.mode {
        session.set_mode(mode);
    }
    if let Some(mut resumed) = recorded {
        export.log().seed(&resumed.replayed.events);
        // The mode the session was left in comes back, unless `--mode` says otherwise
        // (before the history, so a front end shows it by the time it says "Resumed").
        if let Some(mode) = resumed.replayed.mode.take().filter(|m| options.mode.is_none() && *m != Mode::Ask) {
            session.set_mode(mode);
        }
        restore(&mut session, resumed, options.replay_history);
    }
    Ok((session, id))
}

/// Removes the session file `id` when it holds no turn (a new session the user left for
/// another before typing anything); a session with a turn is never touched.
pub fn discard_empty_session(id: &str) {
    if let Some(store) = crate::sessions::Store::default_location() {
        store.discard_if_empty(id);
    }
}

/// The question a chat front end asks before it builds the session when the project has a
/// `.agents/` of its own that is not trusted yet (none with `--trust`), saying what yes
/// turns on. Ask it with `TrustQuestion::answer(approver)`, build the session trusting the
/// project when `Answered::trusted` (`Options::trust`), then `Answered::tell(session)`.
pub fn trust_question(options: &Options) -> Option<TrustQuestion> {
    let cwd = std::env::current_dir().ok()?;
    let home = home();
    let question = trust(options).question(&cwd, home.as_deref())?;
    // The built-in tools, so the rules are placed as the permissions gate places them.
    let mut tools = Toolbox::new();
    tools.add_all(crate::tools::all());
    let turns_on = crate::plugins::trust_items::turns_on(&cwd, &question.agents, home.as_deref(), &tools);
    Some(question.with_turns_on(turns_on))
}

/// The sandbox for commands in a few words, for a front end's status line.
pub fn sandbox_label() -> String {
    crate::tools::sandbox::label()
}

/// Panics inside tools are caught and reported as tool results; don't also print them.
pub fn quiet_caught_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crate::panics::panic_is_caught() {
            previous(info);
        }
    }));
}

/// Protects the process before anything else runs (call it first in `main`, before any
/// thread starts): the values of secret variables overwritten in the environment block it
/// started with, and not dumpable, so the processes it starts cannot read its keys from
/// `/proc/<pid>/environ` or its memory; and a child subreaper, so orphans of the commands it runs stay below it, where
/// `shutdown` and a command's timeout find them. A failure is printed, not fatal.
pub fn protect_process() {
    crate::tools::secret_env::scrub_initial_environ();
    if let Err(error) = crate::tools::secret_env::protect_process() {
        eprintln!("elelem: cannot make the process undumpable (its children may read its environment): {error}");
    }
    if let Err(error) = crate::process_tree::become_subreaper() {
        eprintln!("elelem: cannot become a child subreaper (orphaned processes may outlive elelem): {error}");
    }
}

/// Stops everything tools started (command process groups and their background jobs)
/// and every MCP server process, and removes the sandbox's temp directory of this run;
/// every front end calls it on its way out, signals included.
pub fn shutdown() {
    crate::tools::process_groups::kill_all();
    crate::plugins::mcp::stop_all();
    crate::plugins::lsp::stop_all();
    crate::tools::sandbox::remove_temp();
}

/// `elelem v<version>`.
pub fn banner() -> String {
    format!("elelem v{}", env!("CARGO_PKG_VERSION"))
}
