//! A local OpenAI-protocol server for benchmarks (`scripts/bench.sh`): answers every POST
//! with a ~1 MB Markdown reply streamed as Chat Completions SSE chunks of 32 characters,
//! one event per write, as real APIs stream. Standard library only.
//!
//! ```text
//! cargo run --release --example sse_mock -- [--port 0] [--size 1000000] [--chunk 32] [--pace-ms 0]
//! ```
//!
//! Prints `http://127.0.0.1:PORT/v1` on its first line (use it as `OPENAI_BASE_URL`), then
//! serves until killed. `--pace-ms N` sleeps N ms between events (1 MB at 1 ms is a ~36 s
//! stream); 0 sends them as a burst. The reply ends with the line `END-OF-REPLY`.

/// The benches' text (the same reply as the `e2e` bench's stub rows).
#[path = "../benches/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

struct Options {
    port: u16,
    size: usize,
    chunk: usize,
    pace: Duration,
}

fn options() -> Result<Options, String> {
    let mut options = Options { port: 0, size: 1_000_000, chunk: 32, pace: Duration::ZERO };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<f64>().map_err(|_| format!("{flag}: not a number: {v}"));
        match flag.as_str() {
            "--port" => options.port = number(&value)? as u16,
            "--size" => options.size = number(&value)? as usize,
            "--chunk" => options.chunk = (number(&value)? as usize).max(1),
            "--pace-ms" => options.pace = Duration::from_secs_f64(number(&value)?.max(0.0) / 1000.0),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(options)
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn chunk_event(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\
         \"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

/// The whole reply as HTTP/1.1 chunks, already framed, one SSE event each.
fn framed_events(options: &Options) -> Vec<Vec<u8>> {
    let text: Vec<char> = common::markdown_text(options.size).chars().collect();
    let mut events = vec![chunk_event("{\"role\":\"assistant\",\"content\":\"\"}", "null")];
    for piece in text.chunks(options.chunk) {
        let piece: String = piece.iter().collect();
        events.push(chunk_event(&format!("{{\"content\":{}}}", json_string(&piece)), "null"));
    }
    events.push(chunk_event("{}", "\"stop\""));
    let tokens = text.len() / 4;
    events.push(format!(
        "data: {{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\
         \"choices\":[],\"usage\":{{\"prompt_tokens\":10,\"completion_tokens\":{tokens},\"total_tokens\":{}}}}}\n\n",
        tokens + 10
    ));
    events.push("data: [DONE]\n\n".to_string());
    events
        .into_iter()
        .map(|event| {
            let mut framed = format!("{:x}\r\n", event.len()).into_bytes();
            framed.extend_from_slice(event.as_bytes());
            framed.extend_from_slice(b"\r\n");
            framed
        })
        .collect()
}

/// Reads one request (head and `content-length` body); false if the client went away.
fn read_request(reader: &mut BufReader<TcpStream>) -> bool {
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) => {}
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).is_ok()
}

fn serve(stream: TcpStream, events: &[Vec<u8>], pace: Duration) {
    let _ = stream.set_nodelay(true);
    let Ok(clone) = stream.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    if !read_request(&mut reader) {
        return;
    }
    let mut out = stream;
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\
                connection: close\r\n\r\n";
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    for event in events {
        if out.write_all(event).is_err() {
            return; // the client went away
        }
        if !pace.is_zero() {
            std::thread::sleep(pace);
        }
    }
    let _ = out.write_all(b"0\r\n\r\n");
}

fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("sse_mock: {e}");
            std::process::exit(2);
        }
    };
    let events = Arc::new(framed_events(&options));
    let listener = match TcpListener::bind(("127.0.0.1", options.port)) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("sse_mock: cannot listen: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("http://{addr}/v1"),
        Err(e) => {
            eprintln!("sse_mock: {e}");
            std::process::exit(1);
        }
    }
    let _ = std::io::stdout().flush();
    for stream in listener.incoming().flatten() {
        let (events, pace) = (events.clone(), options.pace);
        std::thread::spawn(move || serve(stream, &events, pace));
    }
}
