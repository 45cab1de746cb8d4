//! The kernel sandbox for `execute`'s child (issue 29): the mode (`--sandbox`,
//! `ELELEM_SANDBOX`, else `sandbox.mode` in `~/.agents/permissions.json`, else
//! `workspace-write` where the kernel has Landlock ABI 4), the settings the permission files
//! add (writable directories, unreadable ones, network), and `start` (`launch.rs`), which
//! starts a command's child contained: cloned without copying elelem (`spawn.rs`) into a new
//! user, mount, PID and (unless the network is allowed) network namespace, the protected
//! paths mounted read-only (`seals.rs`), the Landlock rule set built and cached in elelem
//! (`rules.rs`); protected paths that did not exist are looked at once it ended
//! (`watch.rs`). Without user namespaces, `contain` restricts a `Command`'s child in
//! `pre_exec` instead. elelem itself is never restricted, nor `!command`. A contained
//! command's temp directory is this run's own (`temp.rs`, `$TMPDIR`); a failure one of the
//! rules explains is told apart (`refused`, `refusal.rs`).
//!
//! macOS contains a command with Seatbelt (`macos.rs`). Windows has no sandbox
//! (`windows.rs`): `execute` is never contained there, so every command is asked about (as
//! on a Linux kernel without Landlock), and the start-up notice says so.

#[cfg(unix)]
mod clear;
mod gitlinks;
#[cfg(target_os = "linux")]
mod kept;
#[cfg(target_os = "linux")]
mod launch;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "linux")]
mod netns;
mod refusal;
mod report;
mod rules;
mod seals;
// The profile builder is pure and tested everywhere; only macOS runs it.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod seatbelt;
mod secrets;
#[cfg(target_os = "linux")]
mod sockets;
#[cfg(target_os = "linux")]
mod spawn;
#[cfg(unix)]
mod temp;
#[cfg(target_os = "linux")]
mod watch;
// How macOS runs a command under `sandbox-exec`; tried on Linux too.
#[cfg(unix)]
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod wrap_exec;

#[cfg(target_os = "linux")]
pub use launch::{contain, start, Started};
#[cfg(target_os = "macos")]
pub use macos::contain;
#[cfg(any(target_os = "macos", windows))]
mod unstarted;
pub use refusal::{Refusal, REFUSED_FIELD};
pub use report::{describe, switch};
pub use rules::cover;
pub use seals::{plan, protected, Seal};
#[cfg(target_os = "linux")]
pub use spawn::Killer;
#[cfg(any(target_os = "macos", windows))]
pub use unstarted::{start, Killer, Started};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::contain;
#[cfg(windows)]
use windows::temp;

#[cfg(unix)]
use std::os::fd::OwnedFd;
// A pipe's end on Windows (where nothing is contained, and `Io` only named).
#[cfg(windows)]
use std::os::windows::io::OwnedHandle as OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// How a contained command's input and output are connected, and what it runs (`start`).
pub struct Io<'a> {
    /// Its stdout and stderr.
    pub output: &'a OwnedFd,
    /// Its stdin (`/dev/null` when none).
    pub input: Option<&'a OwnedFd>,
    /// `input` is a pseudo-terminal's slave, to be its controlling terminal.
    pub terminal: bool,
    /// Variables set besides the environment (`TERM` for a terminal).
    pub env: &'a [(&'a str, &'a str)],
    /// `bash` and its arguments before the command (`-c`).
    pub argv: &'a [&'a str],
}

/// What a contained command may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    WorkspaceWrite,
    ReadOnly,
    Off,
}

impl Mode {
    pub fn parse(text: &str) -> Result<Mode, String> {
        match text {
            "workspace-write" => Ok(Mode::WorkspaceWrite),
            "read-only" => Ok(Mode::ReadOnly),
            "off" => Ok(Mode::Off),
            other => Err(format!("unknown sandbox mode {other:?} (workspace-write, read-only or off)")),
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        }
    }
}

/// What a contained command may do besides the defaults, for this run.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    pub mode: Mode,
    /// No network namespace and no Landlock TCP rule (`--sandbox-network`, `sandbox.network`).
    pub network: bool,
    /// Directories writable besides the project and the temp directory (`sandbox.writable`,
    /// `paths.allow`).
    pub writable: Vec<PathBuf>,
    /// Paths not readable besides the user's secrets (elelem's data directory, `paths.deny`).
    pub unreadable: Vec<PathBuf>,
    /// Whether the mode was asked for (a flag, the environment or a file) rather than the
    /// default.
    pub asked: bool,
}

impl Settings {
    /// Without `configure` (an embedder, a test): `ELELEM_SANDBOX`, else off.
    fn unconfigured() -> Self {
        let asked = std::env::var("ELELEM_SANDBOX").ok().and_then(|m| Mode::parse(&m).ok());
        Settings {
            mode: asked.unwrap_or(Mode::Off),
            network: false,
            writable: Vec::new(),
            unreadable: Vec::new(),
            asked: asked.is_some(),
        }
    }
}

