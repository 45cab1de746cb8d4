//! The `plan` tool: the model keeps a short plan of its work, each step pending, in
//! progress or completed. Each call replaces the whole plan; the front ends keep the newest
//! in view (`AgentEvent::Plan`) and session files bring it back on resume.

use crate::agent::output::AgentEvent;
use crate::agent::{Tool, ToolContext};
use crate::protocol::plan::{Plan, StepStatus};
use serde_json::{json, Value};

/// Steps a plan may hold.
pub const MAX_STEPS: usize = 50;

pub fn tool() -> Tool {
    Tool::builtin(
        "plan",
        "Your plan for work of three or more steps, shown to the user: every step each time, \
         at most one `in_progress`; update it as steps finish.",
        json!({
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "maxItems": MAX_STEPS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string", "minLength": 1},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"],
                        "additionalProperties": false
                    }
                },
                "explanation": {"type": "string"}
            },
            "required": ["steps"],
            "additionalProperties": false
        }),
        update,
    )
    .with_aliases(&["update_plan", "todo_write", "todowrite"])
    .read_only()
    .with_summary(summary)
}

fn summary(args: &Value) -> String {
    match serde_json::from_value::<Plan>(args.clone()) {
        Ok(plan) => {
            let (done, all) = plan.progress();
            match plan.current() {
                Some(step) => format!("{done}/{all} · {}", step.step),
                None => format!("{done}/{all} done"),
            }
        }
        Err(_) => String::new(),
    }
}

async fn update(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let plan: Plan = serde_json::from_value(args)?;
    let doing = plan.steps.iter().filter(|s| s.status == StepStatus::InProgress).count();
    if doing > 1 {
        return Ok(json!({"error": format!("{doing} steps are in_progress; mark at most one")}));
    }
    let (done, all) = plan.progress();
    if let Some(output) = ctx.output() {
        output.emit(AgentEvent::Plan(plan));
    }
    Ok(json!({"content": format!("Plan updated: {done} of {all} steps completed.")}))
}
