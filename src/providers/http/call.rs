//! One model call over HTTP (`HttpCall`): the client, URL, headers, body and framing the
//! driver sends and reads, and the redaction of its key and URL passwords from any text
//! it reports.

use super::options::HttpOptions;
use crate::protocol::ProviderError;
use crate::providers::frame::Framing;
use crate::providers::secrets::{self, ApiKey};
use reqwest::header::HeaderMap;

/// One model call over HTTP.
pub struct HttpCall {
    /// Prefix of every error message (`anthropic`, `openai`, `ollama`).
    pub provider: &'static str,
    pub client: reqwest::Client,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub framing: Framing,
    pub options: HttpOptions,
    /// Redacted from any error text.
    pub key: Option<ApiKey>,
}

impl HttpCall {
    /// `text` without the key or the user and password of any URL in it.
    pub fn redact(&self, text: &str) -> String {
        secrets::redact(text, self.key.as_ref())
    }

    /// `error` with its text redacted.
    pub fn redact_error(&self, error: ProviderError) -> ProviderError {
        secrets::redact_error(error, self.key.as_ref())
    }
}
