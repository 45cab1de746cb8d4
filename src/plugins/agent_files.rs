//! Agents defined in files (issue 40): `~/.agents/agents/*.md` and, in a trusted project,
//! `.agents/agents/*.md` and `.claude/agents/*.md` (the format Claude Code reads): front
//! matter `name`, `description`, optional `tools` (a list: `read, grep`, `[read, grep]` or
//! `- read` lines; Claude Code's names such as `Read` or `Bash` are mapped; none: every tool
//! but `task`) and optional `model`; the body is the agent's system prompt. The files are
//! found and read as skills are (`shared_dirs`: regular files only, capped, a project's never
//! through a link out of it, nothing under `paths.deny`), the project's nearest first, the
//! first agent of a name winning. A bad file is reported with its file and line and
//! skipped. The agents reach the model through the task tool (`Offer`, which `startup`
//! hands in: the task tool offering them); `/agents` lists them. Set up again at `/reload`.
//!
//! A project's agents are read only when the project is trusted: unlike a skill, an agent
//! file chooses tools and a model, not only words.

use super::front_matter;
use super::shared_dirs::{self, Folder, Guard};
use super::skills::catalogue::valid_name;
use super::trust::ProjectTrust;
use crate::agent::{Flow, Persona, Plugin, Session, Tool};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// An agent file is read only up to this size.
pub const AGENT_FILE_CAP: u64 = 64 * 1024;
/// Entries looked at in one agents folder at most.
const FILES_PER_FOLDER: usize = 200;
const DESCRIPTION_MAX: usize = 1024;

/// Makes the tool that offers `agents` to the model (the task tool, from `startup`).
pub type Offer = fn(Vec<Persona>) -> Tool;

/// Claude Code's tool names and the names they stand for (`tools::CLAUDE_CODE_NAMES`).
pub type ToolNames = &'static [(&'static str, &'static [&'static str])];

pub struct AgentFiles {
    home: Option<PathBuf>,
    trust: ProjectTrust,
    names: ToolNames,
    offer: Offer,
}

impl AgentFiles {
    pub fn new(home: Option<PathBuf>, trust: ProjectTrust, names: ToolNames, offer: Offer) -> Self {
        AgentFiles { home, trust, names, offer }
    }
}

/// An agent found, with where it came from.
#[derive(Clone, Debug)]
pub struct Found {
    pub persona: Persona,
    pub file: PathBuf,
    pub project: bool,
}

/// What one look around found: the agents and, for each file skipped, `path:line: why`.
#[derive(Clone, Debug, Default)]
pub struct Agents {
    pub agents: Vec<Found>,
    pub problems: Vec<String>,
}

impl Plugin for AgentFiles {
    fn name(&self) -> &str {
        "agent files"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let cwd = session.cwd();
        let root = super::trust::project_root(&cwd);
        let guard = Guard::load(&cwd, &root, self.home.as_deref())?;
        let found = find(&cwd, &root, self.home.as_deref(), self.trust.is_trusted(), &guard, self.names);
        for problem in &found.problems {
            session.show(format!("agent file skipped: {problem}"));
        }
        let personas: Vec<Persona> = found.agents.iter().map(|a| a.persona.clone()).collect();
        if !personas.is_empty() {
            session.toolbox_mut().add((self.offer)(personas));
        }
        session.commands_mut().add("agents", "", "list the agents defined in files", move |s, _| {
            s.show(listing(&found));
            Ok(Flow::Continue)
        });
        Ok(())
    }
}

/// The agents in the folders around `cwd` (the project's only when `trusted`).
pub fn find(cwd: &Path, root: &Path, home: Option<&Path>, trusted: bool, guard: &Guard, names: ToolNames) -> Agents {
    let mut found = Agents::default();
    for folder in shared_dirs::folders("agents", cwd, root, home) {
        if folder.project && !trusted {
            continue;
        }
        scan(&folder, guard, names, &mut found);
    }
    found
}

fn scan(folder: &Folder, guard: &Guard, names: ToolNames, found: &mut Agents) {
    let Ok(entries) = std::fs::read_dir(&folder.path) else { return };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .take(FILES_PER_FOLDER)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    for file in files {
        match load(&file, guard, folder.project, names) {
            Ok(persona) => {
                if !found.agents.iter().any(|a| a.persona.name == persona.name) {
                    found.agents.push(Found { persona, file, project: folder.project });
                }
            }
            Err(problem) => found.problems.push(problem),
        }
    }
}

