//! The tools that reach a job once `execute` started it in the background: `job_output`
//! (what arrived since the last read, waiting up to `wait_ms` for it), `job_input` (text and
//! named keys) and `job_stop`. Each holds the session's table (`Jobs`).

use super::{Jobs, Status, Taken, MAX_WAIT};
use crate::agent::{Tool, ToolContext};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The three tools, on `jobs`.
pub fn all(jobs: &Arc<Jobs>) -> [Tool; 3] {
    [output(Arc::clone(jobs)), input(Arc::clone(jobs)), stop(Arc::clone(jobs))]
}

/// A read as the model gets it: `content`, `dropped_bytes` when the buffer lost some, and
/// `running`, or how it ended.
pub fn taken_json(id: u32, taken: Taken) -> Value {
    let mut json = json!({"job": id, "content": taken.text});
    if taken.dropped > 0 {
        json["dropped_bytes"] = json!(taken.dropped);
    }
    match taken.status {
        None => json["running"] = json!(true),
        Some(Status::Exited(code)) => json["exit_status"] = json!(code),
        Some(Status::Stopped) => json["stopped"] = json!(true),
    }
    if let Some(note) = taken.note {
        json["sandbox"] = json!(note);
    }
    json
}

fn id_arg(args: &Value) -> anyhow::Result<u64> {
    args["id"].as_u64().ok_or_else(|| anyhow::anyhow!("missing job number \"id\""))
}

fn output(jobs: Arc<Jobs>) -> Tool {
    Tool::builtin(
        "job_output",
        "A job's output since the last read, and whether it ended.",
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "wait_ms": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT.as_millis() as u64, "description": "wait this long for new output"}
            },
            "required": ["id"],
            "additionalProperties": false
        }),
        move |args, ctx: ToolContext| {
            let jobs = Arc::clone(&jobs);
            async move {
                let job = match jobs.get(id_arg(&args)?) {
                    Ok(job) => job,
                    Err(message) => return Ok(json!({"error": message})),
                };
                let wait = Duration::from_millis(args["wait_ms"].as_u64().unwrap_or(0));
                let taken = job.read(wait, &ctx.cancel).await;
                Ok(taken_json(job.id, taken))
            }
        },
    )
    .read_only()
    .with_summary(|args| format!("%{}", args["id"]))
}

fn input(jobs: Arc<Jobs>) -> Tool {
    Tool::builtin(
        "job_input",
        "Type into a job: text (\\n ends a line), then named keys.",
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "input": {"type": "string"},
                "keys": {"type": "array", "items": {"type": "string"}, "description": "sent after input: Enter, Tab, Esc, Up, Down, Ctrl+C, Ctrl+D, ..."}
            },
            "required": ["id"],
            "additionalProperties": false
        }),
        move |args, _ctx: ToolContext| {
            let jobs = Arc::clone(&jobs);
            async move {
                let job = match jobs.get(id_arg(&args)?) {
                    Ok(job) => job,
                    Err(message) => return Ok(json!({"error": message})),
                };
                // Input to a job outside the sandbox is a command the user did not see:
                // the gate lets input through unasked when the sandbox runs `execute`.
                if !job.contained && super::super::sandbox::active() {
                    return Ok(json!({"error": format!("job {} runs outside the sandbox; it takes no input", job.id)}));
                }
                let keys: Vec<String> = args["keys"]
                    .as_array()
                    .map(|keys| keys.iter().filter_map(|k| k.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                match job.send(args["input"].as_str().unwrap_or_default(), &keys).await {
                    Ok(bytes) => Ok(json!({"job": job.id, "written_bytes": bytes})),
                    Err(message) => Ok(json!({"error": message})),
                }
            }
        },
    )
    .with_summary(|args| {
        let text = args["input"].as_str().unwrap_or_default().escape_debug().to_string();
        let keys: Vec<&str> = args["keys"].as_array().map(|k| k.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        format!("%{} {text} {}", args["id"], keys.join(" ")).trim_end().to_string()
    })
}

fn stop(jobs: Arc<Jobs>) -> Tool {
    Tool::builtin(
        "job_stop",
        "Stop a job and everything it started.",
        json!({
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "required": ["id"],
            "additionalProperties": false
        }),
        move |args, _ctx: ToolContext| {
            let jobs = Arc::clone(&jobs);
            async move {
                let job = match jobs.get(id_arg(&args)?) {
                    Ok(job) => job,
                    Err(message) => return Ok(json!({"error": message})),
                };
                let was_running = job.running();
                job.stop().await;
                let mut json = taken_json(job.id, job.take());
                if !was_running {
                    json["note"] = json!("it had already ended");
                }
                Ok(json)
            }
        },
    )
    .read_only()
    .with_summary(|args| format!("%{}", args["id"]))
}
