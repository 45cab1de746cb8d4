//! The text of what went wrong on the wire: an error with its causes (`chain`), or its
//! innermost cause alone (`root_cause`, for a connection that failed), an HTTP
//! status with whatever error body came (`status_error`, `error_detail`), and the start of a
//! body shown in one line (`snippet`, `truncate`).

use serde_json::Value;

/// An error and its causes, joined (reqwest's own message hides the interesting part).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The innermost cause of `error` (`Connection refused (os error 111)`, a name lookup's
/// failure, a certificate refused): what a failed connection says once the URL is named,
/// without reqwest's and hyper's layers repeating the URL.
pub(crate) fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// `provider: 401 authentication_error: invalid x-api-key`, from whatever error body the
/// server sent (Anthropic, OpenAI and Ollama shapes, or plain text).
pub(crate) fn status_error(provider: &str, status: u16, body: &str) -> String {
    let detail = serde_json::from_str::<Value>(body).ok().and_then(|v| error_detail(&v)).unwrap_or_else(|| {
        let text = body.trim();
        if text.is_empty() {
            reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("error")
                .to_lowercase()
        } else {
            truncate(text, 300)
        }
    });
    format!("{provider}: {status} {detail}")
}

/// `type: message` from `{"error": {...}}`, `{"error": "..."}` or `{"message": "..."}`.
pub(crate) fn error_detail(value: &Value) -> Option<String> {
    let error = value.get("error").unwrap_or(value);
    if let Some(text) = error.as_str() {
        return Some(text.to_string());
    }
    let message = error.get("message").and_then(Value::as_str);
    let kind = error.get("type").or_else(|| error.get("code")).and_then(Value::as_str).filter(|k| *k != "error");
    match (kind, message) {
        (Some(kind), Some(message)) => Some(format!("{kind}: {message}")),
        (None, Some(message)) => Some(message.to_string()),
        (Some(kind), None) => Some(kind.to_string()),
        (None, None) => None,
    }
}

/// `text` as one line of printable characters (controls and runs of whitespace become one
/// space), at most `max` characters: the start of a body that was not what it should be.
pub(crate) fn snippet(text: &str, max: usize) -> String {
    let mut line = String::new();
    for c in text.trim().chars() {
        let c = if c.is_control() || c.is_whitespace() { ' ' } else { c };
        if c == ' ' && line.ends_with(' ') {
            continue;
        }
        line.push(c);
    }
    truncate(&line, max)
}

/// At most `max` characters, with `…` when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_each_provider_read_well() {
        let anthropic = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        assert_eq!(status_error("anthropic", 401, anthropic), "anthropic: 401 authentication_error: invalid x-api-key");
        let openai = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            status_error("openai", 401, openai),
            "openai: 401 invalid_request_error: Incorrect API key provided"
        );
        assert_eq!(
            status_error("ollama", 404, r#"{"error":"model \"x\" not found"}"#),
            "ollama: 404 model \"x\" not found"
        );
        assert_eq!(status_error("openai", 502, ""), "openai: 502 bad gateway");
        assert_eq!(status_error("openai", 500, "oops"), "openai: 500 oops");
    }
}
