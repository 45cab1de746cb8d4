//! The OpenAI stream's parser: each SSE chunk read into events (content,
//! `reasoning_content`/`reasoning`, usage, errors), tool calls assembled by index and
//! emitted in order, `[DONE]`. Text chunks are read without a JSON tree where they can be
//! (`TextChunk`, and before serde `quick.rs`).

mod quick;

use super::NAME;
use crate::protocol::{ProviderError, ProviderEvent, ToolCall, Usage};
use crate::providers::answered::Answered;
use crate::providers::frame::Frame;
use crate::providers::http::error_text::{error_detail, truncate};
use crate::providers::parser::{self, Fault, WireParser};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

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
pub(super) struct Parser {
    calls: BTreeMap<u64, PartialCall>,
    /// The last text chunk, for reading the next ones quickly.
    template: quick::Template,
    /// A completion chunk came (`[DONE]` alone is not a reply).
    chunks: bool,
    finished: bool,
    done: bool,
    /// Where the model the first chunk names is noted (read once per reply).
    answered: Option<Answered>,
}

impl Parser {
    /// A parser for one reply that notes the model it names in `answered`.
    pub(super) fn answering(answered: Answered) -> Self {
        Parser { answered: Some(answered), ..Parser::default() }
    }

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
        // The first chunk names the model that answers.
        if let Some(answered) = self.answered.take() {
            #[derive(serde::Deserialize)]
            struct Named {
                model: Option<String>,
            }
            if let Ok(Named { model: Some(model) }) = serde_json::from_str::<Named>(&frame.data) {
                answered.note(&model, out);
            }
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
    use serde_json::json;

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
