//! The `web_fetch` tool through the real binary (`ask --json`, a scripted model) against a
//! local HTTP server: a page comes back as Markdown without its scripts and styles, the
//! user's host rule lets it run unasked while a loopback address needs the host named in
//! the user's own file, a redirect to another host is reported rather than followed, a
//! binary response is refused by its type, and deep HTML (200,000 unclosed `<b><i>`,
//! 400,000 nested `<div>`) ends within the fetch's limit with its text and a note instead
//! of overflowing the stack or parsing for minutes (issue 37).

use crate::support::home::elelem;
use crate::support::{Reply, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

const PAGE: &str = r#"<!doctype html><html><head><title>Test page</title>
<style>body { color: STYLE-TEXT }</style><script>var x = "SCRIPT-TEXT";</script></head>
<body><nav>NAV-TEXT</nav><h1>Title</h1><p>Some <b>bold</b> words and <a href="https://docs.rs/">a link</a>.</p>
<pre><code>fn main() {}</code></pre></body></html>"#;

/// A temporary home with `~/.agents/permissions.json` holding `permissions`, and a project.
fn home_with(permissions: Value) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    std::fs::create_dir_all(home.join(".agents")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(home.join(".agents/permissions.json"), permissions.to_string()).unwrap();
    (root, home, project)
}

/// `ask --json` with a model that fetches `url` once, then says `done`.
fn fetch_through_the_binary(home: &Path, project: &Path, url: &str) -> (String, Output) {
    let script = home.join("script.json");
    let steps = json!([
        {"events": [{"type": "doing", "id": "f1", "name": "web_fetch", "arguments": {"url": url}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let out = elelem(project, home)
        .args(["ask", "--json", "-p", "stub", "read the page"])
        .env("XDG_DATA_HOME", home.join("data"))
        .env("ELELEM_STUB_SCRIPT", &script)
        .output()
        .unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), out)
}

/// The text of the `web_fetch` call's result in `ask --json` lines.
fn result_of(stdout: &str) -> Value {
    for line in stdout.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else { continue };
        let text = value.to_string();
        if text.contains("\"f1\"") && (text.contains("content") || text.contains("error")) && value["type"] != "doing" {
            return value;
        }
    }
    panic!("no result for the web_fetch call in:\n{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_page_comes_back_as_markdown_without_scripts_styles_or_navigation() {
    let server = Server::start(vec![Reply::stream("text/html; charset=utf-8", PAGE)]).await;
    let (_root, home, project) = home_with(json!({"web_fetch": {"allow": ["127.0.0.1"]}}));
    let (stdout, out) = fetch_through_the_binary(&home, &project, &format!("{}/docs/page.html", server.url));
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let result = result_of(&stdout).to_string();
    for wanted in ["# Title", "**bold**", "[a link](https://docs.rs/)", "fn main() {}"] {
        assert!(result.contains(wanted), "{wanted} missing from {result}");
    }
    for gone in ["SCRIPT-TEXT", "STYLE-TEXT", "NAV-TEXT", "<script", "<style"] {
        assert!(!result.contains(gone), "{gone} in {result}");
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!((requests[0].method.as_str(), requests[0].path.as_str()), ("GET", "/docs/page.html"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_rule_ask_mode_refuses_and_nothing_is_fetched() {
    let server = Server::start(vec![Reply::stream("text/html", PAGE)]).await;
    let (_root, home, project) = home_with(json!({}));
    let (stdout, _) = fetch_through_the_binary(&home, &project, &format!("{}/", server.url));
    assert!(result_of(&stdout).to_string().contains("needs approval"), "{stdout}");
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_host_needs_its_name_in_the_users_file_not_a_wildcard() {
    let server = Server::start(vec![Reply::stream("text/html", PAGE)]).await;
    let (_root, home, project) = home_with(json!({"web_fetch": {"allow": ["*"]}}));
    let (stdout, _) = fetch_through_the_binary(&home, &project, &format!("{}/", server.url));
    let result = result_of(&stdout).to_string();
    assert!(result.contains("is a loopback address"), "{result}");
    assert!(result.contains("\\\"allow\\\": [\\\"127.0.0.1:"), "says how to allow it: {result}");
    assert!(server.requests().is_empty(), "nothing reached the server");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_to_another_host_is_named_not_followed() {
    let elsewhere = Server::start(vec![Reply::stream("text/html", PAGE)]).await;
    let moved = Reply::status(302, "")
        .header("location", &format!("{}/landing", elsewhere.url.replace("127.0.0.1", "localhost")));
    let same_host = Reply::status(301, "").header("location", "/moved");
    let server = Server::start(vec![same_host, moved]).await;
    let (_root, home, project) = home_with(json!({"web_fetch": {"allow": ["127.0.0.1", "localhost"]}}));
    let (stdout, _) = fetch_through_the_binary(&home, &project, &format!("{}/start", server.url));
    let result = result_of(&stdout).to_string();
    assert!(result.contains("on another host"), "{result}");
    assert!(result.contains("/landing"), "{result}");
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/start", "/moved"], "the same-host redirect is followed");
    assert!(elsewhere.requests().is_empty(), "the other host is not fetched");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_binary_response_is_refused_by_its_type() {
    let server = Server::start(vec![Reply::stream("image/png", "\u{89}PNG\r\n\u{1a}\n")]).await;
    let (_root, home, project) = home_with(json!({"web_fetch": {"allow": ["127.0.0.1"]}}));
    let (stdout, _) = fetch_through_the_binary(&home, &project, &format!("{}/shot.png", server.url));
    assert!(result_of(&stdout).to_string().contains("image/png, not text"), "{stdout}");
}

/// `fetch_through_the_binary`, but the run is killed after `limit`: its stdout, whether it
/// exited successfully (`None` when killed), and how long it took.
fn fetch_within(home: &Path, project: &Path, url: &str, limit: Duration) -> (String, Option<bool>, Duration) {
    let script = home.join("script.json");
    let steps = json!([
        {"events": [{"type": "doing", "id": "f1", "name": "web_fetch", "arguments": {"url": url}}]},
        {"events": [{"type": "saying", "text": "done"}]}
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let stdout_path = home.join("stdout.txt");
    let started = Instant::now();
    let mut child = elelem(project, home)
        .args(["ask", "--json", "-p", "stub", "read the page"])
        .env("XDG_DATA_HOME", home.join("data"))
        .env("ELELEM_STUB_SCRIPT", &script)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let success = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status.success());
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (std::fs::read_to_string(&stdout_path).unwrap_or_default(), success, started.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn deep_html_ends_within_the_limit_with_its_text_and_a_note() {
    let unclosed = format!(
        "<!doctype html><html><head><title>Deep</title></head><body><p>BEFORE-THE-DEPTHS</p>{}UNCLOSED-TEXT</body></html>",
        "<b><i>".repeat(200_000)
    );
    let nested = format!(
        "<!doctype html><html><body><p>BEFORE-THE-DEPTHS</p>{}NESTED-TEXT{}<p>AFTER-THE-DEPTHS</p></body></html>",
        "<div>".repeat(400_000),
        "</div>".repeat(400_000)
    );
    for (page, text) in [(unclosed, "UNCLOSED-TEXT"), (nested, "NESTED-TEXT")] {
        // Served in 64 KiB pieces back to back (a page a few megabytes long).
        let chunks = page.as_bytes().chunks(64 * 1024).map(<[u8]>::to_vec).collect();
        let reply = Reply { chunks, burst: true, ..Reply::stream("text/html; charset=utf-8", "") };
        let server = Server::start(vec![reply]).await;
        let (_root, home, project) = home_with(json!({"web_fetch": {"allow": ["127.0.0.1"]}}));
        let url = format!("{}/deep.html", server.url);
        // Past the fetch's 30 s limit plus start-up, the run is stopped: a failure.
        let (stdout, success, took) = fetch_within(&home, &project, &url, Duration::from_secs(40));
        assert_eq!(success, Some(true), "elelem aborted or ran past the limit ({took:?}): {stdout}");
        assert!(took < Duration::from_secs(30), "{text}: {took:?}");
        let result = result_of(&stdout);
        let shown = result.to_string();
        assert!(shown.contains("BEFORE-THE-DEPTHS") && shown.contains(text), "{text} missing: {shown:.2000}");
        assert!(shown.contains("nests deeper than web_fetch reads"), "the result says so: {shown:.2000}");
        assert!(!shown.contains("\"error\""), "{shown:.2000}");
    }
}
