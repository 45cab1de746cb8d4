//! Anthropic Messages API (`-p anthropic`): the request body (system, messages with
//! thinking / tool_use / tool_result blocks, tools, extended thinking) and the SSE event
//! parser (`message_start` … `message_stop`, in-stream `error`).

use super::answered::Answered;
use super::config::{Api, Config, EnvNames};
use super::driver;
use super::frame::{Frame, Framing};
use super::http::error_text::{error_detail, truncate};
use super::http::HttpOptions;
use super::listing::{self, Listing};
use super::parser::{self, Fault, WireParser};
use super::prompt_cache::{self, PromptCache};
use super::server_tools;
use crate::protocol::ModelInfo;
use crate::protocol::{
    Effort, EventStream, Image, Message, Provider, ProviderError, ProviderEvent, ProviderSettings, Request, Role,
    ToolCall, Usage,
};
use futures::future::BoxFuture;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub(crate) const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// `max_tokens` when thinking is off; with thinking it is the budget plus this.
const DEFAULT_MAX_TOKENS: u32 = 8192;
/// The smallest thinking budget the API accepts.
const MIN_THINKING_BUDGET: u32 = 1024;
const NAME: &str = "anthropic";

/// How `-p anthropic` calls the API.
const API: Api = Api {
    name: NAME,
    path: "/v1/messages",
    framing: Framing::Sse,
    headers: &[("anthropic-version", "2023-06-01")],
    key_header: Some(("x-api-key", "")),
};
/// Where the API lists its models.
const LISTING: Listing = Listing { path: "/v1/models?limit=1000", array: "/data", id: "id" };
const ENV: EnvNames =
    EnvNames { key: Some("ANTHROPIC_API_KEY"), base_url: "ANTHROPIC_BASE_URL", model: "ANTHROPIC_MODEL" };

/// What only an Anthropic provider has.
#[derive(Clone, Debug)]
pub struct AnthropicOptions {
    pub max_tokens: u32,
    pub thinking_budget: Option<u32>,
    /// `cache_control` breakpoints (`prompt_cache`), on by default.
    pub cache: PromptCache,
    /// Offer Anthropic's web search server tool (`--web-search`), run on Anthropic's side.
    pub web_search: bool,
}

/// Everything an Anthropic provider needs (`base_url` without `/v1/messages`); `from_env`
/// is what `-p anthropic` uses.
pub type AnthropicConfig = Config<AnthropicOptions>;

impl AnthropicConfig {
    pub fn new(base_url: &str, api_key: &str, model: &str) -> Self {
        let options = AnthropicOptions {
            max_tokens: DEFAULT_MAX_TOKENS,
            thinking_budget: None,
            cache: PromptCache::FiveMinutes,
            web_search: false,
        };
        Config::with(base_url, Some(api_key), model, options)
    }

    /// `ANTHROPIC_API_KEY` (required), `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL` (`-m` wins).
    pub(crate) fn from_env(settings: &ProviderSettings) -> Result<Self, ProviderError> {
        let env = ENV.read(settings, DEFAULT_MODEL);
        let key = env.key.ok_or_else(|| ProviderError::Config("anthropic: ANTHROPIC_API_KEY is not set".into()))?;
        let mut config = AnthropicConfig::new(env.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL), &key, &env.model);
        config.wire.thinking_budget = thinking_budget(settings);
        config.http = HttpOptions::from_env()?;
        config.wire.cache = PromptCache::from_env().map_err(ProviderError::Config)?;
        config.wire.web_search = settings.web_search;
        Ok(config)
    }
}

/// The thinking budget `settings` ask for: `--thinking N` as given, else one per effort.
pub fn thinking_budget(settings: &ProviderSettings) -> Option<u32> {
    settings.thinking_budget.or(settings.effort.map(|effort| match effort {
        Effort::Low => 2_048,
        Effort::Medium => 8_192,
        Effort::High => 24_576,
    }))
}

pub struct AnthropicProvider {
    config: AnthropicConfig,
    client: reqwest::Client,
    /// The model the server last said answered (`message_start`'s `model`).
    answered: Answered,
}

impl AnthropicProvider {
    pub fn new(config: AnthropicConfig) -> Result<Self, ProviderError> {
        let client = config.http.client()?;
        let answered = Answered::new(&config.model);
        Ok(AnthropicProvider { config, client, answered })
    }

