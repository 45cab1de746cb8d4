//! Which language server serves which files, and the limits of the wait for its
//! diagnostics: the built-in table (servers found on PATH), then `~/.agents/lsp.json`, then
//! a trusted project's `.agents/lsp.json` (read like `mcp.json`: a regular file, capped,
//! never through a link out of the project). A file's entry replaces a server of the same
//! name; `"disabled": true` turns one off, or, at the top, all of them.
//!
//! ```json
//! {"wait_ms": 1500, "cap_ms": 5000, "max_diagnostics": 20,
//!  "servers": {"ruff": {"command": ["ruff", "server"], "extensions": ["py"], "language": "python"},
//!              "gopls": {"disabled": true}}}
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bytes of one `lsp.json` read at most.
const FILE_LIMIT: u64 = 256 * 1024;

/// One server and the files it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Extensions served, lower-case, without the dot, each with its `languageId`.
    pub languages: Vec<(String, String)>,
    /// Where it was named (`None`: the built-in table, which is silent when the program
    /// is not on PATH).
    pub source: Option<PathBuf>,
}

/// What the plugin works with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Files' servers first (the project's before the user's), then the built-ins.
    pub servers: Vec<ServerSpec>,
    /// How long an edit waits for news from the server (any message restarts it).
    pub wait: Duration,
    /// The most an edit waits in all, a server's start included.
    pub cap: Duration,
    /// Diagnostics returned with an edit at most.
    pub max_diagnostics: usize,
    /// `"disabled": true` at the top of a file.
    pub disabled: bool,
    /// Files that could not be read or used, one line each.
    pub notices: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            servers: builtin(),
            wait: Duration::from_millis(1500),
            cap: Duration::from_secs(5),
            max_diagnostics: 20,
            disabled: false,
            notices: Vec::new(),
        }
    }
}

impl Config {
    /// The server for files with this extension, and the file's `languageId`.
    pub fn server_for(&self, extension: &str) -> Option<(&ServerSpec, &str)> {
        self.servers.iter().find_map(|server| {
            let (_, language) = server.languages.iter().find(|(ext, _)| ext == extension)?;
            Some((server, language.as_str()))
        })
    }
}

/// The servers looked for on PATH.
fn builtin() -> Vec<ServerSpec> {
    let spec = |name: &str, command: &[&str], languages: &[(&str, &str)]| ServerSpec {
        name: name.to_string(),
        command: command.iter().map(|s| s.to_string()).collect(),
        languages: languages.iter().map(|(e, l)| (e.to_string(), l.to_string())).collect(),
        source: None,
    };
    vec![
        spec("pyright", &["pyright-langserver", "--stdio"], &[("py", "python"), ("pyi", "python")]),
        spec(
            "typescript-language-server",
            &["typescript-language-server", "--stdio"],
            &[
                ("ts", "typescript"),
                ("mts", "typescript"),
                ("cts", "typescript"),
                ("tsx", "typescriptreact"),
                ("js", "javascript"),
                ("mjs", "javascript"),
                ("cjs", "javascript"),
                ("jsx", "javascriptreact"),
            ],
        ),
        spec("rust-analyzer", &["rust-analyzer"], &[("rs", "rust")]),
        spec("gopls", &["gopls"], &[("go", "go")]),
        spec(
            "clangd",
            &["clangd"],
            &[("c", "c"), ("h", "c"), ("cc", "cpp"), ("cpp", "cpp"), ("cxx", "cpp"), ("hpp", "cpp"), ("hh", "cpp")],
        ),
    ]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    wait_ms: Option<u64>,
    cap_ms: Option<u64>,
    max_diagnostics: Option<usize>,
    #[serde(default)]
    disabled: bool,
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    extensions: Vec<String>,
    language: Option<String>,
    #[serde(default)]
    disabled: bool,
}

/// The built-ins, then `<home>/.agents/lsp.json`, then `<project>/.agents/lsp.json` when
/// the project is trusted (an untrusted project's file is a notice; `agents_json::read_layers`).
pub fn load(home: Option<&Path>, project: &Path, trusted_project: bool) -> Config {
    let mut config = Config::default();
    let layers = crate::plugins::agents_json::read_layers(
        &crate::plugins::agents_json::SettingsFile {
            name: "lsp.json",
            limit: FILE_LIMIT,
            label: "language servers",
            untrusted: "not using",
        },
        home,
        project,
        trusted_project,
        &mut config.notices,
    );
    for layer in layers {
        if let Err(error) = apply(&layer.text, &layer.path, &mut config) {
            config.notices.push(format!("language servers: cannot use {}: {error}", layer.path.display()));
        }
    }
    config
}

