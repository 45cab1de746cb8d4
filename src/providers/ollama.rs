//! Ollama (`-p ollama`): `POST /api/chat` with an NDJSON stream (`message.content`,
//! `message.thinking`, `message.tool_calls` with object arguments, `done: true`), and the
//! quick "is one running?" probe used to pick the default provider.
//!
//! Thinking: Ollama has no budget, only on/off. `--thinking N` (any N > 0) sends
//! `think: true`; otherwise `think` is not sent and the model's own default applies.

use super::config::{Api, Config, EnvNames};
use super::driver;
use super::frame::{Frame, Framing};
use super::http::HttpOptions;
use super::listing::{self, Listing};
use super::parser::{self, Fault, WireParser};
use crate::protocol::ModelInfo;
use crate::protocol::{
    Effort, EventStream, Message, Provider, ProviderError, ProviderEvent, ProviderSettings, Request, Role, ToolCall,
    Usage,
};
use futures::future::BoxFuture;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

pub(crate) const DEFAULT_HOST: &str = "http://localhost:11434";
pub(crate) const DEFAULT_MODEL: &str = "llama3.2";
/// How long Ollama keeps the model loaded after a request.
const KEEP_ALIVE: &str = "30m";
const NAME: &str = "ollama";

/// How `-p ollama` calls the API.
const API: Api = Api { name: NAME, path: "/api/chat", framing: Framing::Ndjson, headers: &[], key_header: None };
/// Where the API lists its models.
const LISTING: Listing = Listing { path: "/api/tags", array: "/models", id: "name" };
const ENV: EnvNames = EnvNames { key: None, base_url: "OLLAMA_HOST", model: "OLLAMA_MODEL" };

/// What only an Ollama provider has.
#[derive(Clone, Debug, Default)]
pub struct OllamaOptions {
    /// Send `think: true`.
    pub think: bool,
    /// Send `think` as the effort's word (`"high"`), which Ollama takes in place of `true`.
    pub effort: Option<Effort>,
}

/// Everything an Ollama provider needs (`base_url` is `http://host:port`, without
/// `/api/chat`; there is no key); `from_env` is what `-p ollama` uses.
pub type OllamaConfig = Config<OllamaOptions>;

impl OllamaConfig {
    /// `host` as Ollama reads `OLLAMA_HOST` (`normalize_host`).
    pub fn new(host: &str, model: &str) -> Self {
        Config::with(&normalize_host(host), None, model, OllamaOptions::default())
    }

    /// `OLLAMA_HOST`, `OLLAMA_MODEL` (`-m` wins); `--thinking` turns `think` on.
    pub(crate) fn from_env(settings: &ProviderSettings) -> Result<Self, ProviderError> {
        let env = ENV.read(settings, DEFAULT_MODEL);
        let mut config = OllamaConfig::new(env.base_url.as_deref().unwrap_or(DEFAULT_HOST), &env.model);
        config.wire.think = settings.thinking_budget.is_some_and(|b| b > 0);
        config.wire.effort = settings.effort;
        config.http = HttpOptions::from_env()?;
        Ok(config)
    }
}

/// `OLLAMA_HOST` as Ollama itself reads it: `host`, `host:port` or a URL.
fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.contains("://") {
        return host.to_string();
    }
    let has_port = host.rsplit_once(':').is_some_and(|(_, port)| port.chars().all(|c| c.is_ascii_digit()));
    if has_port {
        format!("http://{host}")
    } else {
        format!("http://{host}:11434")
    }
}

/// Whether an Ollama server answers `GET /api/version` at `host` within `budget`. Blocking
/// and short: a refused connection returns at once.
pub(crate) fn answers(host: &str, budget: Duration) -> bool {
    let url = normalize_host(host);
    let Some(authority) = url.strip_prefix("http://") else { return false };
    let authority = authority.split('/').next().unwrap_or(authority);
    let deadline = Instant::now() + budget;
    let Ok(addrs) = authority.to_socket_addrs() else { return false };
    for addr in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        let Ok(mut stream) = TcpStream::connect_timeout(&addr, left) else { continue };
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        let _ = stream.set_read_timeout(Some(left));
        let _ = stream.set_write_timeout(Some(left));
        let request = format!("GET /api/version HTTP/1.0\r\nHost: {authority}\r\n\r\n");
        if stream.write_all(request.as_bytes()).is_err() {
            continue;
        }
        let mut head = [0u8; 12];
        let mut read = 0;
        while read < head.len() {
            match stream.read(&mut head[read..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => read += n,
            }
        }
        let head = String::from_utf8_lossy(&head[..read]);
        return head.starts_with("HTTP/1.") && head.ends_with(" 200");
    }
    false
}

pub struct OllamaProvider {
    config: OllamaConfig,
    client: reqwest::Client,
}

impl OllamaProvider {
    pub fn new(config: OllamaConfig) -> Result<Self, ProviderError> {
        let client = config.http.client()?;
        Ok(OllamaProvider { config, client })
    }

