//! Providers as the kernel sees them: the `Provider` trait every model backend implements,
//! the `Request` it is given, the `ProviderEvent`s it streams and the `ProviderError`s it
//! fails with, plus `Providers`, a registry of named provider factories.

use super::message::{Message, ToolCall};
use super::models::ModelInfo;
use super::tool::{ToolResult, ToolSpec};
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Tokens a provider reported for one model call. `input_tokens` counts every input token
/// of the request; `cache_read_tokens` and `cache_write_tokens` are the parts of it the
/// provider read from, or wrote to, its prompt cache (billed at other prices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Input tokens neither read from nor written to a cache.
    pub fn uncached_input(&self) -> u64 {
        self.input_tokens.saturating_sub(self.cache_read_tokens + self.cache_write_tokens)
    }

    /// The share of the input read from the prompt cache, in whole percent.
    pub fn cache_read_percent(&self) -> u64 {
        self.cache_read_tokens * 100 / self.input_tokens.max(1)
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// What one model call is asked.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// System prompt first, then the conversation, then this turn's tool traffic.
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    /// The JSON Schema the final reply must fit (`ask --json-schema`), which a provider with
    /// structured output passes on; `None` for a free reply.
    pub reply_schema: Option<Arc<super::reply_schema::ReplySchema>>,
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
    /// A tool the provider ran on its side (Anthropic's web search): shown as a tool row,
    /// nothing run here; `summary` is its one line (the query).
    ServerTool { call: ToolCall, summary: String, result: ToolResult },
    /// The call failed transiently and will be retried after `delay`.
    Retrying { attempt: u32, max: u32, delay: Duration, reason: String },
    /// The server says another model answered than the one asked for (a dated model for
    /// an alias, a proxy's substitute): its name, said once until it changes again.
    Model(String),
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
    /// The models the server offers, for `/models` and the model picker: asked over the
    /// network where the API lists them (bounded in time, size and count), else `models()`.
    fn list_models(&self) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
        let models = self.models().into_iter().map(ModelInfo::named).collect();
        Box::pin(futures::future::ready(Ok(models)))
    }
    /// Streams the answer to one request. Dropping the stream cancels the call.
    fn fetch(&self, request: Request) -> EventStream;
    /// Whether `fetch`'s events keep arriving while the stream is not polled (a network
    /// stream, buffered by the socket; the stub's schedule), so a consumer may leave it
    /// alone for a while and take what came in one go. A stream that only moves on while
    /// it is polled must say no (the default): it is then read as it comes.
    fn streams_ahead(&self) -> bool {
        false
    }
    /// Whether the model reads images (a `read` of a png then returns the image): by the
    /// model's name (`models::accepts_images`, `ELELEM_IMAGES` overrides).
    fn accepts_images(&self) -> bool {
        super::models::accepts_images(self.model())
    }
}

/// What a provider is built with.
#[derive(Clone, Debug, Default)]
pub struct ProviderSettings {
    /// `-m/--model`, overriding the provider's environment variable.
    pub model: Option<String>,
    /// Extended-thinking budget in tokens, where the provider supports it.
    pub thinking_budget: Option<u32>,
    /// How hard a reasoning model should think (`--effort`, `/effort`).
    pub effort: Option<Effort>,
    /// The provider's own web search (`--web-search`): Anthropic's server tool, OpenAI's
    /// `web_search_options`; off unless asked.
    pub web_search: bool,
}

/// How hard a reasoning model should think, which each provider maps to its own knob:
/// OpenAI's `reasoning_effort`, Anthropic's thinking budget, Ollama's `think`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    Low,
    Medium,
    High,
}

impl Effort {
    pub const WORDS: &'static str = "low, medium or high";

    pub fn parse(text: &str) -> Option<Effort> {
        match text.trim().to_ascii_lowercase().as_str() {
            "low" => Some(Effort::Low),
            "medium" => Some(Effort::Medium),
            "high" => Some(Effort::High),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

pub type ProviderFactory = Arc<dyn Fn(&ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> + Send + Sync>;
/// A decorator put around every provider a registry builds (`Providers::wrap_each`).
pub type ProviderWrap = Arc<dyn Fn(Arc<dyn Provider>) -> Arc<dyn Provider> + Send + Sync>;

/// Providers by name.
#[derive(Clone, Default)]
pub struct Providers {
    factories: BTreeMap<String, ProviderFactory>,
    /// The provider a plugin asked to be used when `-p` names none.
    preferred: Option<String>,
    /// Put around every provider `build` makes (the composition root's choice).
    wrap: Option<ProviderWrap>,
}

impl Providers {
    pub fn register<F>(&mut self, name: &str, factory: F)
    where
        F: Fn(&ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> + Send + Sync + 'static,
    {
        self.factories.insert(name.to_string(), Arc::new(factory));
    }

    /// Puts `wrap` around every provider `build` makes from now on, whoever registered it
    /// (a decorator the composition root chooses: `startup` paces a front end's streams).
    pub fn wrap_each(&mut self, wrap: impl Fn(Arc<dyn Provider>) -> Arc<dyn Provider> + Send + Sync + 'static) {
        self.wrap = Some(Arc::new(wrap));
    }

    /// Makes `name` the provider used when the command line names none.
    pub fn prefer(&mut self, name: &str) {
        self.preferred = Some(name.to_string());
    }

    /// The provider a plugin asked to be the default, if any.
    pub fn preferred(&self) -> Option<&str> {
        self.preferred.as_deref()
    }

    /// Names in alphabetical order.
    pub fn names(&self) -> Vec<&str> {
        self.factories.keys().map(String::as_str).collect()
    }

    /// Builds the provider `name`. This is the one way a provider is made (at start, by
    /// `/provider` and `/model`), so the model name is checked here, wherever it came from
    /// (`-m`, a `*_MODEL` variable, a plugin's declaration, a server's listing): one with
    /// control characters is refused (`model_name_error`), never printed or sent.
    pub fn build(&self, name: &str, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, ProviderError> {
        if let Some(error) = settings.model.as_deref().and_then(model_name_error) {
            return Err(error);
        }
        let provider = match self.factories.get(name) {
            Some(factory) => factory(settings)?,
            None => return Err(ProviderError::Unknown { name: name.to_string(), available: self.names().join(", ") }),
        };
        match (model_name_error(provider.model()), &self.wrap) {
            (Some(error), _) => Err(error),
            (None, Some(wrap)) => Ok(wrap(provider)),
            (None, None) => Ok(provider),
        }
    }
}

/// Why `model` cannot be a model's name: it holds control characters (C0, DEL, C1: a
/// terminal would act on them) or bidirectional controls (it would read as another name).
/// The error quotes the name with those characters escaped.
pub fn model_name_error(model: &str) -> Option<ProviderError> {
    let bidi =
        |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    model.chars().any(|c| c.is_control() || bidi(c)).then(|| {
        ProviderError::Config(format!("model name {model:?} has control characters; give the model's plain name"))
    })
}
