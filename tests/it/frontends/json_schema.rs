//! `elelem ask --json-schema` through the real binary: stdout is exactly the value of the
//! first reply that fits (a reply that does not is sent back with the validator's
//! complaint), a model that never fits ends non-zero naming the schema path with nothing
//! on stdout, an invalid schema is refused before any model call, and the providers with
//! structured output are sent the schema in their documented shape (OpenAI's
//! `response_format`, Anthropic's `output_config`, Ollama's `format`).

use crate::support::home::Home;
use crate::support::{collect, fast_http, Reply, Server};
use elelem::protocol::{Message, Provider, ReplySchema, Request, ToolSpec};
use serde_json::{json, Value};
use std::process::Output;
use std::sync::Arc;

/// A schema with an open object (so Anthropic is not sent it natively).
fn verdict_schema() -> Value {
    json!({"type": "object", "required": ["verdict", "count"],
           "properties": {"verdict": {"enum": ["ok", "bad"]}, "count": {"type": "integer"}}})
}

fn stub_replies(texts: &[&str]) -> Value {
    Value::Array(texts.iter().map(|t| json!({"events": [{"type": "saying", "text": t}]})).collect())
}

/// `elelem ask --json-schema SCHEMA ARGS…` on the stub answering `texts` in turn.
fn ask_stub(home: &Home, schema: &str, texts: &[&str], extra: &[&str]) -> Output {
    let script = home.script(stub_replies(texts));
    let mut args = vec!["ask", "--json-schema", schema];
    args.extend_from_slice(extra);
    args.push("how many files, and is it ok?");
    home.command(&args, &script).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

#[test]
fn stdout_is_exactly_the_value_of_the_first_reply_that_fits() {
    let home = Home::new();
    let schema = home.dir.path().join("verdict.json");
    std::fs::write(&schema, verdict_schema().to_string()).unwrap();
    let out = ask_stub(
        &home,
        schema.to_str().unwrap(),
        &[r#"{"verdict": "ok", "count": "three"}"#, "```json\n{\"verdict\": \"ok\",\n \"count\": 3}\n```"],
        &[],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(text(&out.stdout), "{\"verdict\":\"ok\",\"count\":3}\n");
    // The first reply's complaint was said on stderr, with where it broke the schema.
    assert!(stderr.contains("does not fit the JSON Schema"), "{stderr}");
    assert!(stderr.contains("/properties/count/type"), "{stderr}");
}

#[test]
fn a_model_that_never_fits_exits_non_zero_naming_the_schema_path_with_nothing_on_stdout() {
    let home = Home::new();
    let inline = verdict_schema().to_string();
    let out =
        ask_stub(&home, &inline, &["All fine, 3 files.", r#"{"verdict": "fine"}"#, r#"{"verdict": "maybe"}"#], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(text(&out.stdout), "");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.contains("schema") && last.contains("after 3 tries"), "{stderr}");
    assert!(last.contains("schema path /properties/verdict/enum"), "{last}");
    // With `--json` the events carry the error instead of a value.
    let out = ask_stub(&home, &inline, &["no", "no", "no"], &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let error = lines.last().unwrap();
    assert_eq!(error["type"], "error");
    assert!(error["message"].as_str().unwrap().contains("does not fit the JSON Schema"), "{error}");
    assert!(!lines.iter().any(|l| l["type"] == "json"));
}

#[test]
fn json_events_carry_the_value() {
    let home = Home::new();
    let out = ask_stub(&home, &verdict_schema().to_string(), &[r#"{"verdict":"bad","count":0}"#], &["--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.last().unwrap(), &json!({"type": "json", "value": {"verdict": "bad", "count": 0}}));
}

/// `ask --json-schema SCHEMA -p openai` against `server`.
async fn ask_openai(server: &Server, schema: &str) -> Output {
    let home = Home::new();
    crate::support::home::elelem(home.dir.path(), home.dir.path())
        .args(["ask", "--json-schema", schema, "-p", "openai", "how many?"])
        .env("XDG_DATA_HOME", home.dir.path().join("data"))
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url))
        .env("OPENAI_API_KEY", "sk-schema-test-0123456789")
        .env("ELELEM_RETRY_ATTEMPTS", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn openai_text(text: &str) -> Reply {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let chunks = [chunk(json!({"role": "assistant", "content": text}), None), chunk(json!({}), Some("stop"))];
    let body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    Reply::sse(&format!("{body}data: [DONE]\n\n"))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_schema_is_refused_without_a_model_call() {
    let server = Server::start(vec![openai_text("{}")]).await;
    for schema in [r#"{"type": "objekt"}"#, "{not json", "/nonexistent/schema.json", "3"] {
        let out = ask_openai(&server, schema).await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{schema}: {stderr}");
        assert!(stderr.contains("--json-schema"), "{stderr}");
        assert_eq!(text(&out.stdout), "");
    }
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_is_sent_the_schema_as_response_format_and_the_complaint_after_a_misfit() {
    let server =
        Server::start(vec![openai_text("three files, ok"), openai_text(r#"{"verdict":"ok","count":3}"#)]).await;
    let out = ask_openai(&server, &verdict_schema().to_string()).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "{\"verdict\":\"ok\",\"count\":3}\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let expected =
        json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": false, "schema": verdict_schema()}});
    for request in &requests {
        assert_eq!(request.body["response_format"], expected);
    }
    // The model is told the schema, and after the misfit, what was wrong.
    let first = requests[0].body["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(first.contains("JSON Schema") && first.contains("verdict"), "{first}");
    let second = requests[1].body["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(second.contains("not JSON"), "{second}");
}

fn closed_schema() -> Value {
    json!({"type": "object", "additionalProperties": false, "required": ["verdict"],
           "properties": {"verdict": {"type": "string"}}})
}

fn request_with(schema: Value) -> Request {
    Request {
        messages: vec![Message::system("SYSTEM"), Message::user("hi")],
        reply_schema: Some(Arc::new(ReplySchema::new(schema))),
        ..Request::default()
    }
}

#[tokio::test]
async fn anthropic_is_sent_a_closed_schema_as_output_config_and_an_open_one_not() {
    use elelem::providers::anthropic::{AnthropicConfig, AnthropicProvider};
    let server = Server::start(vec![Reply::anthropic_text("{}"), Reply::anthropic_text("{}")]).await;
    let mut config = AnthropicConfig::new(&server.url, "sk-ant-schema-0123456789", "claude-test");
    config.http = fast_http();
    let provider = AnthropicProvider::new(config).unwrap();
    let (_, error) = collect(provider.fetch(request_with(closed_schema()))).await;
    assert_eq!(error, None);
    let (_, error) = collect(provider.fetch(request_with(verdict_schema()))).await;
    assert_eq!(error, None);
    let requests = server.requests();
    assert_eq!(
        requests[0].body["output_config"],
        json!({"format": {"type": "json_schema", "schema": closed_schema()}})
    );
    assert_eq!(requests[1].body.get("output_config"), None);
}

/// Only to a call without tools: under `format` Ollama returns no tool calls, so a turn that
/// offers tools relies on the prompt and the check.
#[tokio::test]
async fn ollama_is_sent_the_schema_as_format_on_a_call_without_tools() {
    use elelem::providers::ollama::{OllamaConfig, OllamaProvider};
    let done = json!({"model": "llama-test", "created_at": "2025-01-01T00:00:01Z",
                      "message": {"role": "assistant", "content": "{}"}, "done": true, "done_reason": "stop"});
    let server = Server::start(vec![Reply::ndjson(&format!("{done}\n")), Reply::ndjson(&format!("{done}\n"))]).await;
    let mut config = OllamaConfig::new(&server.url, "llama-test");
    config.http = fast_http();
    let provider = OllamaProvider::new(config).unwrap();
    let (_, error) = collect(provider.fetch(request_with(verdict_schema()))).await;
    assert_eq!(error, None);
    let mut with_tools = request_with(verdict_schema());
    with_tools.tools = vec![ToolSpec {
        name: "read".into(),
        description: "read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }];
    let (_, error) = collect(provider.fetch(with_tools)).await;
    assert_eq!(error, None);
    let requests = server.requests();
    assert_eq!(requests[0].body["format"], verdict_schema());
    assert_eq!(requests[1].body.get("format"), None);
    assert!(requests[1].body.get("tools").is_some());
}

#[tokio::test]
async fn openai_is_sent_a_closed_schema_as_strict() {
    use elelem::providers::openai::{OpenAiConfig, OpenAiProvider};
    let server = Server::start(vec![openai_text("{}")]).await;
    let mut config = OpenAiConfig::new(&format!("{}/v1", server.url), Some("sk-schema-0123456789"), "gpt-test");
    config.http = fast_http();
    let provider = OpenAiProvider::new(config).unwrap();
    let (_, error) = collect(provider.fetch(request_with(closed_schema()))).await;
    assert_eq!(error, None);
    let sent = &server.requests()[0].body["response_format"];
    assert_eq!(
        sent,
        &json!({"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": closed_schema()}})
    );
}