    /// The JSON body for `request`.
    fn body(&self, request: &Request) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "stream": true,
            "messages": request.messages.iter().map(message).collect::<Vec<_>>(),
            // The model, and its cache of the conversation's prefix, stays loaded between
            // turns (Ollama's own default unloads it after 5 minutes).
            "keep_alive": KEEP_ALIVE,
        });
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
        if let Some(effort) = self.config.wire.effort {
            body["think"] = json!(effort.word());
        } else if self.config.wire.think {
            body["think"] = json!(true);
        }
        // Structured output: Ollama constrains the answer to any JSON Schema given as `format`,
        // the whole answer, so that a model offered tools returns no tool calls: only a call
        // without tools gets it (the front end still checks the reply against the schema).
        if let Some(reply) = request.reply_schema.as_ref().filter(|_| request.tools.is_empty()) {
            body["format"] = reply.schema.clone();
        }
        body
    }
}

/// One message in Ollama's shape (tool-call arguments stay objects).
fn message(message: &Message) -> Value {
    let mut out = json!({"role": message.role.as_str(), "content": message.text()});
    // Ollama takes a message's images as bare base64 strings (a user's `@shot.png`, or a
    // `read` of an image on the tool message).
    let images: Vec<&str> = message.images.iter().filter(|i| i.data.is_some()).map(|i| i.base64()).collect();
    if !images.is_empty() {
        out["images"] = json!(images);
    }
    match message.role {
        Role::Assistant if !message.tool_calls.is_empty() => {
            let thinking: String = message.thinking.iter().map(|t| t.text.as_str()).collect();
            if !thinking.is_empty() {
                out["thinking"] = json!(thinking);
            }
            let calls: Vec<Value> = message
                .tool_calls
                .iter()
                .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                .collect();
            out["tool_calls"] = Value::Array(calls);
        }
        Role::Tool => {
            if let Some(name) = &message.name {
                out["tool_name"] = json!(name);
            }
        }
        _ => {}
    }
    out
}

impl Provider for OllamaProvider {
    fn name(&self) -> &str {
        NAME
    }

    fn streams_ahead(&self) -> bool {
        true
    }

    fn model(&self) -> &str {
        &self.config.model
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

/// The NDJSON parser for one reply.
#[derive(Default)]
struct Parser {
    calls: usize,
    done: bool,
}

impl WireParser for Parser {
    fn frame(&mut self, frame: Frame, out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        let data = parser::parse_json(NAME, &frame)?;
        if let Some(error) = data.get("error") {
            let detail = error.as_str().map(str::to_string).unwrap_or_else(|| error.to_string());
            return Err(ProviderError::Api(format!("ollama: {detail}")).into());
        }
        let text = |pointer: &str| data.pointer(pointer).and_then(Value::as_str).filter(|t| !t.is_empty());
        // `thinking` is Ollama's field; `reasoning_content` is what some compatible servers
        // (and the aimock test double) send instead.
        if let Some(thinking) = text("/message/thinking").or_else(|| text("/message/reasoning_content")) {
            out.push(ProviderEvent::Thinking(thinking.to_string()));
        }
        if let Some(content) = text("/message/content") {
            out.push(ProviderEvent::Saying(content.to_string()));
        }
        for call in data.pointer("/message/tool_calls").and_then(Value::as_array).into_iter().flatten() {
            self.calls += 1;
            let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or("").to_string();
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("ollama_call_{}", self.calls));
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => parser::tool_arguments(NAME, &name, &id, text)?,
                Some(value @ Value::Object(_)) => value.clone(),
                None | Some(Value::Null) => json!({}),
                Some(other) => {
                    return Err(ProviderError::Protocol(format!(
                        "ollama: the arguments of tool call {name} ({id}) are not an object: {other}"
                    ))
                    .into())
                }
            };
            out.push(ProviderEvent::Doing(ToolCall { id, name, arguments }));
        }
        if data.get("done").and_then(Value::as_bool) == Some(true) {
            let n = |key: &str| data.get(key).and_then(Value::as_u64);
            if let (Some(input), Some(output)) = (n("prompt_eval_count"), n("eval_count")) {
                out.push(ProviderEvent::Usage(Usage {
                    input_tokens: input,
                    output_tokens: output,
                    ..Default::default()
                }));
            }
            self.done = true;
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.done
    }

    fn finish(&mut self, _out: &mut Vec<ProviderEvent>) -> Result<(), Fault> {
        Err(ProviderError::Protocol(
            "ollama: the server closed the stream before the end of the reply (no done: true)".into(),
        )
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_like_ollama_reads_them() {
        assert_eq!(normalize_host("localhost"), "http://localhost:11434");
        assert_eq!(normalize_host("0.0.0.0:8080"), "http://0.0.0.0:8080");
        assert_eq!(normalize_host("https://o.example/"), "https://o.example");
    }

    #[test]
    fn a_closed_port_is_not_an_ollama() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        assert!(!answers(&addr.to_string(), Duration::from_millis(300)));
    }
}
