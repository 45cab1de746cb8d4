//! The welcome: what the session found at start (`Welcome`, which the channel's `Ready`
//! carries to the app) and what it says in the empty conversation until the first prompt
//! (`lines`): which provider answers and why (no API key found: the built-in demo provider,
//! and how to set one), the project instructions loaded, the plugin files and MCP servers
//! configured, in plain words what the model sees of earlier turns (prompts and replies, not
//! their tool output, and where to keep some), and things to try that fit the folder
//! (`!git status` only in a git repository, `@` a README only where there is one). Words
//! only: the conversation pane draws them (and the banner, `panes/conversation/banner.rs`).

use std::path::Path;

/// What the app found at start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Welcome {
    pub provider: String,
    pub model: String,
    /// The provider was asked for (`-p`, a setting), not chosen by what was found.
    pub asked: bool,
    /// The project instructions loaded (`AGENTS.md`, or what stands in for it), as shown.
    pub instructions: Option<String>,
    pub plugin_files: usize,
    pub mcp_servers: usize,
    /// The folder's README, by name (`readme_in`), for the `@` suggestion.
    pub readme: Option<String>,
    /// The folder is inside a git repository (`in_git`), for the `!git status` suggestion.
    pub git: bool,
}

/// What separates the banner's phrases; a line is broken only there.
pub const BANNER_SEPARATOR: &str = " · ";

impl Welcome {
    /// The instructions file `path` shown relative to `cwd` when it is inside it.
    pub fn instructions_at(path: &Path, cwd: &Path) -> String {
        path.strip_prefix(cwd).unwrap_or(path).display().to_string()
    }

    /// The README file directly in `cwd` (`README.md` first, then any `README*` or
    /// `readme*` file, by name), if there is one.
    pub fn readme_in(cwd: &Path) -> Option<String> {
        if cwd.join("README.md").is_file() {
            return Some("README.md".into());
        }
        let mut found: Vec<String> = std::fs::read_dir(cwd)
            .ok()?
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.to_ascii_lowercase().starts_with("readme") && !name.contains(char::is_whitespace))
            .collect();
        found.sort();
        found.into_iter().next()
    }

    /// Whether `cwd` is inside a git repository: it or a folder above it holds `.git`.
    pub fn in_git(cwd: &Path) -> bool {
        cwd.ancestors().any(|dir| dir.join(".git").exists())
    }

    /// The welcome's lines, the provider first. Short: it shares the first screen with the
    /// banner and the mouse hint at 80x24 (and, narrower, at 60x20).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = match (self.provider.as_str(), self.asked) {
            ("stub", false) => vec![
                "No API key found: a scripted demo provider answers.".to_string(),
                "Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or start Ollama) for a real model.".to_string(),
            ],
            (name, asked) => {
                let why = match name {
                    _ if asked => "as asked",
                    "anthropic" => "ANTHROPIC_API_KEY is set",
                    "openai" => "OPENAI_API_KEY is set",
                    "ollama" => "Ollama answered",
                    _ => "a plugin file's default",
                };
                vec![format!("Provider: {name} · {} ({why}).", self.model)]
            }
        };
        let instructions = match &self.instructions {
            Some(file) => format!("{file} loaded"),
            None => "no AGENTS.md".to_string(),
        };
        lines.push(format!(
            "{instructions} · {} · {}",
            plural(self.plugin_files, "plugin file"),
            plural(self.mcp_servers, "MCP server")
        ));
        lines.push(crate::tui::text::hints::KEEP_SHORT.to_string());
        lines.push(self.try_line());
        lines
    }

    /// `Try: …`: three things to type that work in this folder.
    fn try_line(&self) -> String {
        let mut tries = vec!["explain this project".to_string()];
        if let Some(readme) = &self.readme {
            tries.push(format!("@{readme} what is in it?"));
        }
        tries.push(if self.git { "!git status" } else { "!ls" }.to_string());
        format!("Try: {}", tries.join(BANNER_SEPARATOR))
    }
}

/// `1 plugin file`, `2 plugin files`, `no plugin files`.
pub fn plural(n: usize, what: &str) -> String {
    match n {
        0 => format!("no {what}s"),
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_provider_says_why_and_how_to_set_a_key() {
        let welcome = Welcome { provider: "stub".into(), model: "stub-demo".into(), ..Welcome::default() };
        let lines = welcome.lines();
        assert!(lines[0].contains("No API key found") && lines[1].contains("ANTHROPIC_API_KEY"), "{lines:?}");
        assert_eq!(lines[2], "no AGENTS.md · no plugin files · no MCP servers");
        assert!(lines[3].contains("not their tool output") && lines[3].contains("/context list"), "{lines:?}");
        let chosen = Welcome { provider: "openai".into(), model: "gpt".into(), mcp_servers: 1, ..welcome };
        assert_eq!(chosen.lines()[0], "Provider: openai · gpt (OPENAI_API_KEY is set).");
        assert!(chosen.lines()[1].ends_with("1 MCP server"));
    }

    #[test]
    fn the_suggestions_fit_the_folder() {
        let bare = Welcome::default();
        assert_eq!(bare.try_line(), "Try: explain this project · !ls");
        let repo = Welcome { readme: Some("README.md".into()), git: true, ..Welcome::default() };
        assert_eq!(repo.try_line(), "Try: explain this project · @README.md what is in it? · !git status");
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Welcome::readme_in(dir.path()), None);
        std::fs::write(dir.path().join("readme.txt"), "hi").unwrap();
        assert_eq!(Welcome::readme_in(dir.path()).as_deref(), Some("readme.txt"));
        std::fs::write(dir.path().join("README.md"), "hi").unwrap();
        assert_eq!(Welcome::readme_in(dir.path()).as_deref(), Some("README.md"));
        std::fs::create_dir_all(dir.path().join("sub/.git")).unwrap();
        assert!(Welcome::in_git(&dir.path().join("sub")) && !Welcome::in_git(dir.path()));
    }
}
