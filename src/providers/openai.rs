//! OpenAI Chat Completions (`-p openai`), and any OpenAI-compatible server by changing the
//! base URL: its `Api`, `EnvNames` and settings, and the request body (model, options,
//! function tools). The messages in Chat Completions shape are `openai/request.rs`; the SSE
//! chunk parser (content, `reasoning_content`/`reasoning`, tool calls assembled by index,
//! usage, `[DONE]`) is `openai/stream.rs`.

use super::answered::Answered;
use super::config::{Api, Config, EnvNames};
use super::driver;
use super::frame::Framing;
use super::http::options::env_var;
use super::http::HttpOptions;
use super::listing::{self, Listing};
use super::prompt_cache::{self, PromptCache};
use crate::protocol::ModelInfo;
use crate::protocol::{Effort, EventStream, Provider, ProviderError, ProviderSettings, ReplySchema, Request};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use stream::Parser;

mod request;
mod stream;

pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub(crate) const DEFAULT_MODEL: &str = "gpt-4.1";
const NAME: &str = "openai";

/// How `-p openai` calls the API.
const API: Api = Api {
    name: NAME,
    path: "/chat/completions",
    framing: Framing::Sse,
    headers: &[],
    key_header: Some(("authorization", "Bearer ")),
};
/// Where the API lists its models.
const LISTING: Listing = Listing { path: "/models", array: "/data", id: "id" };
const ENV: EnvNames = EnvNames { key: Some("OPENAI_API_KEY"), base_url: "OPENAI_BASE_URL", model: "OPENAI_MODEL" };

/// What only an OpenAI provider has.
#[derive(Clone, Debug, Default)]
pub struct OpenAiOptions {
    /// Sent as `prompt_cache_key`, so one run's requests meet the same prefix cache: to
    /// api.openai.com by default, to other servers only with `ELELEM_PROMPT_CACHE_KEY=on`
    /// (some reject fields they do not know); never with `ELELEM_CACHE_TTL=off`.
    pub cache_key: Option<String>,
    /// Sent as `reasoning_effort` (`--effort`); nothing when unset, so models that take no
    /// such field are not sent one.
    pub effort: Option<Effort>,
    /// Sends `web_search_options: {}` (`--web-search`): OpenAI's search models
    /// (`gpt-4o-search-preview`, …) then search the web before answering; other models
    /// reject the field, so it is off unless asked.
    pub web_search: bool,
}

/// Everything an OpenAI provider needs (`base_url` up to and including `/v1`; the key is
/// optional for compatible servers that need none); `from_env` is what `-p openai` uses.
pub type OpenAiConfig = Config<OpenAiOptions>;

impl OpenAiConfig {
    pub fn new(base_url: &str, api_key: Option<&str>, model: &str) -> Self {
        Config::with(base_url, api_key, model, OpenAiOptions::default())
    }

    /// The cache key this configuration should send, from the environment.
    pub(crate) fn cache_key_from_env(&self) -> Result<Option<String>, ProviderError> {
        let cache = PromptCache::from_env().map_err(ProviderError::Config)?;
        let asked = env_var("ELELEM_PROMPT_CACHE_KEY").is_some_and(|v| matches!(v.as_str(), "1" | "on" | "true"));
        let official = self.base_url.as_str().starts_with("https://api.openai.com/");
        Ok((cache != PromptCache::Off && (official || asked)).then(prompt_cache::run_key))
    }

    /// `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_MODEL` (`-m` wins). The key is required
    /// for api.openai.com only: a custom base URL may be a local server that needs none.
    pub(crate) fn from_env(settings: &ProviderSettings) -> Result<Self, ProviderError> {
        let env = ENV.read(settings, DEFAULT_MODEL);
        if env.key.is_none() && env.base_url.is_none() {
            return Err(ProviderError::Config(
                "openai: OPENAI_API_KEY is not set (or set OPENAI_BASE_URL for a compatible server)".into(),
            ));
        }
        let base = env.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL);
        let mut config = OpenAiConfig::new(base, env.key.as_deref(), &env.model);
        config.http = HttpOptions::from_env()?;
        config.wire.cache_key = config.cache_key_from_env()?;
        config.wire.effort = settings.effort;
        config.wire.web_search = settings.web_search;
        Ok(config)
    }
}

pub struct OpenAiProvider {
    config: OpenAiConfig,
    client: reqwest::Client,
    /// The model the server last said answered (a chunk's `model`).
    answered: Answered,
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let client = config.http.client()?;
        let answered = Answered::new(&config.model);
        Ok(OpenAiProvider { config, client, answered })
    }

    /// The JSON body for `request`.
    fn body(&self, request: &Request) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": request::messages(&request.messages),
        });
        if let Some(key) = &self.config.wire.cache_key {
            body["prompt_cache_key"] = json!(key);
        }
        if let Some(effort) = self.config.wire.effort {
            body["reasoning_effort"] = json!(effort.word());
        }
        if self.config.wire.web_search {
            body["web_search_options"] = json!({});
        }
        // Structured output: strict only when the schema is closed (strict mode refuses others).
        if let Some(reply) = &request.reply_schema {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": ReplySchema::NAME, "strict": reply.strict, "schema": reply.schema}});
        }
        if !request.tools.is_empty() {
            let tools: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters}})
                })
                .collect();
            body["tools"] = Value::Array(tools);
        }
        body
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        NAME
    }

    fn streams_ahead(&self) -> bool {
        true
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn models(&self) -> Vec<String> {
        self.config.models(&["gpt-4.1", "gpt-4.1-mini", "gpt-4o", "o4-mini"])
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
        listing::list(&self.config, &API, &LISTING)
    }

    fn fetch(&self, request: Request) -> EventStream {
        let body = self.body(&request).to_string().into_bytes();
        match self.config.call(&API, &self.client, body) {
            Ok(call) => {
                let answered = self.answered.clone();
                driver::stream(call, Box::new(move || Box::new(Parser::answering(answered.clone()))))
            }
            Err(e) => driver::failed(e),
        }
    }
}
