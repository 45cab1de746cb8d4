//! The system prompt: a template from `assets/` filled with the working directory,
//! platform, date, git branch and the project's instructions, whose text comes from the
//! reader `startup` hands in (`with_instructions`: every `AGENTS.md` from the project root
//! down to the working directory, read outside the kernel). Rendered fresh on every model
//! call, so edits or a branch switch take effect at once. Plugins may add named sections after the instructions
//! (`set_section`, e.g. the list of skills); they are replaced, never appended twice.

use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../../assets/system_prompt.md");

/// Renders the system prompt for a working directory.
#[derive(Clone, Debug)]
pub struct SystemPrompt {
    template: String,
    cwd: PathBuf,
    /// Sections plugins added, by name, rendered in name order after the instructions.
    sections: std::collections::BTreeMap<String, String>,
    /// Reads the project's instructions for the working directory, on each render.
    instructions: Option<Instructions>,
}

/// What fills `{{agents}}`: the project's instructions for a working directory, read when
/// the prompt is rendered.
pub type Instructions = fn(&Path) -> String;

impl SystemPrompt {
    pub fn new(cwd: PathBuf) -> Self {
        SystemPrompt { template: TEMPLATE.to_string(), cwd, sections: Default::default(), instructions: None }
    }

    /// Reads the project's instructions with `read` on each render (none without it).
    pub fn with_instructions(mut self, read: Instructions) -> Self {
        self.instructions = Some(read);
        self
    }

    /// Uses another template (placeholders: `{{cwd}}`, `{{platform}}`, `{{date}}`,
    /// `{{git}}`, `{{agents}}`).
    pub fn with_template(mut self, template: impl Into<String>) -> Self {
        self.template = template.into();
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

    /// The working directory the prompt describes.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn render(&self) -> String {
        let git = git_branch(&self.cwd).map(|b| format!("Git branch: {b}\n")).unwrap_or_default();
        let agents = self.instructions.map(|read| read(&self.cwd)).unwrap_or_default();
        let text = self
            .template
            .replace("{{cwd}}", &self.cwd.display().to_string())
            .replace("{{platform}}", &format!("{} {}", std::env::consts::OS, std::env::consts::ARCH))
            .replace("{{date}}", &crate::dates::today())
            .replace("{{git}}", &git)
            .replace("{{agents}}", &agents)
            .trim_end()
            .to_string();
        let mut text = text;
        for section in self.sections.values() {
            text.push_str("\n\n");
            text.push_str(section.trim_end());
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