/// What the command line said (it wins over the files), and the settings in force.
#[derive(Clone, Debug)]
struct Config {
    flag_mode: Option<Mode>,
    flag_network: bool,
    data: Vec<PathBuf>,
    /// The mode when nobody asks for one: workspace-write for the `elelem` binary
    /// (`configure`), off for an embedder that did not configure the sandbox.
    default: Mode,
    settings: Settings,
}

static CONFIG: RwLock<Option<Config>> = RwLock::new(None);

/// Sets what the command line says for this run (once, at start): `--sandbox` (or
/// `ELELEM_SANDBOX`), `--sandbox-network`, and the extra paths no contained command may
/// read, the first being elelem's data directory (sessions, trust store), where the paths
/// the clean-up after a command could not remove are recorded (`kept.rs`).
pub fn configure(mode: Option<Mode>, network: bool, secrets: Vec<PathBuf>) {
    let settings = Settings {
        mode: mode.unwrap_or(Mode::WorkspaceWrite),
        network,
        writable: Vec::new(),
        unreadable: secrets.clone(),
        asked: mode.is_some(),
    };
    if let Ok(mut config) = CONFIG.write() {
        *config = Some(Config {
            flag_mode: mode,
            flag_network: network,
            data: secrets,
            default: Mode::WorkspaceWrite,
            settings,
        });
    }
}

/// What a permissions file says about the sandbox (`"sandbox": {...}` and `"paths"`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileSettings {
    /// `sandbox.mode` (the command line wins).
    pub mode: Option<Mode>,
    /// `sandbox.network`.
    pub network: bool,
    /// `sandbox.writable` and `paths.allow`.
    pub writable: Vec<PathBuf>,
    /// `paths.deny`.
    pub unreadable: Vec<PathBuf>,
}

/// The permissions plugin's link (wired by `startup`): applies what the user's file says
/// (`sandbox.mode`, `sandbox.network`, the writable and unreadable directories) and answers
/// which tools run contained, the sandbox in a few words, and a notice for the user when
/// the sandbox was asked for but this kernel cannot give it.
pub fn link(
    mode: Option<&str>,
    network: bool,
    writable: &[PathBuf],
    unreadable: &[PathBuf],
) -> (Vec<String>, String, Option<String>) {
    let file = FileSettings {
        mode: mode.and_then(|m| Mode::parse(m).ok()),
        network,
        writable: writable.to_vec(),
        unreadable: unreadable.to_vec(),
    };
    apply(&file);
    (contained_tools(), label(), unavailable_notice())
}

/// Applies the permission files' settings (at setup and `/reload`).
pub fn apply(file: &FileSettings) {
    with_config(|config| {
        let mode = config.flag_mode.or(file.mode);
        config.settings = Settings {
            mode: mode.unwrap_or(config.default),
            network: config.flag_network || file.network,
            writable: file.writable.clone(),
            unreadable: config.data.iter().chain(&file.unreadable).cloned().collect(),
            asked: mode.is_some(),
        };
    });
}

/// Sets the mode for the rest of this run, as the user asked (`/sandbox MODE`): it wins
/// over the files like the command line, also after `/reload`.
pub fn set_mode(mode: Mode) {
    with_config(|config| {
        config.flag_mode = Some(mode);
        config.settings.mode = mode;
        config.settings.asked = true;
    });
}

/// Runs `change` on the configuration (made from `ELELEM_SANDBOX` when nobody configured
/// the sandbox: an embedder, a test).
fn with_config(change: impl FnOnce(&mut Config)) {
    if let Ok(mut config) = CONFIG.write() {
        let config = config.get_or_insert_with(|| {
            let settings = Settings::unconfigured();
            Config {
                flag_mode: settings.asked.then_some(settings.mode),
                flag_network: false,
                data: Vec::new(),
                default: Mode::Off,
                settings,
            }
        });
        change(config);
    }
}

/// elelem's data directory, as `configure` was given it (none for an embedder that did not
/// configure the sandbox).
#[cfg(target_os = "linux")]
fn data_dir() -> Option<PathBuf> {
    CONFIG.read().ok().and_then(|c| c.as_ref().and_then(|c| c.data.first().cloned()))
}

/// The settings in force.
pub fn settings() -> Settings {
    CONFIG.read().ok().and_then(|c| c.as_ref().map(|c| c.settings.clone())).unwrap_or_else(Settings::unconfigured)
}

/// The mode for this run (see the module doc).
pub fn mode() -> Mode {
    settings().mode
}

/// The Landlock ABI version of this kernel (0 without Landlock).
#[cfg(target_os = "linux")]
pub fn kernel_abi() -> i64 {
    static ABI: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *ABI.get_or_init(|| {
        // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the VERSION
        // flag only returns a number.
        let version = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
        version.max(0)
    })
}

/// No Landlock but on Linux.
#[cfg(not(target_os = "linux"))]
pub fn kernel_abi() -> i64 {
    0
}

/// Whether this system can contain a command: Linux with Landlock's network rules (ABI 4,
/// Linux 6.7); macOS with `sandbox-exec` (`seatbelt.rs`); nowhere else.
#[cfg(target_os = "linux")]
fn available() -> bool {
    kernel_abi() >= 4
}

