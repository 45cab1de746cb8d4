//! MCP server configuration: the `mcpServers` object of `~/.agents/mcp.json`, then of the
//! project's `.agents/mcp.json` (only in a trusted project), in the format Claude Code
//! uses. `${VAR}` in `command`, `args`, `env`, `url` and `headers` is replaced by the
//! environment variable (empty when unset). `timeout` (seconds) bounds each tool call.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bytes of one `mcp.json` read at most.
const FILE_LIMIT: u64 = 1024 * 1024;

/// How long a tool call may wait for its answer unless the server's `timeout` says.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// How to reach one server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String> },
    /// A Streamable HTTP endpoint.
    Http { url: String, headers: BTreeMap<String, String> },
}

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    /// How long a `tools/call` may wait for its answer.
    pub call_timeout: Duration,
    /// The file it came from (for messages).
    pub source: PathBuf,
}

/// What reading the configuration found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub servers: Vec<ServerConfig>,
    /// One-line notices and warnings (bad files, skipped project servers).
    pub notices: Vec<String>,
}

#[derive(Deserialize)]
struct File {
    #[serde(rename = "mcpServers", default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// Seconds a tool call may take.
    timeout: Option<serde_json::Value>,
}

/// Reads `<home>/.agents/mcp.json`, then `<project>/.agents/mcp.json` when the project is
/// trusted (`agents_json::read_layers`: regular files, capped, never through a link out of
/// the project). A project server replaces a user server of the same name.
pub fn load(home: Option<&Path>, project: &Path, trusted_project: bool) -> Loaded {
    let mut loaded = Loaded::default();
    let layers = crate::plugins::agents_json::read_layers(
        &crate::plugins::agents_json::SettingsFile {
            name: "mcp.json",
            limit: FILE_LIMIT,
            label: "MCP",
            untrusted: "not starting the servers in",
        },
        home,
        project,
        trusted_project,
        &mut loaded.notices,
    );
    for layer in layers {
        match parse(&layer.text, &layer.path, &|name| std::env::var(name).ok()) {
            Ok((servers, notices)) => {
                loaded.notices.extend(notices);
                for server in servers {
                    loaded.servers.retain(|s| s.name != server.name);
                    loaded.servers.push(server);
                }
            }
            Err(error) => loaded.notices.push(format!("MCP: cannot read {}: {error}", layer.path.display())),
        }
    }
    loaded
}

/// Parses one file; servers that cannot be used are left out with a notice.
pub fn parse(
    text: &str,
    source: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<ServerConfig>, Vec<String>), serde_json::Error> {
    let file: File = serde_json::from_str(text)?;
    let mut servers = Vec::new();
    let mut notices = Vec::new();
    for (name, entry) in file.servers {
        let call_timeout = match entry.timeout.as_ref().map(|t| t.as_f64().filter(|s| s.is_finite() && *s > 0.0)) {
            None => DEFAULT_CALL_TIMEOUT,
            Some(Some(seconds)) => Duration::try_from_secs_f64(seconds).unwrap_or(DEFAULT_CALL_TIMEOUT),
            Some(None) => {
                notices.push(format!(
                    "MCP server {name}: \"timeout\" must be a number of seconds over 0; using {} s",
                    DEFAULT_CALL_TIMEOUT.as_secs()
                ));
                DEFAULT_CALL_TIMEOUT
            }
        };
        let x = |s: &str| expand(s, env);
        let map = |m: &BTreeMap<String, String>| m.iter().map(|(k, v)| (k.clone(), x(v))).collect();
        let transport = match (entry.kind.as_deref(), entry.command, entry.url) {
            (None | Some("stdio"), Some(command), _) => Transport::Stdio {
                command: x(&command),
                args: entry.args.iter().map(|a| x(a)).collect(),
                env: map(&entry.env),
            },
            (None | Some("http") | Some("streamable-http"), None, Some(url)) => {
                Transport::Http { url: x(&url), headers: map(&entry.headers) }
            }
            (Some(kind), _, _) if !matches!(kind, "stdio" | "http" | "streamable-http") => {
                notices.push(format!("MCP server {name}: unsupported type {kind:?} (stdio and http are)"));
                continue;
            }
            _ => {
                notices.push(format!("MCP server {name}: needs a \"command\" (stdio) or a \"url\" (http)"));
                continue;
            }
        };
        servers.push(ServerConfig { name, transport, call_timeout, source: source.to_path_buf() });
    }
    Ok((servers, notices))
}

/// Replaces each `${VAR}` with the variable's value (empty when unset).
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        out.push_str(&rest[..start]);
        out.push_str(&env(&rest[start + 2..start + 2 + len]).unwrap_or_default());
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_string())
    }

    #[test]
    fn expands_variables_and_leaves_unclosed_text() {
        assert_eq!(expand("Bearer ${TOKEN}", &env), "Bearer s3cret");
        assert_eq!(expand("${MISSING}x${TOKEN}", &env), "xs3cret");
        assert_eq!(expand("a ${TOKEN", &env), "a ${TOKEN");
    }

    #[test]
    fn parses_stdio_and_http_servers_and_reports_bad_ones() {
        let text = r#"{"mcpServers": {
            "files": {"command": "node", "args": ["srv.js", "--key=${TOKEN}"], "env": {"K": "${TOKEN}"}},
            "web": {"type": "http", "url": "http://localhost/${TOKEN}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "old": {"type": "sse", "url": "http://x"},
            "empty": {}
        }}"#;
        let (servers, notices) = parse(text, Path::new("mcp.json"), &env).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(
            servers[0].transport,
            Transport::Stdio {
                command: "node".into(),
                args: vec!["srv.js".into(), "--key=s3cret".into()],
                env: [("K".to_string(), "s3cret".to_string())].into(),
            }
        );
        assert_eq!(
            servers[1].transport,
            Transport::Http {
                url: "http://localhost/s3cret".into(),
                headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
            }
        );
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert_eq!(servers[0].call_timeout, DEFAULT_CALL_TIMEOUT);
    }

    #[test]
    fn reads_a_call_timeout_in_seconds() {
        let text = r#"{"mcpServers": {
            "a": {"command": "x", "timeout": 2.5}, "b": {"command": "y", "timeout": "soon"}, "c": {"command": "z", "timeout": 0}
        }}"#;
        let (servers, notices) = parse(text, Path::new("mcp.json"), &env).unwrap();
        let timeouts: Vec<Duration> = servers.iter().map(|s| s.call_timeout).collect();
        assert_eq!(timeouts, [Duration::from_millis(2500), DEFAULT_CALL_TIMEOUT, DEFAULT_CALL_TIMEOUT]);
        assert_eq!(notices.len(), 2, "{notices:?}");
    }

    #[test]
    fn project_servers_need_trust() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        for dir in [home.path(), project.path()] {
            std::fs::create_dir_all(dir.join(".agents")).unwrap();
        }
        std::fs::write(home.path().join(".agents/mcp.json"), r#"{"mcpServers": {"a": {"command": "x"}}}"#).unwrap();
        std::fs::write(project.path().join(".agents/mcp.json"), r#"{"mcpServers": {"b": {"command": "y"}}}"#).unwrap();
        let untrusted = load(Some(home.path()), project.path(), false);
        assert_eq!(untrusted.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["a"]);
        assert!(untrusted.notices[0].contains("--trust"), "{:?}", untrusted.notices);
        let trusted = load(Some(home.path()), project.path(), true);
        assert_eq!(trusted.servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert!(trusted.notices.is_empty());
    }
}
