//! The first screen's welcome, shown in the empty conversation until the first prompt: which
//! provider answers and why (no API key found: the built-in demo provider, and how to set
//! one), the project instructions loaded, the plugin files and MCP servers configured, that
//! a turn's tool output is dropped unless kept, and three things to try. `Welcome` holds what
//! was found; `lines` says it.

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
}

impl Welcome {
    /// The instructions file `path` shown relative to `cwd` when it is inside it.
    pub fn instructions_at(path: &Path, cwd: &Path) -> String {
        path.strip_prefix(cwd).unwrap_or(path).display().to_string()
    }

    /// The welcome's lines, the provider first. Short: it shares the first screen with the
    /// banner and the mouse hint at 80x24.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = match (self.provider.as_str(), self.asked) {
            ("stub", false) => vec![
                "No API key found: this is the built-in demo provider (scripted replies).".to_string(),
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
        lines.push("Try: explain this project  ·  @README.md what is in it?  ·  !git status".to_string());
        lines
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
        assert!(lines[3].contains("dropped") && lines[3].contains("/context keep K"), "{lines:?}");
        let chosen = Welcome { provider: "openai".into(), model: "gpt".into(), mcp_servers: 1, ..welcome };
        assert_eq!(chosen.lines()[0], "Provider: openai · gpt (OPENAI_API_KEY is set).");
        assert!(chosen.lines()[1].ends_with("1 MCP server"));
    }
}
