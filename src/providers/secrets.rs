//! The secrets a provider holds and keeps out of what it prints: the `ApiKey` (its `Debug`
//! never shows it; the one header carrying it is marked sensitive), the `Endpoint` (a base
//! URL whose `Debug` hides its user and password), and the redaction of both from error
//! text (`https://user:pass@host` → `https://***@host`, the key → `***`).

use crate::protocol::ProviderError;
use reqwest::header::HeaderValue;
use std::fmt;

/// An API key. Its `Debug` never shows it, and nothing prints it.
#[derive(Clone, Default, PartialEq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// A header value marked sensitive (hyper keeps it out of its own debug output).
    pub fn header(&self, prefix: &str) -> Result<HeaderValue, ProviderError> {
        let mut value = HeaderValue::from_str(&format!("{prefix}{}", self.0))
            .map_err(|_| ProviderError::Config("the API key contains characters not allowed in a header".into()))?;
        value.set_sensitive(true);
        Ok(value)
    }

    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// `text` without the key or the user and password of any URL in it.
pub fn redact(text: &str, key: Option<&ApiKey>) -> String {
    let text = match key {
        Some(key) => key.redact(text),
        None => text.to_string(),
    };
    redact_userinfo(&text)
}

/// `error` with its text passed through `redact`.
pub fn redact_error(error: ProviderError, key: Option<&ApiKey>) -> ProviderError {
    let clean = |text: String| redact(&text, key);
    match error {
        ProviderError::Config(text) => ProviderError::Config(clean(text)),
        ProviderError::Api(text) => ProviderError::Api(clean(text)),
        ProviderError::Network(text) => ProviderError::Network(clean(text)),
        ProviderError::Protocol(text) => ProviderError::Protocol(clean(text)),
        ProviderError::Scripted(text) => ProviderError::Scripted(clean(text)),
        ProviderError::NotAvailable(text) => ProviderError::NotAvailable(clean(text)),
        unknown @ ProviderError::Unknown { .. } => unknown,
    }
}

/// Every `scheme://user:password@host` in `text` as `scheme://***@host`.
pub fn redact_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let start = at + 3;
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace()).unwrap_or(rest.len());
        if let Some(user_end) = rest[..end].rfind('@') {
            out.push_str("***");
            rest = &rest[user_end..];
        }
    }
    out.push_str(rest);
    out
}

/// A base URL. `Debug` hides its user and password; the request uses `as_str`.
#[derive(Clone, PartialEq)]
pub struct Endpoint(String);

impl Endpoint {
    pub fn new(url: impl Into<String>) -> Self {
        Endpoint(url.into())
    }
    /// The URL itself, for building the request.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_userinfo(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_password_of_every_url_are_hidden() {
        assert_eq!(
            redact_userinfo("cannot connect to http://me:s3cr@t@h:1/v1/x (see https://u@example.com?q)"),
            "cannot connect to http://***@h:1/v1/x (see https://***@example.com?q)"
        );
        assert_eq!(redact_userinfo("mail me@x at http://host/a@b"), "mail me@x at http://host/a@b");
        assert_eq!(redact_userinfo("no url: a://"), "no url: a://");
    }

    #[test]
    fn errors_lose_the_key_and_the_password() {
        let key = ApiKey::new("sk-0123456789");
        let error = ProviderError::Network("http://u:pw@h/ said sk-0123456789".into());
        assert_eq!(redact_error(error, Some(&key)).to_string(), "http://***@h/ said ***");
    }

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.redact("bad key sk-secret-123!"), "bad key ***!");
        assert!(key.header("Bearer ").unwrap().is_sensitive());
    }

    #[test]
    fn an_endpoint_debugs_without_its_password() {
        assert_eq!(format!("{:?}", Endpoint::new("https://u:pw@h/v1")), "\"https://***@h/v1\"");
    }
}
