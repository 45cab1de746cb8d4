//! The tools `elelem mcp` offers and what their calls read and answer: `prompt` (run a
//! turn: its arguments, and the result as text plus `structuredContent`) and `sessions`
//! (the recorded sessions, newest first).

use super::roots::Roots;
use super::sessions::{TurnRequest, TurnResult};
use crate::agent::output::TurnEnd;
use serde_json::{json, Map, Value};

pub const PROMPT: &str = "prompt";
pub const SESSIONS: &str = "sessions";

/// The most sessions `sessions` lists unless asked for more, and the most it lists.
const SESSIONS_SHOWN: usize = 20;
const SESSIONS_MAX: usize = 200;

/// (name, description, input schema) of each tool.
pub fn specs() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            PROMPT,
            "Run one turn of the elelem coding agent: it reads, edits and runs commands in the working \
             directory to answer the prompt, and returns its reply, a summary of the tool calls it made \
             and the session id (pass it as `session` to continue the conversation). Tool calls that \
             would need approval are refused unless the server was started with --allow TOOL or --yolo.",
            json!({
                "type": "object",
                "properties": {
                    "prompt": {"type": "string", "description": "What to ask or tell the agent"},
                    "cwd": {"type": "string", "description": "Directory to work in: inside the server's \
                        directory or a --root it was started with (default: the server's directory)"},
                    "session": {"type": "string", "description": "A session id from an earlier call or from \
                        the sessions tool, to continue that conversation"}
                },
                "required": ["prompt"],
                "additionalProperties": false
            }),
        ),
        (
            SESSIONS,
            "List elelem's recorded sessions in the directories this server may work in, newest first: \
             id, directory, start time, turns and first prompt. Pass an id to the prompt tool as `session` to continue one.",
            json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": SESSIONS_MAX,
                        "description": "How many to list (default 20)"}
                },
                "additionalProperties": false
            }),
        ),
    ]
}

/// Why a call's arguments were refused.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("invalid arguments: {0}")]
pub struct BadArguments(String);

fn optional_string(args: &Map<String, Value>, field: &str) -> Result<Option<String>, BadArguments> {
    match args.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(BadArguments(format!("\"{field}\" must be a string"))),
    }
}

/// A `prompt` call's arguments.
pub fn turn_request(args: &Map<String, Value>) -> Result<TurnRequest, BadArguments> {
    let prompt = optional_string(args, "prompt")?.filter(|p| !p.trim().is_empty());
    let prompt = prompt.ok_or_else(|| BadArguments("\"prompt\" must be a non-empty string".into()))?;
    if let Some(unknown) = args.keys().find(|key| !["prompt", "cwd", "session"].contains(&key.as_str())) {
        return Err(BadArguments(format!("unknown argument \"{unknown}\"")));
    }
    Ok(TurnRequest { prompt, cwd: optional_string(args, "cwd")?, session: optional_string(args, "session")? })
}

/// The word for how a turn ended.
fn stop(end: TurnEnd) -> &'static str {
    match end {
        TurnEnd::Done => "done",
        TurnEnd::Failed => "failed",
        TurnEnd::Interrupted => "cancelled",
    }
}

/// A turn's result: the reply, then the tool calls made, then the session id, as text;
/// the same as `structuredContent`.
pub fn turn_result(result: &TurnResult) -> (String, Value) {
    let mut text = match result.end {
        TurnEnd::Interrupted if result.reply.is_empty() => "(cancelled)".to_string(),
        _ => result.reply.clone(),
    };
    if !result.calls.is_empty() {
        text.push_str("\n\nTool calls:\n");
        for call in &result.calls {
            text.push_str(&format!("- {}\n", call.line()));
        }
    } else {
        text.push('\n');
    }
    text.push_str(&format!("\nsession: {}", result.session));
    let structured = json!({
        "reply": result.reply,
        "session": result.session,
        "stop": stop(result.end),
        "toolCalls": result.calls.iter().map(|call| call.to_value()).collect::<Vec<_>>(),
    });
    (text, structured)
}

/// The `sessions` call: the recorded sessions that worked inside the roots, newest first,
/// as text and as values (`open`: a session this server has open). Others' directories and
/// prompts are not the client's to see.
pub fn sessions(args: &Map<String, Value>, open: &[String], roots: &Roots) -> Result<(String, Value), BadArguments> {
    let limit = match args.get("limit") {
        None | Some(Value::Null) => SESSIONS_SHOWN,
        Some(value) => match value.as_u64() {
            Some(n) if (1..=SESSIONS_MAX as u64).contains(&n) => n as usize,
            _ => return Err(BadArguments(format!("\"limit\" must be an integer from 1 to {SESSIONS_MAX}"))),
        },
    };
    let listed = crate::sessions::Store::default_location().map(|store| store.list()).unwrap_or_default();
    let mut text = String::new();
    let mut values = Vec::new();
    for info in listed.iter().filter(|info| roots.allows(&info.cwd)).take(limit) {
        let prompt: String = crate::sanitize::sanitize(&info.first_prompt).chars().take(80).collect();
        let started = crate::dates::date_time(info.started);
        let id = crate::sanitize::sanitize_visible(&info.file.id);
        let cwd = crate::sanitize::sanitize_visible(&info.cwd);
        text.push_str(&format!("{id}  {started}  {} turns  {cwd}  {prompt}\n", info.turns));
        values.push(json!({
            "id": info.file.id,
            "cwd": info.cwd,
            "started": started,
            "turns": info.turns,
            "firstPrompt": info.first_prompt,
            "open": open.contains(&info.file.id),
        }));
    }
    if values.is_empty() {
        text.push_str("no recorded sessions\n");
    }
    Ok((text, json!({"sessions": values})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_prompt_call_needs_a_prompt_and_only_known_strings() {
        let request = turn_request(&args(json!({"prompt": "hi", "cwd": "sub", "session": null}))).unwrap();
        assert_eq!(request, TurnRequest { prompt: "hi".into(), cwd: Some("sub".into()), session: None });
        assert!(turn_request(&args(json!({"prompt": "  "}))).is_err());
        assert!(turn_request(&args(json!({"cwd": "x"}))).is_err());
        assert!(turn_request(&args(json!({"prompt": "hi", "cwd": 3}))).is_err());
        assert!(turn_request(&args(json!({"prompt": "hi", "yolo": true}))).is_err());
    }
}
