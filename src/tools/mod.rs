//! Built-in tools, registered through the `BuiltinTools` plugin like any plugin's tools.
//! Each tool lives in its own module with its schema, description, handler and
//! self-description (read-only or not, summary, preview, aliases); this module holds what
//! they share (the `.gitignore`-aware walker, argument helpers).

pub mod capped;
pub mod diff;
pub mod edit;
pub mod execute;
pub mod glob;
pub mod grep;
pub mod jobs;
pub mod list;
pub mod nearest;
#[cfg(windows)]
pub mod pipe_thread;
pub mod plan;
pub mod process_groups;
pub mod pty;
pub mod read;
pub mod regular;
pub mod run_command;
pub mod run_with_input;
pub mod sandbox;
pub mod secret_env;
pub mod shell;
pub mod shell_program;
pub mod task;
pub mod web_fetch;
pub mod write;

use crate::agent::{Plugin, Session, Tool, ToolContext};
use crate::paths;
use std::path::{Path, PathBuf};

/// The built-in tools of one session, and what they keep for it: its background jobs
/// (`jobs`), killed when the session is dropped.
#[derive(Default)]
pub struct BuiltinTools {
    jobs: std::sync::Arc<jobs::Jobs>,
}

impl BuiltinTools {
    /// The tools with `jobs` as the session's job table (`startup` shares it with `/jobs`).
    pub fn with_jobs(jobs: std::sync::Arc<jobs::Jobs>) -> Self {
        BuiltinTools { jobs }
    }
}

/// Claude Code's names for these tools, which hooks written for it match (`plugins/hooks/`, handed over by `startup`).
pub const CLAUDE_CODE_NAMES: &[(&str, &[&str])] = &[
    ("execute", &["Bash"]),
    ("read", &["Read"]),
    ("write", &["Write"]),
    ("edit", &["Edit", "MultiEdit"]),
    ("glob", &["Glob"]),
    ("grep", &["Grep"]),
    ("list", &["LS"]),
    ("web_fetch", &["WebFetch"]),
    ("plan", &["TodoWrite"]),
    ("task", &["Task"]),
];

/// Every built-in tool, in the order the model sees them (with a job table of their own).
pub fn all() -> Vec<Tool> {
    all_with(&jobs::Jobs::new())
}

/// Every built-in tool, their background jobs kept in `jobs`.
pub fn all_with(jobs: &std::sync::Arc<jobs::Jobs>) -> Vec<Tool> {
    let [job_output, job_input, job_stop] = jobs::tools::all(jobs);
    vec![
        read::tool(),
        write::tool(),
        edit::tool(),
        execute::tool_with(std::sync::Arc::clone(jobs)),
        job_output,
        job_input,
        job_stop,
        glob::tool(),
        grep::tool(),
        list::tool(),
        web_fetch::tool(),
        plan::tool(),
        task::tool(),
    ]
}

impl Plugin for BuiltinTools {
    fn name(&self) -> &str {
        "tools"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let toolbox = session.toolbox_mut();
        for tool in all_with(&self.jobs) {
            toolbox.add(tool);
        }
        // `/clear` ends what the conversation started.
        let jobs = std::sync::Arc::clone(&self.jobs);
        session.observe_only(
            |event| matches!(event, crate::agent::AgentEvent::Cleared),
            std::sync::Arc::new(move |_| jobs.stop_all()),
        );
        process_groups::reap_orphans_in_background();
        Ok(())
    }
}

/// A required string argument (the schema has already checked it is there).
pub(crate) fn str_arg<'a>(args: &'a serde_json::Value, name: &str) -> anyhow::Result<&'a str> {
    args.get(name).and_then(|v| v.as_str()).ok_or_else(|| anyhow::anyhow!("missing string argument {name:?}"))
}

/// Path argument `arg` as the model gave it, and where it leads: the path resolved once
/// for this call (which the permissions gate checked), or, for a handler called without
/// the toolbox, resolved now the same way (`paths::resolve`).
pub(crate) fn path_arg(args: &serde_json::Value, ctx: &ToolContext, arg: &str) -> anyhow::Result<(String, PathBuf)> {
    let given = str_arg(args, arg)?.to_string();
    let real = match ctx.path(arg) {
        Some(real) => real.to_path_buf(),
        None => paths::resolve(&given, &paths::working_dir(), paths::home().as_deref()),
    };
    Ok((given, real))
}

/// The directory a walking tool (`glob`, `grep`, `list`) starts from: the path as given,
/// except that a leading `~` is home, as the toolbox resolved it for the gate (so
/// `~/notes` never walks a project directory named `~`).
pub(crate) fn walk_root(args: &serde_json::Value, ctx: &ToolContext) -> String {
    let given = args["path"].as_str().unwrap_or(".");
    match ctx.path("path") {
        Some(real) if given.starts_with('~') => real.to_string_lossy().into_owned(),
        _ => given.to_string(),
    }
}

/// A walker over `root` that honours `.gitignore`, `.ignore` and git's exclude files (in a
/// git repository or not), shows hidden files, and never enters `.git`.
pub(crate) fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

/// `Ok` when `path` is a directory; otherwise the message for the model.
pub(crate) fn check_dir(path: &str) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(format!("{path} is not a directory")),
        Err(e) => Err(format!("cannot read {path}: {e}")),
    }
}

/// How a found path is shown: relative to the working directory when the search started
/// there (`src/main.rs`, not `./src/main.rs`), otherwise as found under the given root.
pub(crate) fn shown(root: &str, path: &Path) -> String {
    let path = if root == "." || root == "./" { path.strip_prefix(".").unwrap_or(path) } else { path };
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    /// Built-in schemas compile at a tool's first call (`Tool::builtin`), not at start-up:
    /// this is where a broken one of ours is caught.
    #[test]
    fn every_builtin_schema_compiles() {
        for tool in super::all() {
            assert!(tool.compiled().is_ok(), "{}: {:?}", tool.name, tool.compiled().err());
        }
    }
}
