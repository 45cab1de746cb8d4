//! Listing a provider's models (`Provider::list_models`) over real HTTP: each provider
//! against a local server answering its documented JSON (Anthropic and OpenAI `GET
//! /v1/models`, Ollama `GET /api/tags`), asserting the path and the headers sent; an error
//! status, a body that is not the list and hostile names; and through the real binary,
//! `/models` printing the list and `/model NAME` changing the model of the next request.

use crate::support::{fast_http, Reply, Server};
use elelem::protocol::Provider;
use elelem::providers::anthropic::{AnthropicConfig, AnthropicProvider};
use elelem::providers::ollama::{OllamaConfig, OllamaProvider};
use elelem::providers::openai::{OpenAiConfig, OpenAiProvider};
use serde_json::json;

const KEY: &str = "sk-test-key-0123456789";

fn json_reply(body: serde_json::Value) -> Reply {
    Reply::stream("application/json", &body.to_string())
}

fn openai(url: &str) -> OpenAiProvider {
    let mut config = OpenAiConfig::new(&format!("{url}/v1"), Some(KEY), "gpt-4o");
    config.http = fast_http();
    OpenAiProvider::new(config).unwrap()
}

#[tokio::test]
async fn anthropic_lists_v1_models_with_its_key_and_version_headers() {
    let server = Server::start(vec![json_reply(json!({
        "data": [
            {"type": "model", "id": "claude-sonnet-4-5-20250929", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"},
            {"type": "model", "id": "claude-haiku-4-5", "display_name": "Claude Haiku 4.5", "created_at": "2025-10-01T00:00:00Z"}
        ],
        "has_more": false, "first_id": "claude-sonnet-4-5-20250929", "last_id": "claude-haiku-4-5"
    }))])
    .await;
    let mut config = AnthropicConfig::new(&server.url, KEY, "claude-test");
    config.http = fast_http();
    let models = AnthropicProvider::new(config).unwrap().list_models().await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["claude-sonnet-4-5-20250929", "claude-haiku-4-5"]);
    assert_eq!(models[0].context_window, Some(200_000), "the known window");
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert!(request.path.starts_with("/v1/models"), "{}", request.path);
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn openai_lists_v1_models_with_a_bearer_key() {
    let server = Server::start(vec![json_reply(json!({
        "object": "list",
        "data": [
            {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
            {"id": "local-model", "object": "model", "created": 1, "owned_by": "me", "context_length": 32768}
        ]
    }))])
    .await;
    let models = openai(&server.url).list_models().await.unwrap();
    assert_eq!(models[0].id, "gpt-4o");
    assert_eq!(models[0].context_window, Some(128_000));
    assert_eq!(models[1].context_window, Some(32_768), "a window the server states");
    let request = &server.requests()[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("GET", "/v1/models"));
    assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
}

#[tokio::test]
async fn ollama_lists_api_tags() {
    let server = Server::start(vec![json_reply(json!({
        "models": [{
            "name": "llama3.2:latest", "model": "llama3.2:latest", "modified_at": "2025-05-04T17:37:44Z",
            "size": 2019393189u64, "digest": "a80c4f17acd5",
            "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B", "quantization_level": "Q4_K_M"}
        }]
    }))])
    .await;
    let mut config = OllamaConfig::new(&server.url, "llama-test");
    config.http = fast_http();
    let models = OllamaProvider::new(config).unwrap().list_models().await.unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].id, "llama3.2:latest");
    assert_eq!(models[0].context_window, Some(128_000));
    let request = &server.requests()[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("GET", "/api/tags"));
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn an_error_status_or_a_strange_body_is_a_clear_error_without_the_key() {
    let server = Server::start(vec![
        Reply::status(401, &format!(r#"{{"error":{{"message":"bad key {KEY}"}}}}"#)),
        json_reply(json!({"unexpected": true})),
        Reply::stream("text/html", "<html>gateway</html>"),
    ])
    .await;
    let provider = openai(&server.url);
    let unauthorized = provider.list_models().await.unwrap_err().to_string();
    assert!(unauthorized.contains("401") && !unauthorized.contains(KEY), "{unauthorized}");
    let no_list = provider.list_models().await.unwrap_err().to_string();
    assert!(no_list.contains("no /data array"), "{no_list}");
    let html = provider.list_models().await.unwrap_err().to_string();
    assert!(html.contains("not JSON"), "{html}");
}

#[tokio::test]
async fn hostile_names_lose_their_control_characters_and_the_list_is_bounded() {
    let mut data: Vec<_> = (0..3000).map(|i| json!({"id": format!("m{i}")})).collect();
    data[0] = json!({"id": "evil\u{1b}]0;title\u{7}\u{1b}[2J"});
    let server = Server::start(vec![json_reply(json!({"data": data})).burst(16 * 1024)]).await;
    let models = openai(&server.url).list_models().await.unwrap();
    assert!(!models[0].id.chars().any(char::is_control), "{:?}", models[0].id);
    assert!(models.len() < 3000, "bounded: {}", models.len());
}

/// Through the real binary: `/models` prints the list with what is known of each model,
/// and `/model NAME` makes the next request ask for that model.
#[tokio::test]
async fn slash_models_lists_and_slash_model_switches_the_next_request() {
    let sse = concat!(
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"REPLY-FROM-SECOND\"},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let server = Server::start(vec![
        json_reply(json!({"object": "list", "data": [{"id": "gpt-4o"}, {"id": "gpt-second"}]})),
        Reply::sse(sse),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_elelem"))
        .args(["chat", "--plain", "-p", "openai", "-m", "gpt-4o"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url))
        .env("OPENAI_API_KEY", KEY)
        .env("ELELEM_SANDBOX", "off")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncWriteExt;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"/models\n/model gpt-second\nhello\n").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Models of openai"), "{stdout}");
    assert!(stdout.contains("* gpt-4o") && stdout.contains("128k window"), "{stdout}");
    assert!(stdout.contains("$2.50 / $10.00 per M tokens"), "the price table's:\n{stdout}");
    assert!(stdout.contains("REPLY-FROM-SECOND"), "{stdout}");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/models");
    assert_eq!(requests[1].body["model"], "gpt-second", "the next request asks for the chosen model");
}