    /// The JSON body for `request`.
    fn body(&self, request: &Request) -> Value {
        let system: Vec<&str> =
            request.messages.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
        let mut body = json!({
            "model": self.config.model,
            "max_tokens": self.config.wire.max_tokens,
            "stream": true,
        });
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        body["messages"] = Value::Array(messages(&request.messages));
        // The server tool first, so the cache breakpoint stays on the last of our own tools.
        let server_tools = self.config.wire.web_search.then(server_tools::web_search_tool);
        let tools: Vec<Value> = server_tools
            .into_iter()
            .chain(
                request
                    .tools
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})),
            )
            .collect();
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        if let Some(budget) = self.config.wire.thinking_budget.filter(|b| *b > 0) {
            let budget = budget.max(MIN_THINKING_BUDGET);
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
            body["max_tokens"] = json!(self.config.wire.max_tokens.max(budget.saturating_add(DEFAULT_MAX_TOKENS)));
        }
        // Structured outputs take only closed schemas; an open one is asked for in the prompt
        // and checked by the front end instead.
        if let Some(reply) = request.reply_schema.as_ref().filter(|r| r.strict) {
            body["output_config"] = json!({"format": {"type": "json_schema", "schema": reply.schema}});
        }
        prompt_cache::mark_anthropic(&mut body, self.config.wire.cache);
        body
    }
}

/// Translates messages: assistant tool calls become `thinking` + `text` + `tool_use` blocks,
/// and the tool results of one step become one user message of `tool_result` blocks.
fn messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    for message in messages {
        if message.role != Role::Tool && !results.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(&mut results)}));
        }
        match message.role {
            Role::System => {}
            Role::User if message.images.iter().any(|i| i.data.is_some()) => {
                let mut blocks = image_blocks(&message.images);
                blocks.push(json!({"type": "text", "text": message.content}));
                out.push(json!({"role": "user", "content": blocks}));
            }
            Role::User => out.push(json!({"role": "user", "content": message.content})),
            Role::Assistant if message.tool_calls.is_empty() => {
                if !message.content.is_empty() {
                    out.push(json!({"role": "assistant", "content": message.content}));
                }
            }
            Role::Assistant => {
                let mut blocks: Vec<Value> = message
                    .thinking
                    .iter()
                    .filter_map(|t| match (&t.redacted, &t.signature) {
                        (Some(data), _) => Some(json!({"type": "redacted_thinking", "data": data})),
                        (None, Some(signature)) => {
                            Some(json!({"type": "thinking", "thinking": t.text, "signature": signature}))
                        }
                        (None, None) => None,
                    })
                    .collect();
                if !message.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": message.content}));
                }
                blocks.extend(message.tool_calls.iter().map(
                    |c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": object_or_empty(&c.arguments)}),
                ));
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            Role::Tool => {
                let content = match message.images.iter().any(|i| i.data.is_some()) {
                    // A tool_result may hold image blocks after its text (`read` of an image).
                    true => {
                        let mut blocks = vec![json!({"type": "text", "text": message.text()})];
                        blocks.extend(image_blocks(&message.images));
                        Value::Array(blocks)
                    }
                    false => json!(message.text()),
                };
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id.clone().unwrap_or_default(),
                    "content": content,
                });
                if message.result.as_ref().is_some_and(|r| !r.is_ok()) {
                    block["is_error"] = json!(true);
                }
                results.push(block);
            }
        }
    }
    if !results.is_empty() {
        out.push(json!({"role": "user", "content": results}));
    }
    out
}

