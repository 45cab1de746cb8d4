//! Providers: the `Provider` trait every model backend implements, the events it streams,
//! and the `Providers` registry that builds one by name.
//!
//! A provider turns a list of messages and tool definitions into a stream of `saying`,
//! `thinking` and `doing` events. It knows nothing about the terminal or the toolbox.

pub mod anthropic;
pub mod http;
pub mod ndjson;
pub mod ollama;
pub mod openai;
pub mod retry;
pub mod sse;
pub mod stub;

use crate::agent::conversation::{Message, ToolCall};
use crate::agent::output::Usage;
use crate::agent::toolbox::ToolSpec;
use futures::stream::BoxStream;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// What one model call is asked.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// System prompt first, then the conversation, then this turn's tool traffic.
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
}

/// One streamed piece of a model's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ProviderEvent {
    /// Reply text.
    Saying(String),
    /// Reasoning text.
    Thinking(String),
    /// The signature closing the current thinking block (sent back to Anthropic).
    ThinkingSignature(String),
    /// A reasoning block the provider encrypted; its opaque data is sent back as is.
    RedactedThinking(String),
    /// A complete tool call.
    Doing(ToolCall),
    /// Token usage reported by the server.
    Usage(Usage),
    /// The call failed transiently and will be retried after `delay`.
    Retrying { attempt: u32, max: u32, delay: Duration, reason: String },
}

/// Why a model call failed.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum ProviderError {
    #[error("unknown provider: {name:?}. Available: {available}")]
    Unknown { name: String, available: String },
    #[error("provider {0} is not available yet")]
    NotAvailable(String),
    #[error("{0}")]
    Config(String),
    /// The server answered with an error status or an in-stream error.
    #[error("{0}")]
    Api(String),
    /// Connecting, reading or a timeout.
    #[error("{0}")]
    Network(String),
    /// The stream could not be understood.
    #[error("{0}")]
    Protocol(String),
    /// A scripted failure (stub).
    #[error("{0}")]
    Scripted(String),
}

pub type EventStream = BoxStream<'static, Result<ProviderEvent, ProviderError>>;

/// A model backend.
pub trait Provider: Send + Sync {
    /// The registry name (`anthropic`, `openai`, `ollama`, `stub`).
    fn name(&self) -> &str;
    /// The model this provider calls.
    fn model(&self) -> &str;
    /// Models worth offering in `/model`; the current one at least.
    fn models(&self) -> Vec<String> {
        vec![self.model().to_string()]
    }
    /// Streams the answer to one request. Dropping the stream cancels the call.
    fn fetch(&self, request: Request) -> EventStream;
}

/// What a provider is built with.
#[derive(Clone, Debug, Default)]
pub struct ProviderSettings {
    /// `-m/--model`, overriding the provider's environment variable.
    pub model: Option<String>,
    /// Extended-thinking budget in tokens, where the provider supports it.
    pub thinking_budget: Option<u32>,
}

/// How long startup waits for a local Ollama to answer when choosing the default provider.
const OLLAMA_PROBE_BUDGET: Duration = Duration::from_millis(300);

pub type ProviderFactory = Arc<dyn Fn(&ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> + Send + Sync>;

/// Providers by name.
#[derive(Clone, Default)]
pub struct Providers {
    factories: BTreeMap<String, ProviderFactory>,
}

impl Providers {
    /// The built-in providers. Loads the stub's script (`ELELEM_STUB_SCRIPT`) so a bad one is
    /// reported at startup.
    pub fn builtin() -> Result<Self, ProviderError> {
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

    pub fn register<F>(&mut self, name: &str, factory: F)
    where
        F: Fn(&ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> + Send + Sync + 'static,
    {
        self.factories.insert(name.to_string(), Arc::new(factory));
    }

    /// Names in alphabetical order.
    pub fn names(&self) -> Vec<&str> {
        self.factories.keys().map(String::as_str).collect()
    }

    pub fn build(&self, name: &str, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> {
        match self.factories.get(name) {
            Some(factory) => factory(settings),
            None => Err(ProviderError::Unknown { name: name.to_string(), available: self.names().join(", ") }),
        }
    }

    /// The provider to use when `-p` is not given: `anthropic` if `ANTHROPIC_API_KEY` is
    /// set, else `openai` if `OPENAI_API_KEY` is set, else `ollama` if one answers at
    /// `OLLAMA_HOST` within 300 ms, else `stub`.
    pub fn default_name(&self) -> String {
        let name = if http::env_var("ANTHROPIC_API_KEY").is_some() {
            "anthropic"
        } else if http::env_var("OPENAI_API_KEY").is_some() {
            "openai"
        } else if ollama::answers(
            &http::env_var("OLLAMA_HOST").unwrap_or_else(|| ollama::DEFAULT_HOST.into()),
            OLLAMA_PROBE_BUDGET,
        ) {
            "ollama"
        } else {
            "stub"
        };
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_provider_lists_the_available_ones() {
        let providers = Providers::builtin().unwrap();
        let err = providers.build("x", &ProviderSettings::default()).err().unwrap();
        assert_eq!(err.to_string(), "unknown provider: \"x\". Available: anthropic, ollama, openai, stub");
    }
}
