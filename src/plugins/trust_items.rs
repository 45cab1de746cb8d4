//! What trusting a project would turn on, read from its `.agents/` by the readers that load
//! it, for the trust question (`trust::TurnsOn`): the hooks' commands (`hooks::config`), the
//! Lua plugin files (`lua::loader`), the MCP servers and the commands they start
//! (`mcp::config`, `${VAR}` left as written so no secret is shown), the language servers
//! (`lsp::config`) and the rules of
//! `permissions.json` that would loosen the user's (`Permissions::ignored`). A command is
//! shown on one line, its control characters escaped, cut after `SHOWN` characters.

use super::hooks::config::{self as hooks, Event, Hook, Hooks};
use super::lua::loader::Folders;
use super::mcp::config::{self as mcp, Transport};
use super::permissions::{Permissions, RuleSet};
use super::trust::{project_root, ProjectTrust, TurnsOn};
use crate::agent::toolbox::Toolbox;
use std::path::Path;

/// Characters of a command the question shows.
const SHOWN: usize = 80;
/// Bytes of `mcp.json` read at most (as `mcp::config` reads it).
const MCP_FILE_LIMIT: u64 = 1024 * 1024;

/// What yes would turn on in the project around `cwd`, whose `.agents/` is `agents`
/// (canonical): its hooks, Lua plugin files, MCP servers and the rules that loosen, in that
/// order, each only when there is something. `tools` places the rules (aliases, read-only
/// tools) as the permissions gate does.
pub fn turns_on(cwd: &Path, agents: &Path, home: Option<&Path>, tools: &Toolbox) -> Vec<TurnsOn> {
    let root = project_root(cwd);
    [
        hook_commands(&root, agents),
        plugin_files(cwd, agents, home),
        mcp_servers(cwd, agents, &root),
        language_servers(cwd, agents, &root),
        loosened(cwd, &root, home, tools),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The project's hooks (`.agents/hooks.json` at the project root, as the hooks plugin reads
/// it), one line per command: when it runs, then the command.
fn hook_commands(root: &Path, agents: &Path) -> Option<TurnsOn> {
    let path = root.join(".agents/hooks.json");
    std::fs::symlink_metadata(&path).ok()?;
    let (label, files) = named(&path, agents);
    let mut hooks = Hooks::default();
    if let Err(error) = hooks::load_into(&path, &mut hooks) {
        let what =
            format!("{label}: cannot be read ({}), so none of its hooks would run", one_line(&error.to_string()));
        return Some(TurnsOn { label, what, details: Vec::new(), files });
    }
    let details: Vec<String> = hooks
        .by_event
        .iter()
        .flat_map(|(event, list)| {
            list.iter().map(|hook| format!("{}: {}", when(*event, hook), one_line(&hook.command)))
        })
        .collect();
    let what = match details.len() {
        0 => return None,
        1 => format!("{label}: runs this command, as you (not sandboxed):"),
        n => format!("{label}: runs these {n} commands, as you (not sandboxed):"),
    };
    Some(TurnsOn { label, what, details, files })
}

/// When a hook runs: `before Bash calls`, `after every tool call`, `on each prompt`.
fn when(event: Event, hook: &Hook) -> String {
    let calls = || match &hook.matcher {
        // `config` wraps the pattern written as `^(?:…)$`.
        Some(re) => format!("{} calls", one_line(re.as_str().trim_start_matches("^(?:").trim_end_matches(")$"))),
        None => "every tool call".to_string(),
    };
    match event {
        Event::PreToolUse => format!("before {}", calls()),
        Event::PostToolUse => format!("after {}", calls()),
        Event::UserPromptSubmit => "on each prompt".to_string(),
        Event::Stop => "when a turn ends".to_string(),
        Event::SessionStart => "when a session starts".to_string(),
    }
}

/// The project's Lua plugin files (`.agents/plugins/*.lua`), which load only when trusted.
fn plugin_files(cwd: &Path, agents: &Path, home: Option<&Path>) -> Option<TurnsOn> {
    let skipped = Folders::with_trust(home, cwd, ProjectTrust::fixed(false)).scan().skipped;
    if skipped.is_empty() {
        return None;
    }
    let files: Vec<String> = skipped.iter().map(|path| named(path, agents).0).collect();
    let names: Vec<String> = skipped
        .iter()
        .map(|path| one_line(&path.file_name().map_or_else(String::new, |name| name.to_string_lossy().into_owned())))
        .collect();
    let code = if names.len() == 1 { "this Lua code" } else { "these Lua files" };
    Some(TurnsOn {
        label: "plugins/".into(),
        what: format!("plugins/: runs {code} inside elelem, as you:"),
        details: vec![names.join(", ")],
        files,
    })
}

/// The project's MCP servers (`.agents/mcp.json`), each with the command it starts or the
/// address it connects to.
fn mcp_servers(cwd: &Path, agents: &Path, root: &Path) -> Option<TurnsOn> {
    let path = cwd.join(".agents/mcp.json");
    if !path.is_file() {
        return None;
    }
    let (label, files) = named(&path, agents);
    let unreadable = |error: String| {
        let what = format!("{label}: cannot be read ({}), so none of its servers would start", one_line(&error));
        Some(TurnsOn { label: label.clone(), what, details: Vec::new(), files: files.clone() })
    };
    let text = match crate::safe_file::Reading::capped(MCP_FILE_LIMIT).within(root).text(&path) {
        Ok(text) => text,
        Err(error) => return unreadable(error.to_string()),
    };
    // Variables are shown as written: their values may be secrets.
    let (servers, _) = match mcp::parse(&text, &path, &|name| Some(format!("${{{name}}}"))) {
        Ok(parsed) => parsed,
        Err(error) => return unreadable(error.to_string()),
    };
    let details: Vec<String> = servers
        .iter()
        .map(|server| match &server.transport {
            Transport::Stdio { command, args, .. } => {
                let line = std::iter::once(command).chain(args).map(String::as_str).collect::<Vec<_>>().join(" ");
                format!("{}: starts {}", one_line(&server.name), one_line(&line))
            }
            Transport::Http { url, .. } => format!("{}: connects to {}", one_line(&server.name), one_line(url)),
        })
        .collect();
    let servers = match details.len() {
        0 => return None,
        1 => "this MCP server".to_string(),
        n => format!("these {n} MCP servers"),
    };
    let what = format!("{label}: adds {servers}, as you (not sandboxed):");
    Some(TurnsOn { label, what, details, files })
}

/// The language servers the project's `.agents/lsp.json` names (`lsp::config`), each with
/// the command it starts after an edit of its files.
fn language_servers(cwd: &Path, agents: &Path, root: &Path) -> Option<TurnsOn> {
    let path = cwd.join(".agents/lsp.json");
    if !path.is_file() {
        return None;
    }
    let (label, files) = named(&path, agents);
    let mut config = super::lsp::config::Config::default();
    let read = crate::safe_file::Reading::capped(MCP_FILE_LIMIT).within(root).text(&path).map_err(|e| e.to_string());
    if let Err(error) = read.and_then(|text| super::lsp::config::apply(&text, &path, &mut config)) {
        let what = format!("{label}: cannot be read ({}), so none of its servers would start", one_line(&error));
        return Some(TurnsOn { label, what, details: Vec::new(), files });
    }
    let details: Vec<String> = config
        .servers
        .iter()
        .filter(|server| server.source.is_some())
        .map(|server| format!("{}: starts {}", one_line(&server.name), one_line(&server.command.join(" "))))
        .collect();
    let servers = match details.len() {
        0 => return None,
        1 => "this language server".to_string(),
        n => format!("these {n} language servers"),
    };
    let what = format!("{label}: starts {servers} after edits (in the sandbox when it is on):");
    Some(TurnsOn { label, what, details, files })
}

/// The rules of the project's `permissions.json` that would loosen the user's, as the
/// permissions plugin's notice names them (`execute allow`, `paths allow /srv`).
fn loosened(cwd: &Path, root: &Path, home: Option<&Path>, tools: &Toolbox) -> Option<TurnsOn> {
    let label = "permissions.json".to_string();
    let files = vec![label.clone()];
    let mut project = match RuleSet::load(cwd, root, home) {
        Ok(rules) => rules,
        Err(error) => {
            let what =
                format!("{label}: cannot be read ({}), so none of its rules would apply", one_line(&error.to_string()));
            return Some(TurnsOn { label, what, details: Vec::new(), files });
        }
    };
    let mut user = home.and_then(|home| RuleSet::load(home, root, Some(home)).ok()).unwrap_or_default();
    // As the gate does; a rule it would refuse is still counted by the name it was written with.
    let _ = user.canonicalize(tools);
    let _ = project.canonicalize(tools);
    let ignored = Permissions { user, project, trusted: false }.ignored(tools);
    if ignored.is_empty() {
        return None;
    }
    let what = format!("{label}: loosens your rules:");
    Some(TurnsOn { label, what, details: vec![one_line_of(&ignored.join(", "), 4 * SHOWN)], files })
}

/// How the question names `path`: relative to `.agents/` when it is in it (and as the
/// listing names it, so it is not listed again), else whole.
fn named(path: &Path, agents: &Path) -> (String, Vec<String>) {
    let inside = path.parent().and_then(|dir| std::fs::canonicalize(dir).ok()).and_then(|dir| {
        let path = dir.join(path.file_name()?);
        Some(path.strip_prefix(agents).ok()?.to_string_lossy().into_owned())
    });
    match inside {
        Some(relative) => (relative.clone(), vec![relative]),
        None => (one_line(&path.display().to_string()), Vec::new()),
    }
}

/// `text` on one line of at most `SHOWN` characters.
fn one_line(text: &str) -> String {
    one_line_of(text, SHOWN)
}

/// `text` on one line (control characters escaped: `\n`, `\u{1b}`), cut with `…` after
/// `max` characters.
fn one_line_of(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        for (name, text) in files {
            let path = project.join(".agents").join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        (dir, project)
    }

    fn read(project: &Path, home: &Path) -> Vec<TurnsOn> {
        let agents = std::fs::canonicalize(project.join(".agents")).unwrap();
        turns_on(project, &agents, Some(home), &Toolbox::new())
    }

    #[test]
    fn each_thing_yes_turns_on_is_said_with_its_commands() {
        let (dir, project) = make(&[
            (
                "hooks.json",
                r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh\nrm -rf /"}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}"#,
            ),
            ("plugins/fmt.lua", ""),
            ("plugins/notes.txt", ""),
            ("mcp.json", r#"{"mcpServers": {"db": {"command": "db-server", "args": ["--token", "${DB_TOKEN}"]}}}"#),
            ("permissions.json", r#"{"execute": "allow", "read": "deny"}"#),
        ]);
        let items = read(&project, &dir.path().join("home"));
        let labels: Vec<&str> = items.iter().map(|item| item.label.as_str()).collect();
        assert_eq!(labels, ["hooks.json", "plugins/", "mcp.json", "permissions.json"]);
        assert_eq!(items[0].what, "hooks.json: runs these 2 commands, as you (not sandboxed):");
        assert_eq!(
            items[0].details,
            ["before Bash calls: ./check.sh\\nrm -rf /", "when a turn ends: notify-send done"]
        );
        assert_eq!(items[1].details, ["fmt.lua"]);
        assert_eq!(items[1].files, ["plugins/fmt.lua"]);
        assert_eq!(items[2].details, ["db: starts db-server --token ${DB_TOKEN}"]);
        assert_eq!(items[3].details, ["execute allow"], "a deny only tightens");
    }

    #[test]
    fn the_language_servers_of_lsp_json_are_said_with_their_commands() {
        let servers = r#"{"servers": {"ruff": {"command": ["ruff", "server"], "extensions": ["py"]}, "gopls": {"disabled": true}}}"#;
        let (dir, project) = make(&[("lsp.json", servers)]);
        let items = read(&project, &dir.path().join("home"));
        assert_eq!(items[0].what, "lsp.json: starts this language server after edits (in the sandbox when it is on):");
        assert_eq!(items[0].details, ["ruff: starts ruff server"]);
        let (dir, project) = make(&[("lsp.json", r#"{"servers": {"x": {}}}"#)]);
        assert!(read(&project, &dir.path().join("home"))[0].what.starts_with("lsp.json: cannot be read ("));
    }

    #[test]
    fn nothing_to_turn_on_says_nothing_and_a_broken_file_says_so() {
        let (dir, project) = make(&[("permissions.json", r#"{"write": "deny"}"#), ("skills/a/SKILL.md", "")]);
        assert!(read(&project, &dir.path().join("home")).is_empty());
        let (dir, project) = make(&[("hooks.json", "{not json")]);
        let items = read(&project, &dir.path().join("home"));
        assert!(items[0].what.starts_with("hooks.json: cannot be read ("), "{:?}", items[0]);
        let long = "x".repeat(200);
        assert_eq!(one_line(&long).chars().count(), SHOWN + 1);
    }
}