/// One agent file, or `path:line: what is wrong`.
fn load(file: &Path, guard: &Guard, project: bool, names: ToolNames) -> Result<Persona, String> {
    let at = |line: usize, message: &str| format!("{}:{line}: {message}", file.display());
    let text = guard.read(file, project, AGENT_FILE_CAP)?;
    let doc = front_matter::parse(&text).map_err(|e| at(e.line, &e.message))?;
    if !doc.has_front_matter {
        return Err(at(1, "no front matter (`---` with name and description)"));
    }
    let line_of =
        |key: &str| text.lines().position(|l| l.trim_start().starts_with(&format!("{key}:"))).map_or(1, |i| i + 1);
    let name = doc.get("name").unwrap_or_default().trim().to_string();
    if name.is_empty() {
        return Err(at(1, "front matter has no `name`"));
    }
    if !valid_name(&name) {
        return Err(at(line_of("name"), &format!("name {name:?}: only lowercase letters, digits and hyphens")));
    }
    let description = doc.get("description").unwrap_or_default().trim().to_string();
    if description.is_empty() {
        return Err(at(1, "front matter has no `description`"));
    }
    if description.chars().count() > DESCRIPTION_MAX {
        return Err(at(line_of("description"), &format!("description longer than {DESCRIPTION_MAX} characters")));
    }
    let tools = match doc.get("tools") {
        None => None,
        Some(list) => {
            let listed = tool_list(list, names);
            if listed.is_empty() {
                return Err(at(line_of("tools"), "`tools` names no tool (leave it out for every tool)"));
            }
            Some(listed)
        }
    };
    let model = doc.get("model").map(str::trim).filter(|m| !m.is_empty() && *m != "inherit").map(str::to_string);
    let prompt = doc.body.trim().to_string();
    if prompt.is_empty() {
        return Err(at(line_of("name"), "the file has no text after its front matter (the agent's prompt)"));
    }
    Ok(Persona { name, description, prompt, tools, model })
}

/// The tool names of a `tools` value: separated by commas or spaces, in `[ ]` or as `- `
/// items; Claude Code's names (`Read`, `Bash`) become the tools they stand for.
fn tool_list(value: &str, names: ToolNames) -> Vec<String> {
    let mut tools: Vec<String> = Vec::new();
    let words = value.split(|c: char| c == ',' || c.is_whitespace() || c == '[' || c == ']');
    for word in words.map(|w| w.trim_matches(['"', '\''])).filter(|w| !w.is_empty() && *w != "-") {
        let tool = names
            .iter()
            .find(|(_, theirs)| theirs.contains(&word))
            .map_or_else(|| word.to_string(), |(ours, _)| ours.to_string());
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    tools
}

fn listing(found: &Agents) -> String {
    let mut text = String::new();
    if found.agents.is_empty() {
        text.push_str(
            "No agents (looked in ~/.agents/agents/ and, in a trusted project, .agents/agents/ and .claude/agents/).\n",
        );
    }
    for agent in &found.agents {
        let persona = &agent.persona;
        let whose = if agent.project { "project" } else { "user" };
        let tools = persona.tools.as_ref().map_or("every tool".to_string(), |t| t.join(", "));
        let model = persona.model.as_deref().map(|m| format!(", model {m}")).unwrap_or_default();
        let description = persona.description.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ =
            writeln!(text, "{} ({whose}) — {description}\n    {tools}{model} · {}", persona.name, agent.file.display());
    }
    for problem in &found.problems {
        let _ = writeln!(text, "skipped: {problem}");
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: ToolNames = &[("execute", &["Bash"]), ("read", &["Read"]), ("edit", &["Edit", "MultiEdit"])];

    #[test]
    fn tool_lists_in_each_form_and_claude_codes_names() {
        assert_eq!(tool_list("read, grep", NAMES), ["read", "grep"]);
        assert_eq!(tool_list("[Read, Bash]", NAMES), ["read", "execute"]);
        assert_eq!(tool_list("- read - Edit - MultiEdit", NAMES), ["read", "edit"]);
        assert!(tool_list(" ", NAMES).is_empty());
    }

    #[test]
    fn a_file_is_read_or_its_problem_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let guard = Guard::default();
        let file = dir.path().join("reviewer.md");
        std::fs::write(
            &file,
            "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read\nmodel: small\n---\nReview.\n",
        )
        .unwrap();
        let persona = load(&file, &guard, false, NAMES).unwrap();
        assert_eq!(persona.tools, Some(vec!["read".to_string()]));
        assert_eq!((persona.model.as_deref(), persona.prompt.as_str()), (Some("small"), "Review."));
        std::fs::write(&file, "---\nname: reviewer\ndescription: d\nnot front matter\n---\nx\n").unwrap();
        assert!(load(&file, &guard, false, NAMES)
            .unwrap_err()
            .ends_with("reviewer.md:4: expected `key: value`, found \"not front matter\""));
        std::fs::write(&file, "---\nname: Bad Name\ndescription: d\n---\nx\n").unwrap();
        assert!(load(&file, &guard, false, NAMES).unwrap_err().contains("reviewer.md:2: name"));
    }
}