/// Applies one file's text to `config`; on an error nothing of the file applies.
pub fn apply(text: &str, source: &Path, config: &mut Config) -> Result<(), String> {
    let file: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut added = Vec::new();
    let mut removed = Vec::new();
    for (name, entry) in file.servers {
        removed.push(name.clone());
        if entry.disabled {
            continue;
        }
        if entry.command.first().is_none_or(|program| program.trim().is_empty()) {
            return Err(format!("server {name:?} needs a \"command\" (the program, then its arguments)"));
        }
        let languages = if entry.extensions.is_empty() {
            // A built-in's files, with another command.
            let builtin = builtin().into_iter().find(|s| s.name == name);
            builtin.map(|s| s.languages).ok_or(format!("server {name:?} needs \"extensions\""))?
        } else {
            let extensions = entry.extensions.iter().map(|e| e.trim_start_matches('.').to_ascii_lowercase());
            extensions.map(|e| (e.clone(), entry.language.clone().unwrap_or(e))).collect()
        };
        added.push(ServerSpec { name, command: entry.command, languages, source: Some(source.to_path_buf()) });
    }
    config.servers.retain(|s| !removed.contains(&s.name));
    config.servers.splice(0..0, added);
    let ms = |value: Option<u64>, current: Duration, range: std::ops::RangeInclusive<u64>| {
        value.map_or(current, |v| Duration::from_millis(v.clamp(*range.start(), *range.end())))
    };
    config.wait = ms(file.wait_ms, config.wait, 0..=60_000);
    config.cap = ms(file.cap_ms, config.cap, 100..=120_000);
    config.max_diagnostics = file.max_diagnostics.map_or(config.max_diagnostics, |n| n.clamp(1, 200));
    config.disabled |= file.disabled;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(text: &str) -> Result<Config, String> {
        let mut config = Config::default();
        apply(text, Path::new("/home/u/.agents/lsp.json"), &mut config).map(|()| config)
    }

    #[test]
    fn builtins_serve_their_languages() {
        let config = Config::default();
        assert_eq!(config.server_for("py").map(|(s, l)| (s.name.as_str(), l)), Some(("pyright", "python")));
        assert_eq!(config.server_for("tsx").map(|(_, l)| l), Some("typescriptreact"));
        assert_eq!(config.server_for("md"), None);
    }

    #[test]
    fn a_files_server_comes_first_and_can_turn_a_builtin_off() {
        let config = applied(
            r#"{"servers": {"ruff": {"command": ["ruff", "server"], "extensions": [".PY"]},
                            "gopls": {"disabled": true}}, "wait_ms": 999999, "max_diagnostics": 5}"#,
        )
        .unwrap();
        let (server, language) = config.server_for("py").unwrap();
        assert_eq!((server.name.as_str(), language), ("ruff", "py"));
        assert_eq!(server.command, ["ruff", "server"]);
        assert_eq!(config.server_for("go"), None);
        assert_eq!(config.wait, Duration::from_secs(60));
        assert_eq!(config.max_diagnostics, 5);
    }

    #[test]
    fn a_builtins_name_with_a_command_keeps_its_files() {
        let config = applied(r#"{"servers": {"pyright": {"command": ["/opt/pyright", "--stdio"]}}}"#).unwrap();
        let (server, language) = config.server_for("pyi").unwrap();
        assert_eq!((server.command[0].as_str(), language), ("/opt/pyright", "python"));
        assert!(server.source.is_some());
    }

    #[test]
    fn a_bad_file_applies_nothing() {
        for text in [
            r#"{"servers": {"x": {"extensions": ["x"]}}}"#,
            r#"{"servers": {"x": {"command": ["x"]}}}"#,
            r#"{"servers": {"x": {"command": ["x"], "extensions": ["x"], "typo": 1}}}"#,
            r#"{"wait_ms": "soon"}"#,
            "[",
        ] {
            assert!(applied(text).is_err(), "{text}");
        }
    }
}
