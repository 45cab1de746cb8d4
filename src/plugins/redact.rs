//! Redaction: a global after hook that replaces known secret values with `***` in every
//! string of a tool's result before it goes back to the model. The second line of defence
//! behind tool processes starting without secret-bearing variables; the secrets (the values
//! those variables had at startup) come from the composition root.

use crate::agent::{Plugin, Session};
use serde_json::Value;
use std::sync::Arc;

/// Values shorter than this are not redacted (they would hide ordinary text).
pub const MIN_SECRET_LEN: usize = 8;
/// What a secret becomes.
pub const MASK: &str = "***";

pub struct RedactPlugin {
    /// Longest first, so a secret that contains another is hidden whole.
    secrets: Arc<Vec<String>>,
}

impl RedactPlugin {
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| s.chars().count() >= MIN_SECRET_LEN).collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        secrets.dedup();
        RedactPlugin { secrets: Arc::new(secrets) }
    }
}

impl Plugin for RedactPlugin {
    fn name(&self) -> &str {
        "redact"
    }

    fn setup(&self, session: &mut Session) -> anyhow::Result<()> {
        if self.secrets.is_empty() {
            return Ok(());
        }
        let secrets = self.secrets.clone();
        session.toolbox_mut().after(None, move |_call, result| {
            let secrets = secrets.clone();
            async move { Ok(redact(result, &secrets)) }
        });
        Ok(())
    }
}

/// `value` with every secret in every string replaced by `MASK`.
pub fn redact(value: Value, secrets: &[String]) -> Value {
    match value {
        Value::String(text) => Value::String(redact_text(text, secrets)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| redact(v, secrets)).collect()),
        Value::Object(fields) => Value::Object(fields.into_iter().map(|(k, v)| (k, redact(v, secrets))).collect()),
        other => other,
    }
}

fn redact_text(mut text: String, secrets: &[String]) -> String {
    for secret in secrets {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), MASK);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_masked_in_every_string_and_short_values_are_left_alone() {
        let plugin = RedactPlugin::new(["sk-test-12345678".to_string(), "short".to_string()]);
        let result = json!({"content": "key=sk-test-12345678 short", "list": ["x sk-test-12345678"], "n": 3});
        assert_eq!(redact(result, &plugin.secrets), json!({"content": "key=*** short", "list": ["x ***"], "n": 3}));
    }

    #[test]
    fn a_secret_containing_another_is_masked_whole() {
        let plugin = RedactPlugin::new(["abcdefgh".to_string(), "abcdefgh-ijklmnop".to_string()]);
        assert_eq!(redact(json!("abcdefgh-ijklmnop"), &plugin.secrets), json!("***"));
    }
}
