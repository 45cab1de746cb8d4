//! Images through the real binary (issue 31 point 4): `@shot.png` in a prompt sends the
//! image to each provider in its own request format (Anthropic's base64 `image` block,
//! OpenAI's `image_url` data URL, Ollama's `images`), an image past 5 MB is refused with a
//! clear message and nothing is sent, a FIFO named like an image is refused without
//! blocking, a resumed session reads the file again (or says it is gone and sends a note),
//! and `read` of a png gives the model the image.

use crate::providers::model_server::{self, ModelServer};
use crate::support::home::Home;
use crate::support::{Reply, Server};
use base64::Engine as _;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// A 2×3 PNG header followed by some bytes (enough for the sniffing and the size).
fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03\x08\x06\0\0\0".to_vec();
    bytes.extend((0..200u32).map(|i| (i * 7) as u8));
    bytes
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub fn anthropic_reply() -> Reply {
    Reply::anthropic_text("a cat")
}

/// `elelem ARGS` in `dir` (also the home) with `env`; stdout, stderr and success.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: &str) -> (String, String, bool) {
    let mut command = crate::support::home::elelem(dir, dir);
    command.args(args).env("XDG_DATA_HOME", dir.join("data")).env("ELELEM_RETRY_ATTEMPTS", "1");
    command.env_remove("ELELEM_WEB_SEARCH").env_remove("ELELEM_IMAGES").envs(env.iter().copied());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr), out.status.success())
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_gets_an_image_block_with_its_media_type_and_base64() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.png"), png()).unwrap();
    let server = Server::start(vec![anthropic_reply()]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let (stdout, stderr, ok) = run(dir.path(), &["ask", "-p", "anthropic", "what is in @shot.png ?"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("a cat"), "{stdout}");
    let body = &server.requests()[0].body;
    let content = &body["messages"][0]["content"];
    assert_eq!(
        content[0],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(&png())}})
    );
    assert_eq!(content[1]["type"], "text");
    let text = content[1]["text"].as_str().unwrap();
    assert!(text.starts_with("what is in @shot.png ?") && text.ends_with("[image shot.png 229 B]"), "{text}");
    // The cache breakpoint still lands on the end of the newest message.
    assert!(content[1].get("cache_control").is_some(), "{content}");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_gets_a_data_url_and_ollama_bare_base64() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shot.png"), png()).unwrap();
    let reply = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":null}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let server = Server::start(vec![Reply::sse(reply)]).await;
    let base = format!("{}/v1", server.url);
    let env = [("OPENAI_BASE_URL", base.as_str()), ("OPENAI_API_KEY", "sk-test-0123456789")];
    let (stdout, stderr, ok) = run(dir.path(), &["ask", "-p", "openai", "what is in @shot.png ?"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    let messages = server.requests()[0].body["messages"].clone();
    let user = messages.as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap().clone();
    assert_eq!(user["content"][0]["type"], "text");
    assert_eq!(
        user["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(&png()))}})
    );

    let line = |message: Value, done: bool| format!("{}\n", json!({"model": "m", "message": message, "done": done}));
    let body = line(json!({"role": "assistant", "content": "done"}), false)
        + &line(json!({"role": "assistant", "content": ""}), true);
    let server = Server::start(vec![Reply::ndjson(&body)]).await;
    let env = [("OLLAMA_HOST", server.url.as_str())];
    let (stdout, stderr, ok) =
        run(dir.path(), &["ask", "-p", "ollama", "-m", "llava", "what is in @shot.png ?"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    let messages = server.requests()[0].body["messages"].clone();
    let user = messages.as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap().clone();
    assert_eq!(user["images"], json!([b64(&png())]));

    // Ollama's default model reads no images: the mention is left as typed, and said so.
    let server = Server::start(vec![Reply::ndjson(&body)]).await;
    let env = [("OLLAMA_HOST", server.url.as_str())];
    let (stdout, stderr, ok) = run(dir.path(), &["ask", "-p", "ollama", "what is in @shot.png ?"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    assert!(stderr.contains("@shot.png is not attached: llama3.2 does not read images"), "{stderr}");
    assert!(server.requests()[0].body["messages"].to_string().contains("what is in @shot.png ?"));
    assert!(!server.requests()[0].body.to_string().contains("images"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_past_five_megabytes_is_refused_and_nothing_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = png();
    big.resize(5 * 1024 * 1024 + 1, 0);
    std::fs::write(dir.path().join("huge.png"), big).unwrap();
    let server = Server::start(vec![anthropic_reply()]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let (stdout, stderr, _) = run(dir.path(), &["ask", "-p", "anthropic", "look at @huge.png"], &env, "");
    assert!(server.requests().is_empty(), "a request was sent");
    assert!(
        stderr.contains("@huge.png: the image is 5242881 bytes; the limit is 5242880 bytes")
            && stderr.contains("Nothing was sent"),
        "{stdout}{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fifo_named_like_an_image_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.png");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) reads a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let server = Server::start(vec![anthropic_reply()]).await;
    let env = [("ANTHROPIC_BASE_URL", server.url.as_str()), ("ANTHROPIC_API_KEY", "sk-ant-test")];
    let (stdout, stderr, ok) = run(dir.path(), &["ask", "-p", "anthropic", "what is in @x.png ?"], &env, "");
    assert!(ok, "{stdout}{stderr}");
    assert!(stderr.contains("is a FIFO (named pipe), not a regular file"), "{stderr}");
    let body = &server.requests()[0].body;
    assert!(body["messages"][0]["content"].to_string().contains("what is in @x.png ?"), "{body}");
    assert!(!body.to_string().contains("\"image\""), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_session_sends_the_image_again_or_a_note_when_the_file_is_gone() {
    let home = Home::new();
    std::fs::write(home.dir.path().join("shot.png"), png()).unwrap();
    let server = ModelServer::start(|_| vec![model_server::text("a cat")]).await;
    model_server::chat(home.dir.path(), &server, &[], "what is in @shot.png ?\n", &[]).await;
    let files = home.session_files();
    let recorded = std::fs::read_to_string(&files[0]).unwrap();
    assert!(recorded.contains("\"sha256\"") && !recorded.contains(&b64(&png())), "the session holds the bytes");

    model_server::chat(home.dir.path(), &server, &["-c"], "and now?\n", &[]).await;
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(&png())}});
    let second = &server.requests()[1];
    assert_eq!(second["messages"][0]["content"][0], image, "{second}");

    std::fs::remove_file(home.dir.path().join("shot.png")).unwrap();
    let stdout = model_server::chat(home.dir.path(), &server, &["-c"], "still there?\n", &[]).await;
    let third = &server.requests()[2];
    assert!(!third.to_string().contains("\"image\""), "{third}");
    let first = third["messages"][0]["content"].to_string();
    assert!(first.contains("[The image shot.png was attached here; it is not sent now: the file is gone.]"), "{first}");
    assert!(stdout.contains("the image shot.png of this session is not sent again: the file is gone"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn read_of_a_png_gives_the_model_the_image_or_the_refusal_when_it_reads_none() {
    let home = Home::new();
    std::fs::write(home.dir.path().join("shot.png"), png()).unwrap();
    let play = |body: &Value| match model_server::results_this_turn(body) {
        0 => vec![model_server::tool_use("r1", "read", json!({"path": "shot.png"}))],
        _ => vec![model_server::text("a cat")],
    };
    let server = ModelServer::start(play).await;
    model_server::chat(home.dir.path(), &server, &[], "look at the screenshot\n", &[]).await;
    let results = model_server::tool_results(&server.requests()[1]);
    let content = results[0]["content"].as_array().expect("blocks");
    assert!(content[0]["text"].as_str().unwrap().contains("[image shot.png 229 B]"), "{content:?}");
    assert_eq!(
        content[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(&png())}})
    );

    let server = ModelServer::start(play).await;
    model_server::chat(home.dir.path(), &server, &[], "look at the screenshot\n", &[("ELELEM_IMAGES", "off")]).await;
    let results = model_server::tool_results(&server.requests()[1]);
    let text = model_server::result_text(&results[0]);
    assert!(text.contains("is an image (image/png, 229 bytes); this model does not read images"), "{text}");
    assert!(!server.requests()[1].to_string().contains("\"image\""));
}