/// Anthropic's image blocks, base64 with the media type, for the images that were read.
fn image_blocks(images: &[Image]) -> Vec<Value> {
    images
        .iter()
        .filter(|i| i.data.is_some())
        .map(|i| json!({"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.base64()}}))
        .collect()
}

fn object_or_empty(value: &Value) -> Value {
    if value.is_object() {
        value.clone()
    } else {
        Value::Object(Map::new())
    }
}

impl Provider for AnthropicProvider {
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
        self.config.models(&["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"])
    }

    fn list_models(&self) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
        listing::list(&self.config, &API, &LISTING)
    }

    fn fetch(&self, request: Request) -> EventStream {
        let body = self.body(&request).to_string().into_bytes();
        match self.config.call(&API, &self.client, body) {
            Ok(call) => {
                let answered = self.answered.clone();
                driver::stream(
                    call,
                    Box::new(move || Box::new(Parser { answered: Some(answered.clone()), ..Parser::default() })),
                )
            }
            Err(e) => driver::failed(e),
        }
    }
}

/// A content block being streamed.
enum Block {
    Text,
    Thinking {
        signature: String,
    },
    Tool {
        id: String,
        name: String,
        json: String,
    },
    /// A tool Anthropic runs itself (`server_tool_use`), shown when its result comes.
    ServerTool {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

/// The SSE parser for one reply.
#[derive(Default)]
struct Parser {
    blocks: BTreeMap<u64, Block>,
    /// Server tool calls whose input is complete, waiting for their result block.
    server_calls: Vec<ToolCall>,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    usage_seen: bool,
    /// `message_start` came (a `message_stop` alone is not a reply).
    started: bool,
    done: bool,
    /// Where the model `message_start` names is noted.
    answered: Option<Answered>,
}

impl Parser {
    fn block(&mut self, data: &Value) -> Option<&mut Block> {
        let index = data.get("index").and_then(Value::as_u64)?;
        self.blocks.get_mut(&index)
    }

    fn usage(&mut self, usage: Option<&Value>) {
        let Some(usage) = usage else { return };
        let n = |key: &str| usage.get(key).and_then(Value::as_u64);
        let input = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]
            .iter()
            .filter_map(|k| n(k))
            .reduce(|a, b| a + b);
        if let Some(input) = input {
            self.input_tokens = input;
            self.cache_read_tokens = n("cache_read_input_tokens").unwrap_or(0);
            self.cache_write_tokens = n("cache_creation_input_tokens").unwrap_or(0);
            self.usage_seen = true;
        }
        if let Some(output) = n("output_tokens") {
            self.output_tokens = output;
            self.usage_seen = true;
        }
    }
}

fn protocol(frame: &Frame, what: &str) -> Fault {
    Fault::from(ProviderError::Protocol(format!(
        "anthropic: malformed stream at line {}: {what}: {}",
        frame.line,
        truncate(&frame.data, 120)
    )))
}

impl WireParser for Parser {
    fn frame(&mut self, frame: Frame, out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        let data = parser::parse_json(NAME, &frame)?;
        let kind = data.get("type").and_then(Value::as_str).or(frame.event.as_deref()).unwrap_or("");
        match kind {
            "message_start" => {
                self.started = true;
                if let (Some(answered), Some(model)) = (&self.answered, data.pointer("/message/model")) {
                    answered.note(model.as_str().unwrap_or_default(), out);
                }
                self.usage(data.pointer("/message/usage"))
            }
            "content_block_start" => {
                let index = data.get("index").and_then(Value::as_u64).ok_or_else(|| protocol(&frame, "no index"))?;
                let block = data.get("content_block").ok_or_else(|| protocol(&frame, "no content_block"))?;
                let text = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("").to_string();
                let block = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let initial = text("text");
                        if !initial.is_empty() {
                            out.push(ProviderEvent::Saying(initial));
                        }
                        Block::Text
                    }
                    Some("thinking") => {
                        let initial = text("thinking");
                        if !initial.is_empty() {
                            out.push(ProviderEvent::Thinking(initial));
                        }
                        Block::Thinking { signature: text("signature") }
                    }
                    Some("tool_use") => Block::Tool { id: text("id"), name: text("name"), json: String::new() },
                    Some("server_tool_use") => {
                        Block::ServerTool { id: text("id"), name: text("name"), json: String::new() }
                    }
                    Some(kind) if kind.ends_with("_tool_result") => {
                        let id = text("tool_use_id");
                        let at = self.server_calls.iter().position(|c| c.id == id);
                        let call = match at {
                            Some(at) => self.server_calls.remove(at),
                            None => ToolCall {
                                id,
                                name: kind.trim_end_matches("_tool_result").into(),
                                arguments: json!({}),
                            },
                        };
                        out.push(server_tools::finished(call, block));
                        Block::Other
                    }
                    Some("redacted_thinking") => {
                        out.push(ProviderEvent::RedactedThinking(text("data")));
                        Block::Other
                    }
                    _ => Block::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let delta = data.get("delta").ok_or_else(|| protocol(&frame, "no delta"))?;
                let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("").to_string();
                let delta_type = delta.get("type").and_then(Value::as_str).unwrap_or("");
                let block = self.block(&data).ok_or_else(|| protocol(&frame, "delta for a block never started"))?;
                match (delta_type, block) {
                    ("text_delta", _) => out.push(ProviderEvent::Saying(text("text"))),
                    ("thinking_delta", _) => out.push(ProviderEvent::Thinking(text("thinking"))),
                    ("signature_delta", Block::Thinking { signature }) => signature.push_str(&text("signature")),
                    ("input_json_delta", Block::Tool { json, .. } | Block::ServerTool { json, .. }) => {
                        json.push_str(&text("partial_json"))
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = data.get("index").and_then(Value::as_u64).ok_or_else(|| protocol(&frame, "no index"))?;
                match self.blocks.remove(&index) {
                    Some(Block::Thinking { signature }) if !signature.is_empty() => {
                        out.push(ProviderEvent::ThinkingSignature(signature))
                    }
                    Some(Block::Tool { id, name, json }) => {
                        let arguments = parser::tool_arguments(NAME, &name, &id, &json)?;
                        out.push(ProviderEvent::Doing(ToolCall { id, name, arguments }));
                    }
                    Some(Block::ServerTool { id, name, json }) => {
                        // Input that does not parse is still shown, never run: nothing fails.
                        let arguments = serde_json::from_str(&json).unwrap_or_else(|_| json!({}));
                        self.server_calls.push(ToolCall { id, name, arguments });
                    }
                    _ => {}
                }
            }
            "message_delta" => self.usage(data.get("usage")),
            "message_stop" if !self.started => {
                let error =
                    "anthropic: the server ended the stream without a message (message_stop before message_start)";
                return Err(ProviderError::Protocol(error.into()).into());
            }
            "message_stop" => {
                if self.usage_seen {
                    out.push(ProviderEvent::Usage(Usage {
                        input_tokens: self.input_tokens,
                        output_tokens: self.output_tokens,
                        cache_read_tokens: self.cache_read_tokens,
                        cache_write_tokens: self.cache_write_tokens,
                    }));
                }
                self.done = true;
            }
            "error" => {
                let detail = error_detail(&data).unwrap_or_else(|| truncate(&frame.data, 300));
                let kind = data.pointer("/error/type").and_then(Value::as_str).unwrap_or("");
                let retryable = matches!(kind, "overloaded_error" | "rate_limit_error" | "api_error");
                return Err(Fault { error: ProviderError::Api(format!("anthropic: {detail}")), retryable });
            }
            // `ping` and event types added after this was written.
            _ => {}
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        Err(Fault::from(ProviderError::Protocol(
            "anthropic: the server closed the stream before the end of the reply (no message_stop)".into(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ThinkingBlock, ToolResult};

    #[test]
    fn tool_results_of_one_step_share_one_user_message() {
        let call = |id: &str| ToolCall { id: id.into(), name: "read".into(), arguments: json!({"path": id}) };
        let mut assistant = Message::assistant("");
        assistant.thinking = vec![
            ThinkingBlock { text: "hmm".into(), signature: Some("sig".into()), redacted: None },
            ThinkingBlock { redacted: Some("EmwKAhgB".into()), ..Default::default() },
        ];
        assistant.tool_calls = vec![call("a"), call("b")];
        let list = vec![
            Message::system("S"),
            Message::user("hi"),
            assistant,
            Message::tool_result(&call("a"), ToolResult::from_value(Value::Null)),
            Message::tool_result(&call("b"), ToolResult::failure("x")),
        ];
        let got = Value::Array(messages(&list));
        assert_eq!(
            got,
            json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "EmwKAhgB"},
                    {"type": "tool_use", "id": "a", "name": "read", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "b", "name": "read", "input": {"path": "b"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "{\"ok\":true}"},
                    {"type": "tool_result", "tool_use_id": "b", "content": "{\"error\":\"x\",\"ok\":false}", "is_error": true}]}
            ])
        );
    }
}
