//! The `task` tool: hands a piece of work to a sub-agent — the same model and tools (less
//! this one), a fresh context, the same permissions, sandbox and hooks, the turn's step
//! limit — and returns only its final reply. The child's own tool traffic stays in its
//! context, so a big search does not fill the parent's window. Several `task` calls of one
//! response run at the same time (`Tool::runs_agents`).
//!
//! `offering` is the same tool offering agents defined in files (`Persona`s, which the
//! agent files plugin reads): an `agent` property lists their names and descriptions, and
//! a call naming one runs as it says (`SubAgent::run_as`: its prompt, only its tools, its
//! model). The call's row names the agent.

use crate::agent::output::TurnEnd;
use crate::agent::{Persona, Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::Arc;

const ABOUT: &str = "Hand self-contained work to a sub-agent with a fresh context: it sees only `prompt`, \
                     and only its final reply returns, so say what to report. Calls in one response run at \
                     once.";

/// Characters of agents' descriptions the tool carries at most (a session may define
/// many agents; every request carries the tool).
const DESCRIBED: usize = 4096;

pub fn tool() -> Tool {
    offering(Vec::new())
}

/// `task`, offering `agents` (none: the plain tool).
pub fn offering(agents: Vec<Persona>) -> Tool {
    let mut properties = json!({
        "description": {"type": "string", "minLength": 1},
        "prompt": {"type": "string", "minLength": 1}
    });
    if !agents.is_empty() {
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        // Descriptions while they fit in `DESCRIBED`, the names alone in `enum` past it.
        let mut listed: Vec<String> = Vec::new();
        let mut room = DESCRIBED;
        for agent in agents.iter() {
            let line = format!("{}: {}", agent.name, one_line(&agent.description));
            if line.len() > room {
                break;
            }
            room -= line.len();
            listed.push(line);
        }
        properties["agent"] = json!({
            "type": "string",
            "enum": names,
            "description": format!("run as this agent (default: a general one). {}", listed.join("; "))
        });
    }
    let agents = Arc::new(agents);
    Tool::builtin(
        "task",
        ABOUT,
        json!({
            "type": "object",
            "properties": properties,
            "required": ["description", "prompt"],
            "additionalProperties": false
        }),
        move |args, ctx| {
            let agents = Arc::clone(&agents);
            async move { run(args, ctx, &agents).await }
        },
    )
    .with_aliases(&["Task"])
    .runs_agents()
    // Changes nothing itself, so it runs without asking: every call its sub-agent makes
    // goes through the same permissions gate.
    .read_only()
    .with_summary(|args| {
        let description = args["description"].as_str().unwrap_or_default();
        match args["agent"].as_str() {
            Some(agent) => format!("{agent}: {description}"),
            None => description.to_string(),
        }
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn run(args: Value, ctx: ToolContext, agents: &[Persona]) -> anyhow::Result<Value> {
    let prompt = super::str_arg(&args, "prompt")?;
    let Some(sub_agent) = ctx.sub_agent() else {
        return Ok(json!({"error": "no sub-agent can run here (a sub-agent cannot start another)"}));
    };
    let report = match args["agent"].as_str() {
        None => sub_agent.run(prompt, ctx.cancel.clone()).await,
        Some(name) => match agents.iter().find(|a| a.name == name) {
            Some(persona) => sub_agent.run_as(persona, prompt, ctx.cancel.clone()).await,
            None => return Ok(json!({"error": format!("no agent named {name:?}")})),
        },
    };
    let tokens = report.usage.input_tokens + report.usage.output_tokens;
    Ok(match report.end {
        TurnEnd::Done => json!({"content": report.reply, "tokens": tokens}),
        TurnEnd::Failed => {
            json!({"error": format!("the sub-agent failed: {}", report.reply.trim_start_matches("Error: ")), "tokens": tokens})
        }
        TurnEnd::Interrupted => json!({"error": "interrupted", "tokens": tokens}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_agents_are_all_named_and_described_within_the_bound() {
        let agents: Vec<Persona> = (0..100)
            .map(|i| Persona { name: format!("agent-{i}"), description: "d".repeat(200), ..Persona::default() })
            .collect();
        let tool = offering(agents);
        let agent = &tool.parameters["properties"]["agent"];
        assert_eq!(agent["enum"].as_array().unwrap().len(), 100);
        let described = agent["description"].as_str().unwrap();
        assert!(described.len() <= DESCRIBED + 100, "{}", described.len());
        assert!(described.contains("agent-0: ddd") && !described.contains("agent-99"), "{described}");
        assert!(super::tool().parameters["properties"].get("agent").is_none());
    }
}
