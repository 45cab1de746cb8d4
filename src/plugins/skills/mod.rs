//! Agent Skills (the agentskills.io format): folders holding a `SKILL.md` under
//! `.agents/skills/` and `.claude/skills/`, the project's (from the working directory up to
//! its root) and the user's (`~`). Skills are instructions, not code, so a project's load in
//! an untrusted project too; they are part of the system prompt, where the user sees them
//! in the context panel. Only names and descriptions go there (at most `PROMPT_BUDGET`
//! bytes, the rest by name only); the `skill` tool loads a body. `/skills` lists them and
//! the files skipped for bad front matter (file and line).

pub mod catalogue;
pub mod tool;

use crate::agent::{Flow, Plugin, Session};
use catalogue::{Catalogue, Skill};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// Bytes of the system prompt the skills' descriptions may take; past it, skills are listed
/// by name only.
pub const PROMPT_BUDGET: usize = 4096;
/// The system prompt section's name.
const SECTION: &str = "skills";

pub struct SkillsPlugin {
    home: Option<PathBuf>,
}

impl SkillsPlugin {
    pub fn new(home: Option<PathBuf>) -> Self {
        SkillsPlugin { home }
    }
}

impl Plugin for SkillsPlugin {
    fn name(&self) -> &str {
        "skills"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        let cwd = session.cwd();
        let root = super::trust::project_root(&cwd);
        let guard = super::shared_dirs::Guard::load(&cwd, &root, self.home.as_deref())?;
        let catalogue = Arc::new(Catalogue::find(&cwd, &root, self.home.as_deref(), guard));
        for problem in &catalogue.problems {
            session.show(format!("skill skipped: {problem}"));
        }
        session.set_prompt_section(SECTION, prompt_section(&catalogue.skills));
        if !catalogue.skills.is_empty() {
            session.toolbox_mut().add(tool::tool(catalogue.clone())?);
        }
        let listed = catalogue.clone();
        session.commands_mut().add("skills", "", "list the skills the model can load", move |s, _| {
            s.show(listing(&listed));
            Ok(Flow::Continue)
        });
        Ok(())
    }
}

/// The system prompt's part: each skill's name and description while they fit in
/// `PROMPT_BUDGET`, then the remaining names.
pub fn prompt_section(skills: &[Skill]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "Skills: instructions for particular tasks. When a task matches a skill's description, \
         load it with the `{}` tool (by name) before starting.\n",
        tool::NAME
    );
    let mut rest = Vec::new();
    for skill in skills {
        let line = format!("- {}: {}\n", skill.name, one_line(&skill.description));
        if rest.is_empty() && text.len() + line.len() <= PROMPT_BUDGET {
            text.push_str(&line);
        } else {
            rest.push(skill.name.as_str());
        }
    }
    if !rest.is_empty() {
        let _ = writeln!(text, "More skills (by name; load one to read it): {}", rest.join(", "));
    }
    text
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn listing(catalogue: &Catalogue) -> String {
    let mut text = String::new();
    if catalogue.skills.is_empty() {
        text.push_str("No skills (looked in .agents/skills/ and .claude/skills/, the project's and ~).\n");
    }
    for skill in &catalogue.skills {
        let whose = if skill.project { "project" } else { "user" };
        let _ = writeln!(
            text,
            "{} ({whose}) — {}\n    {}",
            skill.name,
            one_line(&skill.description),
            skill.folder.display()
        );
    }
    for problem in &catalogue.problems {
        let _ = writeln!(text, "skipped: {problem}");
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_part_stays_within_its_budget_and_names_the_rest() {
        let skills: Vec<Skill> = (0..100)
            .map(|i| Skill {
                name: format!("skill-{i}"),
                description: "d".repeat(200),
                folder: PathBuf::from("/x"),
                project: true,
            })
            .collect();
        let text = prompt_section(&skills);
        let (described, named) = text.split_once("More skills").unwrap();
        assert!(described.len() <= PROMPT_BUDGET, "{}", described.len());
        assert!(named.contains("skill-99") && !described.contains("skill-99"));
        assert!(text.len() < PROMPT_BUDGET + 1500, "{}", text.len());
    }
}
