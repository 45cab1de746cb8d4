//! The `skill` tool: the model loads one skill's instructions by name. The result is the
//! body of its `SKILL.md` (after the front matter, read again at each call, at most
//! `SKILL_FILE_CAP`, through the catalogue's `Guard`) and the folder it lives in, so its
//! `scripts/` can be run.

use super::super::front_matter;
use super::catalogue::{Catalogue, SKILL_FILE_CAP};
use crate::agent::{Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::Arc;

pub const NAME: &str = "skill";

pub fn tool(catalogue: Arc<Catalogue>) -> anyhow::Result<Tool> {
    let tool = Tool::new(
        NAME,
        "Load a skill's full instructions by name (the skills available are listed in the \
         system prompt). The result gives the instructions and the skill's folder; paths in \
         the instructions (scripts/, references/) are relative to that folder.",
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "the skill's name, as listed"}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
        move |args: Value, ctx: ToolContext| {
            let catalogue = catalogue.clone();
            async move {
                let name = args["name"].as_str().unwrap_or_default().to_string();
                ctx.blocking(move || load(&catalogue, &name)).await
            }
        },
    )?;
    Ok(tool.with_aliases(&["load_skill", "Skill"]).read_only().summarized_by("name"))
}

fn load(catalogue: &Catalogue, name: &str) -> Value {
    let Some(skill) = catalogue.get(name) else {
        let known: Vec<&str> = catalogue.skills.iter().map(|s| s.name.as_str()).collect();
        return json!({"error": format!("no skill named {name:?}; known: {}", known.join(", "))});
    };
    let file = skill.file();
    let text = match catalogue.guard.read(&file, skill.project, SKILL_FILE_CAP) {
        Ok(text) => text,
        Err(error) => return json!({"error": error}),
    };
    let body = match front_matter::parse(&text) {
        Ok(doc) => doc.body,
        Err(error) => return json!({"error": format!("{}:{error}", file.display())}),
    };
    json!({
        "content": body.trim(),
        "name": skill.name,
        "folder": skill.folder.display().to_string(),
        "note": format!("The skill's folder is {}; run its scripts from there.", skill.folder.display()),
    })
}
