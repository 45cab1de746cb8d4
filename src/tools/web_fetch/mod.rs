//! The `web_fetch` tool: one http or https URL fetched within bounds (30 s for fetching
//! and converting, 5 MB, five redirects on the same host) and returned as text the model
//! can read — HTML as Markdown, plain text and JSON as they are (`page.rs`, run off the
//! async runtime by `convert.rs`; deep HTML bounded by `nesting.rs` and `tree.rs`). Which
//! hosts may be fetched is the permission gate's (host rules, ask by default); that the
//! connection goes to a public address, unless the user named the host, is this tool's
//! (`address.rs`).

mod address;
mod convert;
mod elements;
mod html_scan;
mod nesting;
mod open_elements;
mod page;
mod tree;

use crate::agent::tool::host_of;
use crate::agent::{Tool, ToolContext};
use crate::paths;
use convert::{Unfinished, Until};
use reqwest::{StatusCode, Url};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Bytes of a response read at most.
pub const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// Characters of text returned at most (and the default of `max_chars`).
pub const MAX_CHARS: usize = 100_000;
/// Redirects followed on the same host.
pub const MAX_REDIRECTS: usize = 5;
/// The whole fetch, lookups, redirects and the conversion to text included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// One fetch's time: its deadline, and whether the page was read and is being converted.
struct Budget {
    until: Until,
    converting: AtomicBool,
}

pub fn tool() -> Tool {
    Tool::builtin(
        "web_fetch",
        "Fetch an http(s) URL: HTML as Markdown, text and JSON as they are, at most `max_chars` \
         (default 100000). A redirect to another host is named, not followed.",
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "max_chars": {"type": "integer", "minimum": 100}
            },
            "required": ["url"],
            "additionalProperties": false
        }),
        fetch,
    )
    .with_aliases(&["webfetch", "fetch", "fetch_url"])
    .reaches_urls("url")
}

async fn fetch(args: Value, ctx: ToolContext) -> anyhow::Result<Value> {
    let given = super::str_arg(&args, "url")?.trim().to_string();
    let max_chars = args["max_chars"].as_u64().map_or(MAX_CHARS, |n| (n as usize).clamp(100, MAX_CHARS));
    let deadline = Instant::now() + TIMEOUT;
    let budget = Budget { until: Until::deadline(deadline), converting: AtomicBool::new(false) };
    let work = fetch_within_bounds(&given, max_chars, &budget);
    let outcome = tokio::select! {
        outcome = tokio::time::timeout_at(deadline.into(), work) => outcome,
        _ = ctx.cancel.cancelled() => return Ok(json!({"error": "interrupted", "url": given})),
    };
    Ok(match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(message)) => json!({"error": message, "url": given}),
        Err(_) if budget.converting.load(Ordering::Relaxed) => json!({"error": page::time_up(), "url": given}),
        Err(_) => json!({"error": format!("the fetch took over {} s", TIMEOUT.as_secs()), "url": given}),
    })
}

/// The fetch, its redirects and the reading of the page.
async fn fetch_within_bounds(given: &str, max_chars: usize, budget: &Budget) -> Result<Value, String> {
    let mut url = Url::parse(given).map_err(|e| format!("not a URL ({e}): {given}"))?;
    let host = host_of(&url);
    let mut hops = 0;
    loop {
        check_scheme(&url)?;
        let response = request(&url).await?;
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers().get(reqwest::header::LOCATION).and_then(|l| l.to_str().ok());
            let Some(location) = location else { return Err(format!("{status} without a Location")) };
            let next = url.join(location).map_err(|e| format!("{status} to a bad Location {location:?}: {e}"))?;
            if host_of(&next) != host {
                return Ok(json!({
                    "content": format!(
                        "{url} redirects ({status}) to {next}, on another host; fetch that URL in a call of its \
                         own if it is what you want (it is checked like any other)."
                    ),
                    "url": url.as_str(),
                    "status": status.as_u16(),
                    "redirect": next.as_str(),
                }));
            }
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects"));
            }
            url = next;
            continue;
        }
        return read_page(url, status, response, max_chars, budget).await;
    }
}

fn check_scheme(url: &Url) -> Result<(), String> {
    match url.scheme() {
        "http" | "https" if url.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        "http" | "https" => Err(format!("{url} has no host")),
        other => Err(format!("web_fetch reads http and https URLs, not {other}:")),
    }
}

/// One GET, to the addresses checked here and no others.
async fn request(url: &Url) -> Result<reqwest::Response, String> {
    let host = url.host_str().unwrap_or_default().to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let addrs = address::resolve(&host, port).await?;
    let named = host_of(url);
    for addr in &addrs {
        if let Some(kind) = address::private_kind(addr.ip()) {
            if !address::user_allows_private(paths::home().as_deref(), &named) {
                return Err(format!(
                    "{named} is {kind} ({}); web_fetch reaches only public addresses unless you name the host in \
                     ~/.agents/permissions.json: {{\"web_fetch\": {{\"allow\": [\"{named}\"]}}}}",
                    addr.ip()
                ));
            }
        }
    }
    crate::tls::use_ring();
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .user_agent(concat!("elelem/", env!("CARGO_PKG_VERSION"), " (web_fetch)"));
    if host.parse::<std::net::IpAddr>().is_err() && !host.starts_with('[') {
        client = client.resolve_to_addrs(&host, &addrs);
    }
    let client = client.build().map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let accept = "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5";
    client
        .get(url.clone())
        .header(reqwest::header::ACCEPT, accept)
        .send()
        .await
        .map_err(|e| format!("cannot fetch {url}: {}", error_chain(&e)))
}

/// The body, read up to the limit, as text.
async fn read_page(
    url: Url,
    status: StatusCode,
    mut response: reqwest::Response,
    max_chars: usize,
    budget: &Budget,
) -> Result<Value, String> {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = Vec::new();
    let mut cut_bytes = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading {url}: {}", error_chain(&e)))? {
        let room = MAX_BODY_BYTES - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            cut_bytes = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    budget.converting.store(true, Ordering::Relaxed);
    let kind = content_type.clone();
    let rendered = match convert::off_thread(&budget.until, move |until| page::render(&kind, &body, until)).await {
        Ok(rendered) => rendered?,
        Err(Unfinished::TimeUp) => return Err(page::time_up()),
        Err(Unfinished::Failed(why)) => return Err(format!("cannot convert {url}: {why}")),
    };
    let text = rendered.text;
    let total_chars = text.chars().count();
    let mut content: String = text.chars().take(max_chars).collect();
    if total_chars > max_chars {
        content.push_str(&format!("\n\n[cut: {max_chars} of {total_chars} characters shown]"));
    }
    let mut result =
        json!({"content": content, "url": url.as_str(), "status": status.as_u16(), "content_type": content_type});
    let cut =
        cut_bytes.then(|| format!("only the first {} MB of the response was read", MAX_BODY_BYTES / (1024 * 1024)));
    let notes: Vec<String> = cut.into_iter().chain(rendered.note).collect();
    if !notes.is_empty() {
        result["note"] = json!(notes.join("; "));
    }
    if !status.is_success() {
        result["error"] = json!(format!("the server answered {status}"));
    }
    Ok(result)
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}
