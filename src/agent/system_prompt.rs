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
            .replace("{{date}}", &today())
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

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A moment (seconds since the epoch) as `YYYY-MM-DD HH:MM` UTC.
pub fn date_time(secs: u64) -> String {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let minutes = secs % 86_400 / 60;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", minutes / 60, minutes % 60)
}

/// Days since 1970-01-01 to a (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_days_to_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(date_time(20_786 * 86_400 + 19 * 3600 + 5 * 60 + 59), "2026-11-29 19:05");
    }
}
