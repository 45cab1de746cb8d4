//! The built-in providers (stub, anthropic, openai, ollama), their wire plumbing (HTTP
//! driver, SSE/NDJSON framing, retries) and the choice of a default. The trait and the
//! registry they fill live in `protocol`.
//!
//! A provider turns a list of messages and tool definitions into a stream of `saying`,
//! `thinking` and `doing` events. It knows nothing about the terminal or the toolbox.

mod answered;
pub mod anthropic;
mod config;
mod decoder;
mod driver;
pub mod frame;
pub mod http;
mod listing;
pub mod ndjson;
pub mod ollama;
pub mod openai;
mod parser;
pub mod prompt_cache;
pub mod retry;
mod secrets;
mod server_tools;
pub mod sse;
mod stub;
mod stub_script;

use crate::protocol::{ProviderError, Providers};
use std::sync::Arc;
use std::time::Duration;

/// How long startup waits for a local Ollama to answer when choosing the default provider.
const OLLAMA_PROBE_BUDGET: Duration = Duration::from_millis(300);

/// The built-in providers. Loads the stub's script (`ELELEM_STUB_SCRIPT`) so a bad one is
/// reported at startup.
pub fn builtin() -> Result<Providers, ProviderError> {
    let mut providers = Providers::default();
    let stub = stub::StubScript::from_env()?;
    providers.register("stub", move |settings| Ok(Arc::new(stub::StubProvider::new(stub.clone(), settings))));
    providers.register("anthropic", |settings| {
        Ok(Arc::new(anthropic::AnthropicProvider::new(anthropic::AnthropicConfig::from_env(settings)?)?))
    });
    providers.register("openai", |settings| {
        Ok(Arc::new(openai::OpenAiProvider::new(openai::OpenAiConfig::from_env(settings)?)?))
    });
    providers.register("ollama", |settings| {
        Ok(Arc::new(ollama::OllamaProvider::new(ollama::OllamaConfig::from_env(settings)?)?))
    });
    Ok(providers)
}

/// The provider to use when `-p` is not given: `anthropic` if `ANTHROPIC_API_KEY` is
/// set, else `openai` if `OPENAI_API_KEY` is set, else `ollama` if one answers at
/// `OLLAMA_HOST` within 300 ms, else `stub`.
pub(crate) fn default_name() -> String {
    let name = if http::options::env_var("ANTHROPIC_API_KEY").is_some() {
        "anthropic"
    } else if http::options::env_var("OPENAI_API_KEY").is_some() {
        "openai"
    } else if ollama::answers(
        &http::options::env_var("OLLAMA_HOST").unwrap_or_else(|| ollama::DEFAULT_HOST.into()),
        OLLAMA_PROBE_BUDGET,
    ) {
        "ollama"
    } else {
        "stub"
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProviderSettings;

    #[test]
    fn unknown_provider_lists_the_available_ones() {
        let providers = builtin().unwrap();
        let err = providers.build("x", &ProviderSettings::default()).err().unwrap();
        assert_eq!(err.to_string(), "unknown provider: \"x\". Available: anthropic, ollama, openai, stub");
    }
}
