//! The system prompt: a template from `assets/` (how to work, what never to do unasked,
//! whose rules win, output conventions) filled with the working directory, platform, the
//! environment commands run in, the git branch and the project's instructions. The facts
//! come from readers `startup` hands in: `with_instructions` (every `AGENTS.md` from the
//! project root down to the working directory, read outside the kernel) and
//! `with_environment` (the shell, the sandbox and the network, from the real settings).
//! Rendered fresh on every model call, so edits, a branch switch or `/sandbox` take effect
//! at once. Plugins may add named sections after the instructions (`set_section`, e.g. the
//! list of skills); they are replaced, never appended twice.
//!
//! The prefix stays byte-stable across turns (prompt caching): what can change within a
//! session comes late — the sandbox and branch after the fixed text, then the instructions
//! and sections, then the permission mode (`set_mode`), and the date last.

use crate::protocol::mode::Mode;
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../../assets/system_prompt.md");

/// Where the template's facts (working directory, platform, sandbox, branch, instructions)
/// begin; the guidance before it is what an agent file replaces.
const FACTS: &str = "Working directory: {{cwd}}";

/// Renders the system prompt for a working directory.
#[derive(Clone, Debug)]
pub struct SystemPrompt {
    template: String,
    cwd: PathBuf,
    /// Sections plugins added, by name, rendered in name order after the instructions.
    sections: std::collections::BTreeMap<String, String>,
    /// Reads the project's instructions for the working directory, on each render.
    instructions: Option<Instructions>,
    /// Reads where commands run (shell, sandbox, network), on each render.
    environment: Option<ReadEnvironment>,
    /// The session's permission mode, said after the sections.
    mode: Mode,
}

/// What fills `{{agents}}`: the project's instructions for a working directory, read when
/// the prompt is rendered.
pub type Instructions = fn(&Path) -> String;

/// What fills `{{shell}}` and `{{sandbox}}`: the environment in force, read when the
/// prompt is rendered (a `/sandbox` switch shows at the next call).
pub type ReadEnvironment = fn() -> Environment;

/// Where the model's commands run, as the session's settings have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    /// The shell commands run in (`bash`).
    pub shell: String,
    pub sandbox: Sandbox,
    /// Whether contained commands reach the network (unused when the sandbox is off).
    pub network: bool,
}

/// What contains a command: nothing (off, or no sandbox on this system), or the sandbox
/// with writes allowed in the project or nowhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sandbox {
    Off,
    ReadOnly,
    WorkspaceWrite,
}

impl Environment {
    /// The sandbox and network, in the prompt's words.
    fn describe(&self) -> String {
        let writes = match self.sandbox {
            Sandbox::Off => return "Sandbox: off: commands run with the user's rights and network.".to_string(),
            Sandbox::ReadOnly => {
                "read-only: commands run contained, unasked, writing nowhere (edit with the file tools)"
            }
            Sandbox::WorkspaceWrite => {
                "workspace-write: commands run contained, unasked, writing only in the project and $TMPDIR \
                 (.git config and hooks, .agents/, .claude/ read-only)"
            }
        };
        let network = match self.network {
            true => "Network: on.",
            false => "Network: off (loopback works).",
        };
        format!(
            "Sandbox: {writes}; the user's secrets are unreadable. {network} `Permission denied`, `Read-only file \
             system` or `Could not resolve host` is the sandbox: if truly needed, rerun with `\"sandbox\": false`, \
             which asks the user to run it outside."
        )
    }
}

/// The mode in the prompt's words.
fn mode_line(mode: Mode) -> String {
    match mode {
        Mode::Ask => "Mode: ask (calls the user's rules do not allow wait for approval).".to_string(),
        Mode::Edits => "Mode: accept edits (file changes in the project run unasked).".to_string(),
        Mode::Plan => format!("Mode: plan. {}", mode.instructions()),
    }
}

impl SystemPrompt {
    pub fn new(cwd: PathBuf) -> Self {
        SystemPrompt {
            template: TEMPLATE.to_string(),
            cwd,
            sections: Default::default(),
            instructions: None,
            environment: None,
            mode: Mode::default(),
        }
    }

