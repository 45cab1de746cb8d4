//! Listing a server's models (`Provider::list_models`): one GET of the API's list
//! (`Listing`: its path, where the array is, each entry's id), with the provider's headers
//! and key, bounded — `TIME_LIMIT` for the whole call, `MAX_BODY` bytes read, `MAX_MODELS`
//! entries kept — and each id cleaned (control characters dropped, `MAX_ID_CHARS` kept),
//! since the names come from the network. Errors are redacted like a model call's.

use super::config::{Api, Config};
use super::secrets::{redact, redact_error, ApiKey};
use crate::protocol::{ModelInfo, ProviderError};
use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT};
use serde_json::Value;
use std::time::Duration;

/// The whole call, connecting included.
pub(crate) const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Bytes of the answer read at most.
pub(crate) const MAX_BODY: usize = 4 << 20;
/// Entries kept at most.
pub(crate) const MAX_MODELS: usize = 1000;
/// Characters of an id kept at most.
pub(crate) const MAX_ID_CHARS: usize = 120;

/// Where an API lists its models.
pub(crate) struct Listing {
    /// Appended to the base URL.
    pub path: &'static str,
    /// JSON pointer to the array of models (`/data`, `/models`).
    pub array: &'static str,
    /// The key holding each entry's id (`id`, `name`).
    pub id: &'static str,
}

/// The models `config`'s server lists at `listing`, asked with `api`'s headers and key.
pub(crate) fn list<W>(
    config: &Config<W>,
    api: &Api,
    listing: &Listing,
) -> BoxFuture<'static, Result<Vec<ModelInfo>, ProviderError>> {
    let key = config.api_key.clone();
    let prepared = request(config, api, listing);
    let (array, id, name) = (listing.array, listing.id, api.name);
    Box::pin(async move {
        let (client, url, headers) = prepared?;
        let fetched = tokio::time::timeout(TIME_LIMIT, fetch(client, url, headers, name)).await;
        let body = match fetched {
            Ok(body) => body.map_err(|e| redact_error(e, key.as_ref()))?,
            Err(_) => {
                return Err(ProviderError::Network(format!(
                    "{name}: listing the models took over {}s",
                    TIME_LIMIT.as_secs()
                )))
            }
        };
        parse(&body, array, id).map_err(|e| ProviderError::Protocol(format!("{name}: {}", redact(&e, key.as_ref()))))
    })
}

type Prepared = Result<(reqwest::Client, String, HeaderMap), ProviderError>;

/// The client, URL and headers: the API's own, then the key.
fn request<W>(config: &Config<W>, api: &Api, listing: &Listing) -> Prepared {
    let client = config.http.client()?;
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    for (name, value) in api.headers {
        headers.insert(*name, HeaderValue::from_static(value));
    }
    if let (Some(key), Some((name, prefix))) = (&config.api_key, api.key_header) {
        headers.insert(name, ApiKey::header(key, prefix)?);
    }
    Ok((client, format!("{}{}", config.base_url.as_str(), listing.path), headers))
}

/// The answer's body, at most `MAX_BODY` bytes; an error status is an error with its text.
async fn fetch(client: reqwest::Client, url: String, headers: HeaderMap, name: &str) -> Result<Vec<u8>, ProviderError> {
    let network = |e: reqwest::Error| ProviderError::Network(format!("{name}: listing the models: {e}"));
    let mut response = client.get(&url).headers(headers).send().await.map_err(network)?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(network)? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(ProviderError::Protocol(format!("{name}: the list of models is over {} MB", MAX_BODY >> 20)));
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let text: String = String::from_utf8_lossy(&body).chars().filter(|c| !c.is_control()).take(300).collect();
        return Err(ProviderError::Api(format!("{name}: listing the models: HTTP {status}: {text}")));
    }
    Ok(body)
}

/// The entries of the array at `array`, each by its `id` key, cleaned and bounded.
fn parse(body: &[u8], array: &str, id: &str) -> Result<Vec<ModelInfo>, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| format!("the list of models is not JSON: {e}"))?;
    let entries =
        value.pointer(array).and_then(Value::as_array).ok_or_else(|| format!("no {array} array in the answer"))?;
    let mut models = Vec::new();
    for entry in entries.iter().take(MAX_MODELS) {
        let Some(name) = entry.get(id).and_then(Value::as_str).map(clean).filter(|n| !n.is_empty()) else { continue };
        let mut info = ModelInfo::named(name);
        // Some compatible servers say the window themselves.
        let stated = ["context_window", "context_length"].iter().find_map(|k| entry.get(*k).and_then(Value::as_u64));
        info.context_window = stated.or(info.context_window);
        models.push(info);
    }
    Ok(models)
}

/// An id from the network as shown: no control characters, at most `MAX_ID_CHARS`.
fn clean(id: &str) -> String {
    id.chars().filter(|c| !c.is_control()).take(MAX_ID_CHARS).collect::<String>().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_cleaned_bounded_and_given_known_windows() {
        let long = "m".repeat(500);
        let body = serde_json::json!({"data": [
            {"id": "claude-x\u{1b}[31m"}, {"id": ""}, {"nope": 1}, {"id": long}, {"id": "own", "context_length": 4096}
        ]});
        let models = parse(body.to_string().as_bytes(), "/data", "id").unwrap();
        assert_eq!(models[0].id, "claude-x[31m");
        assert_eq!(models[0].context_window, Some(200_000));
        assert_eq!(models[1].id.chars().count(), MAX_ID_CHARS);
        assert_eq!(models[2].context_window, Some(4096));
        assert_eq!(models.len(), 3);
        assert!(parse(b"[]", "/data", "id").is_err());
        assert!(parse(b"<html>", "/data", "id").is_err());
    }
}
