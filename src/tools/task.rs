//! The `task` tool: hands a piece of work to a sub-agent — the same model and tools (less
//! this one), a fresh context, the same permissions, sandbox and hooks, the turn's step
//! limit — and returns only its final reply. The child's own tool traffic stays in its
//! context, so a big search does not fill the parent's window. Several `task` calls of one
//! response run at the same time (`Tool::runs_agents`).

use crate::agent::output::TurnEnd;
use crate::agent::{Tool, ToolContext};
use serde_json::{json, Value};

pub fn tool() -> Tool {
    Tool::builtin(
        "task",
        "Hand self-contained work to a sub-agent with a fresh context: it sees only `prompt`, \
         and only its final reply returns, so say what to report. Calls in one response run at \
         once.",
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "minLength": 1},
                "prompt": {"type": "string", "minLength": 1}
            },
            "required": ["description", "prompt"],
            "additionalProperties": false
        }),
        run,
    )
    .with_aliases(&["Task"])
    .runs_agents()
    // Changes nothing itself, so it runs without asking: every call its sub-agent makes
    // goes through the same permissions gate.
    .read_only()
    .summarized_by("description")
}

async fn run(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let prompt = super::str_arg(&args, "prompt")?;
    let Some(sub_agent) = ctx.sub_agent() else {
        return Ok(json!({"error": "no sub-agent can run here (a sub-agent cannot start another)"}));
    };
    let report = sub_agent.run(prompt, ctx.cancel.clone()).await;
    let tokens = report.usage.input_tokens + report.usage.output_tokens;
    Ok(match report.end {
        TurnEnd::Done => json!({"content": report.reply, "tokens": tokens}),
        TurnEnd::Failed => {
            json!({"error": format!("the sub-agent failed: {}", report.reply.trim_start_matches("Error: ")), "tokens": tokens})
        }
        TurnEnd::Interrupted => json!({"error": "interrupted", "tokens": tokens}),
    })
}
