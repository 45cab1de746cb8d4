//! How the network providers' HTTP client behaves: connect and idle timeouts and the retry
//! policy (`HttpOptions`, from `ELELEM_*` variables or set by tests), the client built from
//! them, and reading the environment (`env_var`).

use super::error_text::chain;
use crate::protocol::ProviderError;
use crate::providers::retry::RetryPolicy;
use std::time::Duration;

/// Timeouts and retries, from `ELELEM_*` environment variables or set directly by tests.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpOptions {
    pub connect_timeout: Duration,
    /// No byte for this long (waiting for the headers or inside the stream) ends the turn.
    pub idle_timeout: Duration,
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
        }
    }
}

impl HttpOptions {
    /// Reads `ELELEM_CONNECT_TIMEOUT_SECS`, `ELELEM_IDLE_TIMEOUT_SECS`, `ELELEM_RETRY_ATTEMPTS`,
    /// `ELELEM_RETRY_BASE_MS` and `ELELEM_RETRY_MAX_MS`; unset means the default.
    pub(crate) fn from_env() -> Result<Self, ProviderError> {
        let d = HttpOptions::default();
        Ok(HttpOptions {
            connect_timeout: env_number("ELELEM_CONNECT_TIMEOUT_SECS")?.map_or(d.connect_timeout, Duration::from_secs),
            idle_timeout: env_number("ELELEM_IDLE_TIMEOUT_SECS")?.map_or(d.idle_timeout, Duration::from_secs),
            retry: RetryPolicy {
                max_attempts: env_number("ELELEM_RETRY_ATTEMPTS")?
                    .map_or(d.retry.max_attempts, |n| n.clamp(1, 10) as u32),
                base_delay: env_number("ELELEM_RETRY_BASE_MS")?.map_or(d.retry.base_delay, Duration::from_millis),
                max_delay: env_number("ELELEM_RETRY_MAX_MS")?.map_or(d.retry.max_delay, Duration::from_millis),
            },
        })
    }

    /// A client with these timeouts (there is no overall timeout: replies can be long).
    pub(crate) fn client(&self) -> Result<reqwest::Client, ProviderError> {
        crate::tls::use_ring();
        reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .user_agent(concat!("elelem/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot build the HTTP client: {}", chain(&e))))
    }
}

/// A non-negative whole number from the environment.
fn env_number(name: &str) -> Result<Option<u64>, ProviderError> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| ProviderError::Config(format!("{name} must be a whole number, not {text:?}"))),
        _ => Ok(None),
    }
}

/// An environment variable that is set and not blank.
pub(crate) fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}
