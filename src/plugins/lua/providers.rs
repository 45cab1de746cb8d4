//! Providers declared by plugin files: `elelem.provider{name, wire, base_url, key_env,
//! model}`. A declaration names one of the built-in wires; whoever composes the session
//! (`startup`) says how a wire is built, so this layer never names a provider module. The
//! provider built reports the declared name, so `/provider` and the status show `groq`,
//! not `openai`.

use crate::protocol::{EventStream, ModelInfo, Provider, ProviderError, ProviderSettings, Request};
use futures::future::BoxFuture;
use std::sync::Arc;

/// The protocols a declared provider can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
    Ollama,
}

impl Wire {
    pub const NAMES: &'static str = "openai, anthropic, ollama";

    pub fn parse(name: &str) -> Option<Wire> {
        match name {
            "openai" => Some(Wire::OpenAi),
            "anthropic" => Some(Wire::Anthropic),
            "ollama" => Some(Wire::Ollama),
            _ => None,
        }
    }
}

/// A named provider as a plugin declared it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub name: String,
    pub wire: Wire,
    /// The wire's default when absent.
    pub base_url: Option<String>,
    /// The environment variable holding the key (read when the provider is built, so the
    /// key never passes through Lua).
    pub key_env: Option<String>,
    /// The default model; `-m` wins.
    pub model: Option<String>,
    /// Used when `-p` names no provider (`default = true`).
    pub default: bool,
}

impl Endpoint {
    /// The key from `key_env`, if it names a variable that is set.
    pub fn key(&self) -> Option<String> {
        let name = self.key_env.as_deref()?;
        std::env::var(name).ok().filter(|k| !k.trim().is_empty())
    }

    /// `GROQ_API_KEY is not set` for wires that cannot do without a key.
    pub fn missing_key(&self) -> ProviderError {
        let var = self.key_env.as_deref().unwrap_or("key_env");
        ProviderError::Config(format!("{}: {var} is not set", self.name))
    }
}

/// Builds a provider for a declared endpoint on one of the built-in wires.
pub type Wires = Arc<dyn Fn(&Endpoint, &ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> + Send + Sync>;

/// A wire's provider under the declared name.
pub struct Renamed {
    pub name: String,
    pub inner: Arc<dyn Provider>,
}

impl Provider for Renamed {
    fn name(&self) -> &str {
        &self.name
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn models(&self) -> Vec<String> {
        self.inner.models()
    }
    /// The wire's own listing: the declared server's models.
    fn list_models(&self) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
    fn fetch(&self, request: Request) -> EventStream {
        self.inner.fetch(request)
    }
    fn streams_ahead(&self) -> bool {
        self.inner.streams_ahead()
    }
}
