//! The JSON Schema a reply must fit (`ask --json-schema`), as a request carries it to a
//! provider: the schema, and whether it is strict enough for the providers whose structured
//! output only takes closed schemas (OpenAI's `strict`, Anthropic's `output_config`).

use serde_json::Value;

/// A reply's JSON Schema on its way to a provider.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplySchema {
    /// The schema as the user gave it.
    pub schema: Value,
    /// Every object in it closes its properties (`additionalProperties: false`) and requires
    /// all of them: the shape OpenAI's strict mode and Anthropic's structured outputs take.
    pub strict: bool,
}

impl ReplySchema {
    /// The name OpenAI's `response_format` gives the schema.
    pub const NAME: &'static str = "reply";

    pub fn new(schema: Value) -> ReplySchema {
        let strict = closed(&schema);
        ReplySchema { schema, strict }
    }
}

/// Whether every object schema in `schema` is closed and requires all its properties
/// (nested through `properties`, `items`, `anyOf` and `$defs`).
fn closed(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else { return true };
    let is_object = map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if is_object {
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> =
            map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let all_required = properties.is_none_or(|p| p.keys().all(|k| required.contains(&k.as_str())));
        if map.get("additionalProperties") != Some(&Value::Bool(false)) || !all_required {
            return false;
        }
    }
    let nested = |key: &str| -> Vec<&Value> {
        match map.get(key) {
            Some(Value::Object(children)) if key != "items" => children.values().collect(),
            Some(Value::Array(children)) => children.iter().collect(),
            Some(child) if key == "items" => vec![child],
            _ => Vec::new(),
        }
    };
    ["properties", "items", "anyOf", "$defs", "definitions"].iter().flat_map(|k| nested(k)).all(closed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_closed_schema_is_strict_and_an_open_one_is_not() {
        let closed = json!({"type": "object", "additionalProperties": false, "required": ["a", "b"],
            "properties": {"a": {"type": "string"}, "b": {"type": "array", "items":
                {"type": "object", "additionalProperties": false, "required": ["c"], "properties": {"c": {}}}}}});
        assert!(ReplySchema::new(closed.clone()).strict);
        let mut open = closed.clone();
        open["properties"]["b"]["items"]["additionalProperties"] = json!(true);
        assert!(!ReplySchema::new(open).strict);
        let mut optional = closed;
        optional["required"] = json!(["a"]);
        assert!(!ReplySchema::new(optional).strict);
        assert!(!ReplySchema::new(json!({"type": "object"})).strict);
        assert!(ReplySchema::new(json!({"type": "array", "items": {"type": "integer"}})).strict);
    }
}