/// Why this system cannot contain a command, in a few words.
#[cfg(target_os = "linux")]
fn unavailable_why() -> String {
    format!("Landlock ABI {} < 4", kernel_abi())
}

#[cfg(target_os = "macos")]
use macos::{available, unavailable_why};

#[cfg(windows)]
use windows::{available, unavailable_why};

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn available() -> bool {
    false
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn unavailable_why() -> String {
    "no sandbox on this system".to_string()
}

/// Whether `execute` runs contained in this run: the mode is not `off` and this system
/// can contain it (`available`).
pub fn active() -> bool {
    mode() != Mode::Off && available()
}

/// The tools whose calls run contained in this run (and so need no approval): `execute`,
/// and `job_input`, whose input reaches only a contained job (it refuses the others).
pub fn contained_tools() -> Vec<String> {
    if active() {
        vec!["execute".to_string(), "job_input".to_string()]
    } else {
        Vec::new()
    }
}

/// The argument with which a call asks to run outside the sandbox (`"sandbox": false`).
pub const OPT_OUT_ARGUMENT: &str = "sandbox";

/// The sandbox in a few words, for the status line and `/permissions`:
/// `sandbox: workspace-write, no network`.
pub fn label() -> String {
    let settings = settings();
    if settings.mode == Mode::Off {
        return "sandbox: off".to_string();
    }
    if !active() {
        return format!("sandbox: unavailable ({})", unavailable_why());
    }
    let network = if settings.network { "network on" } else { "no network" };
    format!("sandbox: {}, {network}", settings.mode.word())
}

/// The sentence shown once at start when the sandbox (asked for, or the default) cannot be
/// had on this kernel.
pub fn unavailable_notice() -> Option<String> {
    let settings = settings();
    (settings.mode != Mode::Off && !active()).then(|| {
        format!(
            "The sandbox for execute is not available here ({}): commands run with your rights \
             and are asked about as before.",
            unavailable_why()
        )
    })
}

/// For a contained command run in `cwd` of `project` that exited with `status` and printed
/// `content`: the sandbox's rule that refused it, when its failure matches one
/// (`refusal.rs`), and the note for the model that says the rule.
pub fn refused(status: Option<i32>, content: &str, project: &Path, cwd: Option<&str>) -> Option<(Refusal, String)> {
    if !active() {
        return None;
    }
    let settings = settings();
    let refusal = refusal::refusal(&settings, status, content, project, cwd)?;
    let note = refusal.note(&settings, project);
    Some((refusal, note))
}

/// Removes this run's temp directory for contained commands (at exit).
pub fn remove_temp() {
    temp::remove();
}

/// The user's files a contained command may not read, under `home` (each resolved, links
/// and all, before it is made a hole of the grant: `secrets.rs`): keys, cloud and registry
/// credentials, shell and REPL histories.
pub const SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".pgpass",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".local/share/keyrings",
    ".claude.json",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
];

/// The user's own settings folders of coding agents (elelem's `~/.agents`, where MCP
/// servers, hooks, permissions and plugins are set up; Claude Code's and Codex's, which hold
/// credentials and past sessions): a contained command reads none of their entries but
/// `SKILLS`, whose scripts a skill may have a command run.
pub const SETTINGS_DIRS: &[&str] = &[".agents", ".claude", ".codex"];

/// The entry of a `SETTINGS_DIRS` folder a contained command may read.
pub const SKILLS: &str = "skills";

/// Paths a contained command may not write, relative to each folder from its working
/// directory up to the project root; those under `.git/` apply to each repository there
/// (its git directory, when `.git` is one: when `.git` is a file or missing, `.git` itself
/// is protected). They decide what the next run of elelem, another agent or git executes
/// or reads: a project's agent settings (`.agents/`, `.claude/`), and what makes git run
/// code or look elsewhere — its configuration (`config`, `config.worktree`), hooks,
/// `commondir` (another directory's configuration and hooks), submodules' and worktrees'
/// git directories (`modules/`, `worktrees/`, each with its own configuration and
/// `commondir`), `info/attributes` (filter and diff drivers) and `objects/info/alternates`
/// (objects read from elsewhere). The rest of `.git/` (objects, refs, the index, HEAD, logs,
/// a merge's or rebase's state, `info/exclude`) is git's ordinary work. The permissions
/// gate's `Places::protected` asks about the file tools' writes to all of `.git/`,
/// `.agents/` and `.claude/`, at any depth of the project.
pub const PROTECTED: &[&str] = &[
    ".agents",
    ".claude",
    ".git/config",
    ".git/config.worktree",
    ".git/commondir",
    ".git/hooks",
    ".git/modules",
    ".git/worktrees",
    ".git/info/attributes",
    ".git/objects/info/alternates",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse() {
        assert_eq!(Mode::parse("read-only"), Ok(Mode::ReadOnly));
        assert_eq!(Mode::parse("off"), Ok(Mode::Off));
        assert_eq!(Mode::parse("workspace-write").map(Mode::word), Ok("workspace-write"));
        assert!(Mode::parse("loose").is_err());
    }
}
