//! OpenAI Chat Completions (`-p openai`), and any OpenAI-compatible server by changing the
//! base URL: the request body (messages, `tool_calls`, `tool` results, function tools) and
//! the SSE chunk parser (content, `reasoning_content`/`reasoning`, tool calls assembled by
//! index, usage, `[DONE]`).

use super::config::{Api, Config, EnvNames};
use super::driver;
use super::frame::{Frame, Framing};
use super::http::error_text::{error_detail, truncate};
use super::http::options::env_var;
use super::http::HttpOptions;
use super::listing::{self, Listing};
use super::parser::{self, Fault, WireParser};
use super::prompt_cache::{self, PromptCache};
use crate::protocol::ModelInfo;
use crate::protocol::{
    Effort, EventStream, Image, Message, Provider, ProviderError, ProviderEvent, ProviderSettings, Request, Role,
    ToolCall, Usage,
};
use futures::future::BoxFuture;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;

mod quick;

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
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let client = config.http.client()?;
        Ok(OpenAiProvider { config, client })
    }

    /// The JSON body for `request`.
    fn body(&self, request: &Request) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": messages(&request.messages),
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

/// The messages in Chat Completions shape. A tool message cannot hold an image there, so
/// the images of a step's tool results (`read` of a png) follow its tool messages as one
/// user message of `image_url` parts, each after a text part naming the call it answers.
fn messages(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    let mut from_tools: Vec<Value> = Vec::new();
    for item in messages {
        if item.role != Role::Tool && !from_tools.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(&mut from_tools)}));
        }
        if item.role == Role::Tool && item.images.iter().any(|i| i.data.is_some()) {
            let id = item.tool_call_id.as_deref().unwrap_or_default();
            from_tools.push(json!({"type": "text", "text": format!("The image the tool call {id} returned:")}));
            from_tools.extend(image_parts(&item.images));
        }
        out.push(message(item));
    }
    if !from_tools.is_empty() {
        out.push(json!({"role": "user", "content": from_tools}));
    }
    out
}

/// `image_url` parts with data URLs, for the images that were read.
fn image_parts(images: &[Image]) -> Vec<Value> {
    images
        .iter()
        .filter(|i| i.data.is_some())
        .map(|i| json!({"type": "image_url", "image_url": {"url": i.data_url()}}))
        .collect()
}

/// One message in Chat Completions shape.
fn message(message: &Message) -> Value {
    match message.role {
        Role::User if message.images.iter().any(|i| i.data.is_some()) => {
            let mut parts = vec![json!({"type": "text", "text": message.content})];
            parts.extend(image_parts(&message.images));
            json!({"role": "user", "content": parts})
        }
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": message.tool_call_id.clone().unwrap_or_default(),
            "content": message.text(),
        }),
        Role::Assistant if !message.tool_calls.is_empty() => {
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function",
                           "function": {"name": c.name, "arguments": c.arguments.to_string()}})
                })
                .collect();
            let content = if message.content.is_empty() { Value::Null } else { json!(message.content) };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        role => json!({"role": role.as_str(), "content": message.content}),
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
            Ok(call) => driver::stream(call, Box::new(|| Box::new(Parser::default()))),
            Err(e) => driver::failed(e),
        }
    }
}

/// A tool call being assembled from deltas.
#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// A chunk read without a JSON tree, borrowing its text where it has no escapes. Anything
/// this shape does not fit (tool calls, an error, odd types) goes the `Value` way.
#[derive(Deserialize, Debug, PartialEq)]
struct TextChunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<TextChoice<'a>>,
    usage: Option<ChunkUsage>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct TextChoice<'a> {
    finish_reason: Option<IgnoredAny>,
    #[serde(borrow)]
    delta: Option<TextDelta<'a>>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct TextDelta<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reasoning: Option<Cow<'a, str>>,
    tool_calls: Option<IgnoredAny>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct ChunkUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

/// `usage.prompt_tokens_details`: how much of the prompt came from OpenAI's prefix cache.
#[derive(Deserialize, Debug, PartialEq)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