    /// Reads the project's instructions with `read` on each render (none without it).
    pub fn with_instructions(mut self, read: Instructions) -> Self {
        self.instructions = Some(read);
        self
    }

    /// Reads the environment with `read` on each render (without it the prompt names no
    /// shell and no sandbox).
    pub fn with_environment(mut self, read: ReadEnvironment) -> Self {
        self.environment = Some(read);
        self
    }

    /// Uses another template (placeholders: `{{cwd}}`, `{{platform}}`, `{{shell}}`,
    /// `{{sandbox}}`, `{{date}}`, `{{git}}`, `{{agents}}`; without `{{date}}` the date comes
    /// last).
    pub fn with_template(mut self, template: impl Into<String>) -> Self {
        self.template = template.into();
        self
    }

    /// Puts `guidance` in place of the template's own (everything before its facts, which
    /// start at `Working directory:`): an agent file's text.
    pub fn with_guidance(mut self, guidance: &str) -> Self {
        let facts = self.template.find(FACTS).map_or("", |at| &self.template[at..]);
        self.template = format!("{}\n\n{facts}", guidance.trim_end());
        self
    }

    /// Puts `text` before the template (a sub-agent's word on what it is).
    pub fn with_preamble(mut self, text: &str) -> Self {
        self.template = format!("{}\n\n{}", text.trim_end(), self.template);
        self
    }

    /// Sets (or, with empty text, removes) the section `name`, shown after the project's
    /// instructions.
    pub fn set_section(&mut self, name: &str, text: impl Into<String>) {
        let text = text.into();
        if text.trim().is_empty() {
            self.sections.remove(name);
        } else {
            self.sections.insert(name.to_string(), text);
        }
    }

    /// Sets the permission mode the prompt states.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
    }

    /// The working directory the prompt describes.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn render(&self) -> String {
        let git = git_branch(&self.cwd).map(|b| format!("Git branch: {b}\n")).unwrap_or_default();
        let agents = self.instructions.map(|read| read(&self.cwd)).unwrap_or_default();
        let environment = self.environment.map(|read| read());
        let shell = environment.as_ref().map(|e| format!("; commands run in {}.", e.shell)).unwrap_or_default();
        let sandbox = environment.as_ref().map(Environment::describe).unwrap_or_default();
        let date = crate::dates::today();
        let mut text = self
            .template
            .replace("{{cwd}}", &self.cwd.display().to_string())
            .replace("{{platform}}", &format!("{} {}", std::env::consts::OS, std::env::consts::ARCH))
            .replace("; commands run in {{shell}}.", &shell)
            .replace("{{shell}}", environment.as_ref().map(|e| e.shell.as_str()).unwrap_or("a shell"))
            .replace(if sandbox.is_empty() { "{{sandbox}}\n" } else { "{{sandbox}}" }, &sandbox)
            .replace("{{git}}", &git)
            .replace("{{agents}}", &agents);
        let dated = text.contains("{{date}}");
        text = text.replace("{{date}}", &date).trim_end().to_string();
        for section in self.sections.values() {
            text.push_str("\n\n");
            text.push_str(section.trim_end());
        }
        text.push_str("\n\n");
        text.push_str(&mode_line(self.mode));
        if !dated {
            text.push_str(&format!("\nDate: {date}"));
        }
        text
    }
}

/// The current branch, read from `.git/HEAD` of the enclosing repository (no subprocess).
pub fn git_branch(dir: &Path) -> Option<String> {
    let git = dir.ancestors().map(|d| d.join(".git")).find(|p| p.exists())?;
    let git_dir = if git.is_file() {
        // A worktree or submodule: `.git` is a file holding `gitdir: <path>`.
        let text = std::fs::read_to_string(&git).ok()?;
        let target = PathBuf::from(text.strip_prefix("gitdir:")?.trim());
        if target.is_absolute() {
            target
        } else {
            git.parent()?.join(target)
        }
    } else {
        git
    };
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    match head.trim().strip_prefix("ref: refs/heads/") {
        Some(branch) => Some(branch.to_string()),
        None => Some(format!("(detached at {})", head.trim().chars().take(12).collect::<String>())),
    }
}
