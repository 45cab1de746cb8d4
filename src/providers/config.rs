//! What the three network providers (anthropic, openai, ollama) are configured with alike,
//! written once: the server's base URL, the API key, the model and the HTTP options
//! (`Config`, whose `wire` part holds what only one provider has), read from each one's
//! environment variables (`EnvNames`), and the call they make with them (`Api`: the path,
//! the framing and the headers, the key's among them).

use super::frame::Framing;
use super::http::call::HttpCall;
use super::http::options::env_var;
use super::http::HttpOptions;
use super::secrets::{ApiKey, Endpoint};
use crate::protocol::{ProviderError, ProviderSettings};
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use std::ops::{Deref, DerefMut};

/// A network provider's configuration: what every one has, and its own settings (`wire`).
#[derive(Clone, Debug)]
pub struct Config<W> {
    /// Without the API's path, which the provider appends (`/v1/messages`, ...).
    pub base_url: Endpoint,
    /// Sent, when there is one, in the header the provider's `Api` names.
    pub api_key: Option<ApiKey>,
    pub model: String,
    pub http: HttpOptions,
    /// What only this provider has (thinking, caching, ...).
    pub wire: W,
}

/// The provider's own settings read as the config's fields (`config.thinking_budget`), as
/// startup and the tests set them.
impl<W> Deref for Config<W> {
    type Target = W;
    fn deref(&self) -> &W {
        &self.wire
    }
}

impl<W> DerefMut for Config<W> {
    fn deref_mut(&mut self) -> &mut W {
        &mut self.wire
    }
}

impl<W> Config<W> {
    /// `base_url` without its trailing `/`, the default HTTP options.
    pub(crate) fn with(base_url: &str, api_key: Option<&str>, model: &str, wire: W) -> Self {
        Config {
            base_url: Endpoint::new(base_url.trim_end_matches('/')),
            api_key: api_key.map(ApiKey::new),
            model: model.to_string(),
            http: HttpOptions::default(),
            wire,
        }
    }

    /// The models `/model` offers: `known`, with the configured one first when it is not
    /// among them.
    pub(crate) fn models(&self, known: &[&str]) -> Vec<String> {
        let mut models: Vec<String> = known.iter().map(|m| m.to_string()).collect();
        if !models.contains(&self.model) {
            models.insert(0, self.model.clone());
        }
        models
    }

    /// One call of `api` carrying `body`: JSON, the API's own headers, then the key.
    pub(crate) fn call(&self, api: &Api, client: &reqwest::Client, body: Vec<u8>) -> Result<HttpCall, ProviderError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in api.headers {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        if let (Some(key), Some((name, prefix))) = (&self.api_key, api.key_header) {
            headers.insert(name, key.header(prefix)?);
        }
        Ok(HttpCall {
            provider: api.name,
            client: client.clone(),
            url: format!("{}{}", self.base_url.as_str(), api.path),
            headers,
            body,
            framing: api.framing,
            options: self.http.clone(),
            key: self.api_key.clone(),
        })
    }
}

/// How a provider's model call is made.
pub(crate) struct Api {
    /// The provider's name, the prefix of its errors.
    pub name: &'static str,
    /// Appended to the base URL.
    pub path: &'static str,
    pub framing: Framing,
    /// Sent after the content type, before the key.
    pub headers: &'static [(&'static str, &'static str)],
    /// The header carrying the key, and what precedes the key in it.
    pub key_header: Option<(&'static str, &'static str)>,
}

/// A provider's environment variables.
pub(crate) struct EnvNames {
    pub key: Option<&'static str>,
    pub base_url: &'static str,
    pub model: &'static str,
}

/// What they hold (set and not blank); the model is `-m`, else the variable, else the default.
pub(crate) struct FromEnv {
    pub key: Option<String>,
    pub base_url: Option<String>,
    pub model: String,
}

impl EnvNames {
    pub(crate) fn read(&self, settings: &ProviderSettings, default_model: &str) -> FromEnv {
        FromEnv {
            key: self.key.and_then(env_var),
            base_url: env_var(self.base_url),
            model: settings.model.clone().or_else(|| env_var(self.model)).unwrap_or_else(|| default_model.into()),
        }
    }
}