impl TextChunk<'_> {
    /// No error and no tool calls: everything in it is read here.
    fn is_plain(&self) -> bool {
        self.error.is_none() && self.choices.iter().all(|c| c.delta.as_ref().is_none_or(|d| d.tool_calls.is_none()))
    }

    /// The same events, in the same order, as the `Value` way.
    fn emit(self, finished: &mut bool, out: &mut Vec<ProviderEvent>) {
        if let Some(usage) = self.usage {
            out.push(ProviderEvent::Usage(Usage {
                input_tokens: usage.prompt_tokens.unwrap_or(0),
                output_tokens: usage.completion_tokens.unwrap_or(0),
                cache_read_tokens: usage.prompt_tokens_details.and_then(|d| d.cached_tokens).unwrap_or(0),
                cache_write_tokens: 0,
            }));
        }
        for choice in self.choices {
            *finished |= choice.finish_reason.is_some();
            let Some(delta) = choice.delta else { continue };
            for text in [delta.reasoning_content, delta.reasoning].into_iter().flatten() {
                if !text.is_empty() {
                    out.push(ProviderEvent::Thinking(text.into_owned()));
                }
            }
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                out.push(ProviderEvent::Saying(text.into_owned()));
            }
        }
    }
}

/// The SSE chunk parser for one reply.
#[derive(Default)]
struct Parser {
    calls: BTreeMap<u64, PartialCall>,
    /// The last text chunk, for reading the next ones quickly.
    template: quick::Template,
    /// A completion chunk came (`[DONE]` alone is not a reply).
    chunks: bool,
    finished: bool,
    done: bool,
}

impl Parser {
    /// Emits the assembled tool calls, in index order.
    fn flush_calls(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), ProviderError> {
        for (index, call) in std::mem::take(&mut self.calls) {
            let id = if call.id.is_empty() { format!("call_{index}") } else { call.id };
            let arguments = parser::tool_arguments(NAME, &call.name, &id, &call.arguments)?;
            out.push(ProviderEvent::Doing(ToolCall { id, name: call.name, arguments }));
        }
        Ok(())
    }
}

