//! Tools as the model sees them: the `ToolSpec` sent with a request and the typed
//! `ToolResult` that comes back from the toolbox. A result is serialised to the seed's JSON
//! (`{"content":…,"ok":true}`, `ok` last) only where it is sent to a model.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool definition as sent to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The outcome of one tool call: success or failure, and the result's fields (`content`,
/// `path`, `error`…). A failure always carries an `error` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "Value", from = "Value")]
pub struct ToolResult {
    fields: Map<String, Value>,
    ok: bool,
}

impl ToolResult {
    /// A handler's value as a tool call's result is wrapped (ARCHITECTURE.md, "A tool call", step 6): an object with an `error` key failed,
    /// anything else succeeded; `null` is an empty success and any other value is `content`.
    pub fn from_value(value: Value) -> Self {
        let mut fields = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => Map::from_iter([("content".to_string(), other)]),
        };
        fields.remove("ok");
        let ok = !fields.contains_key("error");
        ToolResult { fields, ok }
    }

    /// `{"error": message, "ok": false}`.
    pub fn failure(message: impl Into<String>) -> Self {
        ToolResult { fields: Map::from_iter([("error".to_string(), Value::String(message.into()))]), ok: false }
    }

    pub fn is_ok(&self) -> bool {
        self.ok
    }

    /// The error message of a failure.
    pub fn error(&self) -> Option<&str> {
        self.fields.get("error").and_then(Value::as_str)
    }

    /// One field of the result (`content`, `path`, `exit_code`…).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// Every field but `ok`.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// The JSON object the model gets, `ok` last.
    pub fn to_value(&self) -> Value {
        let mut object = self.fields.clone();
        object.insert("ok".into(), Value::Bool(self.ok));
        Value::Object(object)
    }

    /// The JSON text the model gets.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

impl From<ToolResult> for Value {
    fn from(result: ToolResult) -> Value {
        let ToolResult { mut fields, ok } = result;
        fields.insert("ok".into(), Value::Bool(ok));
        Value::Object(fields)
    }
}

impl From<Value> for ToolResult {
    fn from(value: Value) -> Self {
        ToolResult::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ok_is_last_and_follows_the_error_key() {
        assert_eq!(
            ToolResult::from_value(json!({"content": "x", "ok": false})).to_json(),
            r#"{"content":"x","ok":true}"#
        );
        let failed = ToolResult::from_value(json!({"error": "no", "path": "a"}));
        assert!(!failed.is_ok());
        assert_eq!(failed.error(), Some("no"));
        assert_eq!(failed.to_json(), r#"{"error":"no","path":"a","ok":false}"#);
    }

    #[test]
    fn plain_values_become_content() {
        assert_eq!(ToolResult::from_value(json!("hi")).to_json(), r#"{"content":"hi","ok":true}"#);
        assert_eq!(ToolResult::from_value(Value::Null).to_json(), r#"{"ok":true}"#);
    }

    #[test]
    fn round_trips_through_serde() {
        let result = ToolResult::from_value(json!({"content": "x"}));
        let text = serde_json::to_string(&result).unwrap();
        assert_eq!(serde_json::from_str::<ToolResult>(&text).unwrap(), result);
    }
}
