//! `ask --json-schema FILE|JSON`: the schema read and checked before any model call, the
//! model told it (and the provider given it, for structured output where the provider has
//! it: `Request::reply_schema`), each reply parsed and validated, and a reply that does not
//! fit sent back with the validator's complaint, at most `RETRIES` times.

use crate::agent::output::TurnEnd;
use crate::agent::Session;
use crate::agent::TurnOutcome;
use crate::protocol::ReplySchema;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// How often a reply that does not fit is sent back before `ask` gives up.
pub const RETRIES: usize = 2;
/// The largest schema file read.
const MAX_SCHEMA_BYTES: u64 = 1 << 20;
/// Complaints named in one message to the model (a wrong reply can break every rule).
const MAX_COMPLAINTS: usize = 8;

/// A checked JSON Schema and its validator.
pub struct Schema {
    reply: Arc<ReplySchema>,
    validator: jsonschema::Validator,
}

/// How a `--json-schema` run ended.
pub enum Shaped {
    /// A reply fit: its value.
    Fits(Value),
    /// No reply fit: the last complaint.
    Never(String),
    /// The turn failed or was interrupted (already shown as such).
    Ended(TurnEnd),
}

impl Schema {
    /// Reads `arg`: inline JSON when it starts as JSON does (`{`, `[`, `true`, `false`),
    /// else a file's path. Refused unless it is JSON and a valid JSON Schema.
    pub fn load(arg: &str) -> anyhow::Result<Schema> {
        let trimmed = arg.trim_start();
        let (text, from) = if trimmed.starts_with(['{', '[']) || matches!(trimmed.trim_end(), "true" | "false") {
            (arg.to_string(), "the inline schema".to_string())
        } else {
            (read_bounded(arg)?, format!("{arg:?}"))
        };
        let schema: Value =
            serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("--json-schema: {from} is not JSON: {e}"))?;
        Schema::new(schema).map_err(|e| anyhow::anyhow!("--json-schema: {from} is not a valid JSON Schema: {e}"))
    }

    /// A schema from its JSON; the error says why it is not a valid JSON Schema.
    pub fn new(schema: Value) -> Result<Schema, String> {
        if !schema.is_object() && !schema.is_boolean() {
            return Err("a schema is an object or a boolean".into());
        }
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            let at = e.instance_path().as_str();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })?;
        Ok(Schema { reply: Arc::new(ReplySchema::new(schema)), validator })
    }

    /// What the providers are given (`Request::reply_schema`).
    pub fn reply_schema(&self) -> Arc<ReplySchema> {
        self.reply.clone()
    }

    /// The prompt with the schema the reply must fit.
    pub fn prompt(&self, prompt: &str) -> String {
        let schema = serde_json::to_string_pretty(&self.reply.schema).unwrap_or_default();
        format!(
            "{prompt}\n\nEnd with a reply that is only one JSON value fitting this JSON Schema: no other text, \
             no code fence.\n\n{schema}"
        )
    }

    /// The value of `reply` when it fits, else the complaint: that it is not JSON, or
    /// each rule it breaks, with where in the reply and where in the schema.
    pub fn check(&self, reply: &str) -> Result<Value, String> {
        let text = unfenced(reply);
        let value: Value = serde_json::from_str(text).map_err(|e| format!("the reply is not JSON: {e}"))?;
        let complaints: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(MAX_COMPLAINTS)
            .map(|error| {
                let at = error.instance_path().as_str();
                let at = if at.is_empty() { "the root" } else { at };
                format!("at {at}: {error} (schema path {})", schema_path(error.schema_path().as_str()))
            })
            .collect();
        if complaints.is_empty() {
            Ok(value)
        } else {
            Err(complaints.join("; "))
        }
    }

    /// Runs the turn, then sends a reply that does not fit back with its complaint, up to
    /// `RETRIES` times.
    pub async fn run(&self, session: &mut Session, prompt: &str, cancel: CancellationToken) -> Shaped {
        session.set_reply_schema(Some(self.reply_schema()));
        let mut next = self.prompt(prompt);
        let mut tries = 0;
        loop {
            let TurnOutcome { reply, end } = session.turn(&next, cancel.clone()).await;
            if end != TurnEnd::Done {
                return Shaped::Ended(end);
            }
            let complaint = match self.check(&reply) {
                Ok(value) => return Shaped::Fits(value),
                Err(complaint) => complaint,
            };
            if tries == RETRIES {
                return Shaped::Never(complaint);
            }
            tries += 1;
            session.show(format!("the reply does not fit the JSON Schema ({complaint}); asking again"));
            next = format!(
                "Your reply does not fit the JSON Schema: {complaint}. Reply again with only the JSON value, \
                 fitting the schema."
            );
        }
    }
}

/// The reply without the code fence a model may put around it anyway.
fn unfenced(reply: &str) -> &str {
    let text = reply.trim();
    let Some(rest) = text.strip_prefix("```") else { return text };
    let Some(body) = rest.strip_suffix("```") else { return text };
    // The fence's info string (`json`) ends at the first line end.
    body.split_once('\n').map_or(body, |(_, inner)| inner).trim()
}

/// A schema path as a JSON Pointer (`/` for the root).
fn schema_path(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

/// A schema file's text, refused past `MAX_SCHEMA_BYTES`.
fn read_bounded(path: &str) -> anyhow::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| anyhow::anyhow!("--json-schema: cannot read {path:?}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_SCHEMA_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| anyhow::anyhow!("--json-schema: cannot read {path:?}: {e}"))?;
    anyhow::ensure!(text.len() as u64 <= MAX_SCHEMA_BYTES, "--json-schema: {path:?} is over {MAX_SCHEMA_BYTES} bytes");
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict() -> Schema {
        Schema::new(json!({"type": "object", "required": ["verdict", "count"], "properties": {
            "verdict": {"enum": ["ok", "bad"]}, "count": {"type": "integer"}}}))
        .unwrap()
    }

    #[test]
    fn a_fitting_reply_is_its_value_fenced_or_not() {
        let value = json!({"verdict": "ok", "count": 3});
        assert_eq!(verdict().check(r#" {"verdict":"ok","count":3} "#), Ok(value.clone()));
        assert_eq!(verdict().check("```json\n{\"verdict\": \"ok\", \"count\": 3}\n```"), Ok(value));
    }

    #[test]
    fn a_reply_that_does_not_fit_names_where_in_the_reply_and_in_the_schema() {
        let complaint = verdict().check(r#"{"verdict":"ok","count":"three"}"#).unwrap_err();
        assert!(complaint.contains("at /count"), "{complaint}");
        assert!(complaint.contains("schema path /properties/count/type"), "{complaint}");
        let complaint = verdict().check("All good, 3 of them.").unwrap_err();
        assert!(complaint.starts_with("the reply is not JSON"), "{complaint}");
        let complaint = verdict().check(r#"{"verdict":"ok"}"#).unwrap_err();
        assert!(complaint.contains("at the root") && complaint.contains("count"), "{complaint}");
    }

    #[test]
    fn an_invalid_schema_is_refused() {
        assert!(Schema::new(json!({"type": "objekt"})).is_err());
        assert!(Schema::new(json!({"minimum": "three"})).is_err());
        assert!(Schema::new(json!(3)).is_err());
        assert!(Schema::new(json!(true)).is_ok());
        assert!(Schema::load("{not json").err().unwrap().to_string().contains("not JSON"));
        assert!(Schema::load("/nonexistent/schema.json").err().unwrap().to_string().contains("cannot read"));
    }
}