impl WireParser for Parser {
    fn frame(&mut self, frame: Frame, out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        if frame.data.trim() == "[DONE]" {
            if !self.chunks {
                let error = "openai: the server ended the stream without any reply (only [DONE])";
                return Err(ProviderError::Protocol(error.into()).into());
            }
            self.flush_calls(out)?;
            self.done = true;
            return Ok(());
        }
        // Most chunks are the last one with other text: only that text is read.
        if let Some(said) = self.template.read(&frame.data) {
            self.chunks = true;
            out.extend(said.event());
            return Ok(());
        }
        // Most others are one text delta: read them without building a JSON tree.
        let chunk = self.template.learn(&frame.data).or_else(|| serde_json::from_str::<TextChunk>(&frame.data).ok());
        if let Some(chunk) = chunk {
            if chunk.is_plain() {
                self.chunks = true;
                chunk.emit(&mut self.finished, out);
                return Ok(());
            }
        }
        let data = parser::parse_json(NAME, &frame)?;
        self.chunks = true;
        if data.get("error").is_some_and(|e| !e.is_null()) {
            let detail = error_detail(&data).unwrap_or_else(|| truncate(&frame.data, 300));
            return Err(ProviderError::Api(format!("openai: {detail}")).into());
        }
        if let Some(usage) = data.get("usage").filter(|u| u.is_object()) {
            let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
            out.push(ProviderEvent::Usage(Usage {
                input_tokens: n("prompt_tokens"),
                output_tokens: n("completion_tokens"),
                cache_read_tokens: usage
                    .pointer("/prompt_tokens_details/cached_tokens")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
                cache_write_tokens: 0,
            }));
        }
        let choices = data.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for choice in choices {
            if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
                self.finished = true;
            }
            let Some(delta) = choice.get("delta") else { continue };
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(key).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    out.push(ProviderEvent::Thinking(text.to_string()));
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                out.push(ProviderEvent::Saying(text.to_string()));
            }
            for (position, call) in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate()
            {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(position as u64);
                let partial = self.calls.entry(index).or_default();
                let text = |pointer: &str| call.pointer(pointer).and_then(Value::as_str);
                if let Some(id) = text("/id") {
                    partial.id.push_str(id);
                }
                if let Some(name) = text("/function/name") {
                    partial.name.push_str(name);
                }
                match call.pointer("/function/arguments") {
                    Some(Value::String(piece)) => partial.arguments.push_str(piece),
                    Some(object @ Value::Object(_)) => partial.arguments = object.to_string(),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.done
    }

    /// Some compatible servers close after the last chunk without `[DONE]`: accept that
    /// when a `finish_reason` came, fail otherwise.
    fn finish(&mut self, out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        if self.finished {
            self.flush_calls(out)?;
            self.done = true;
            return Ok(());
        }
        Err(ProviderError::Protocol(
            "openai: the server closed the stream before the end of the reply (no finish_reason or [DONE])".into(),
        )
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_results_image_follows_the_steps_tool_messages_as_a_user_message() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";
        let image = Image::from_bytes("a.png", None, png).unwrap();
        let calls = [("r1", "read"), ("r2", "glob")].map(|(id, name)| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({}),
        });
        let mut assistant = Message::assistant("");
        assistant.tool_calls = calls.to_vec();
        let mut read = Message::tool_result(&calls[0], crate::protocol::ToolResult::from_value(json!("img")));
        read.images = vec![image.clone()];
        let glob = Message::tool_result(&calls[1], crate::protocol::ToolResult::from_value(json!("x")));
        let out = messages(&[Message::user("look"), assistant, read, glob]);
        let roles: Vec<&str> = out.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "user"]);
        assert_eq!(out[2]["content"], json!("{\"content\":\"img\",\"ok\":true}"));
        assert_eq!(
            out[4]["content"],
            json!([{"type": "text", "text": "The image the tool call r1 returned:"},
                   {"type": "image_url", "image_url": {"url": image.data_url()}}])
        );
    }

    #[test]
    fn assistant_tool_calls_carry_arguments_as_a_json_string() {
        let mut assistant = Message::assistant("");
        assistant.tool_calls =
            vec![ToolCall { id: "call_1".into(), name: "read".into(), arguments: json!({"path": "a"}) }];
        assert_eq!(
            message(&assistant),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]})
        );
    }

    fn events(frames: &[&str]) -> Vec<ProviderEvent> {
        let mut parser = Parser::default();
        let mut out = Vec::new();
        for (line, data) in frames.iter().enumerate() {
            let frame = Frame { event: None, data: data.to_string(), line };
            assert!(parser.frame(frame, &mut out).is_ok(), "{data}");
        }
        out
    }

    /// Text chunks read without a JSON tree give what the tree gives: escapes decoded,
    /// thinking, usage, the finish; tool calls and odd shapes still go the tree's way.
    #[test]
    fn text_chunks_read_directly_match_the_tree() {
        let out = events(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hm"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"a \"b\"\n\u00e9 plain"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":42},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read","arguments":"{\"path\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":5,"details":{}}}"#,
            "[DONE]",
        ]);
        assert_eq!(
            out,
            vec![
                ProviderEvent::Thinking("hm".into()),
                ProviderEvent::Saying("a \"b\"\né plain".into()),
                ProviderEvent::Usage(Usage { input_tokens: 3, output_tokens: 5, ..Default::default() }),
                ProviderEvent::Doing(ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    arguments: json!({"path": "a"})
                }),
            ]
        );
        let mut parser = Parser::default();
        let error = r#"{"error":{"message":"overloaded"}}"#;
        let frame = Frame { event: None, data: error.into(), line: 1 };
        assert!(parser.frame(frame, &mut Vec::new()).is_err(), "an error chunk is still an error");
    }
}
