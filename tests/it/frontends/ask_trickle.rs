//! `ask` and `ask --json` show a reply while the model writes it, through the real binary,
//! for every network provider: a local server trickles the reply one event at a time (1 ms,
//! 10 ms and 100 ms apart, and in bursts with pauses) and records when it wrote each event;
//! the test records when each piece of text came out on stdout and holds every piece to a
//! bound far below the stream's length. A front end that holds the text until the reply
//! ends (as `ask` and `ask --json` once did) fails every case by seconds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How late a piece of text may come out after the server wrote it. The pace of `ask` is
/// 8 ms; this leaves room for a loaded two-core machine while still failing a front end that
/// holds text back (the shortest stream here lasts 0.5 s, the longest 2 s).
const LATE: Duration = Duration::from_millis(350);

#[derive(Clone, Copy, Debug)]
enum Wire {
    OpenAi,
    Anthropic,
    Ollama,
}

/// When the server writes each event: the gap before event `i`.
#[derive(Clone, Copy, Debug)]
enum Rate {
    /// One event every so many milliseconds.
    Every(u64),
    /// Bursts of `burst` events back to back, `pause_ms` apart.
    Bursts { burst: usize, pause_ms: u64 },
}

impl Rate {
    fn gap_before(self, i: usize) -> Duration {
        match self {
            Rate::Every(ms) => Duration::from_millis(if i == 0 { 0 } else { ms }),
            Rate::Bursts { burst, pause_ms } => {
                Duration::from_millis(if i > 0 && i.is_multiple_of(burst) { pause_ms } else { 0 })
            }
        }
    }
}

fn word(i: usize) -> String {
    format!("w{i} ")
}

/// The body's pieces for `wire`: a start, one event per word, an end.
fn events(wire: Wire, words: usize) -> (Vec<String>, Vec<String>, Vec<String>) {
    let data = |v: serde_json::Value| format!("data: {v}\n\n");
    let named = |name: &str, v: serde_json::Value| format!("event: {name}\ndata: {v}\n\n");
    let each: Vec<String> = (0..words)
        .map(|i| match wire {
            Wire::OpenAi => data(serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
                "choices": [{"index": 0, "delta": {"content": word(i)}, "finish_reason": null}]})),
            Wire::Anthropic => named(
                "content_block_delta",
                serde_json::json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": word(i)}}),
            ),
            Wire::Ollama => format!(
                "{}\n",
                serde_json::json!({"model": "m", "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": word(i)}, "done": false})
            ),
        })
        .collect();
    let (start, end) = match wire {
        Wire::OpenAi => (
            vec![],
            vec![
                data(serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
                "data: [DONE]\n\n".to_string(),
            ],
        ),
        Wire::Anthropic => (
            vec![
                named(
                    "message_start",
                    serde_json::json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                        "role": "assistant", "model": "m", "content": [], "stop_reason": null,
                        "usage": {"input_tokens": 5, "output_tokens": 1}}}),
                ),
                named(
                    "content_block_start",
                    serde_json::json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "text", "text": ""}}),
                ),
            ],
            vec![
                named("content_block_stop", serde_json::json!({"type": "content_block_stop", "index": 0})),
                named(
                    "message_delta",
                    serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                        "usage": {"output_tokens": words}}),
                ),
                named("message_stop", serde_json::json!({"type": "message_stop"})),
            ],
        ),
        Wire::Ollama => (
            vec![],
            vec![format!(
                "{}\n",
                serde_json::json!({"model": "m", "created_at": "2025-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
                    "prompt_eval_count": 5, "eval_count": words})
            )],
        ),
    };
    (start, each, end)
}

/// Serves one streamed reply on a local port: each event its own HTTP chunk, written and
/// timed. Returns the base address and when each word's event was written.
fn serve(wire: Wire, rate: Rate, words: usize) -> (String, Arc<Mutex<Vec<Instant>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let written = Arc::new(Mutex::new(Vec::new()));
    let times = written.clone();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(socket) = socket else { return };
            let times = times.clone();
            std::thread::spawn(move || answer(socket, wire, rate, words, &times));
        }
    });
    (address, written)
}

fn answer(socket: TcpStream, wire: Wire, rate: Rate, words: usize, times: &Mutex<Vec<Instant>>) {
    let _ = socket.set_nodelay(true);
    let mut reader = BufReader::new(socket.try_clone().unwrap());
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let mut socket = socket;
    if !head.starts_with("POST") {
        let _ = socket.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{\"models\":[]}",
        );
        return;
    }
    let content_type = if matches!(wire, Wire::Ollama) { "application/x-ndjson" } else { "text/event-stream" };
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n");
    let _ = socket.write_all(head.as_bytes());
    let chunk = |socket: &mut TcpStream, text: &str| {
        let framed = format!("{:x}\r\n{text}\r\n", text.len());
        socket.write_all(framed.as_bytes()).and_then(|_| socket.flush()).is_ok()
    };
    let (start, each, end) = events(wire, words);
    for piece in &start {
        chunk(&mut socket, piece);
    }
    let mut next = Instant::now();
    for (i, piece) in each.iter().enumerate() {
        // Paced against a schedule, not sleep after sleep, so the gaps do not drift.
        next += rate.gap_before(i);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        if !chunk(&mut socket, piece) {
            return;
        }
        times.lock().unwrap().push(Instant::now());
    }
    for piece in &end {
        chunk(&mut socket, piece);
    }
    let _ = socket.write_all(b"0\r\n\r\n");
}

/// What one run showed: for each word, how long after the server wrote it it came out.
struct Run {
    lags: Vec<Duration>,
    stdout: String,
}

fn ask(wire: Wire, rate: Rate, words: usize, json: bool) -> Run {
    let (address, written) = serve(wire, rate, words);
    let home = tempfile::tempdir().unwrap();
    let (provider, variables): (&str, Vec<(&str, String)>) = match wire {
        Wire::OpenAi => ("openai", vec![("OPENAI_BASE_URL", address), ("OPENAI_API_KEY", "sk-test".into())]),
        Wire::Anthropic => {
            ("anthropic", vec![("ANTHROPIC_BASE_URL", address), ("ANTHROPIC_API_KEY", "sk-ant-test".into())])
        }
        Wire::Ollama => ("ollama", vec![("OLLAMA_HOST", address)]),
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_elelem"));
    command.arg("ask").args(json.then_some("--json")).args(["-p", provider, "tell me a story"]);
    command.current_dir(home.path()).env("HOME", home.path()).env("XDG_DATA_HOME", home.path());
    for name in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ELELEM_STUB_SCRIPT", "NO_COLOR"] {
        command.env_remove(name);
    }
    command.envs(variables).env("ELELEM_RETRY_ATTEMPTS", "1");
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // (when, bytes of stdout so far)
    let mut arrivals: Vec<(Instant, usize)> = Vec::new();
    let mut all = Vec::new();
    let mut buffer = [0u8; 65536];
    loop {
        let n = stdout.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        all.extend_from_slice(&buffer[..n]);
        arrivals.push((Instant::now(), all.len()));
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let stdout = String::from_utf8(all).unwrap();
    assert!(status.success(), "{wire:?} {rate:?} json={json}: {status}\n{stderr}\n{stdout}");
    let written = written.lock().unwrap().clone();
    assert_eq!(written.len(), words, "the server wrote every word");
    let mut from = 0;
    let lags = (0..words)
        .map(|i| {
            let marker = word(i);
            let at = from + stdout[from..].find(&marker).unwrap_or_else(|| panic!("{marker:?} missing: {stdout}"));
            from = at;
            let end = at + marker.len();
            let shown = arrivals.iter().find(|(_, len)| *len >= end).map(|(when, _)| *when).unwrap();
            shown.saturating_duration_since(written[i])
        })
        .collect();
    Run { lags, stdout }
}

/// Runs every provider at `rate` in both modes and checks each word came out in time.
fn check(rate: Rate, words: usize) {
    for wire in [Wire::OpenAi, Wire::Anthropic, Wire::Ollama] {
        for json in [false, true] {
            let run = ask(wire, rate, words, json);
            let worst = run.lags.iter().max().copied().unwrap_or_default();
            let first = run.lags[0];
            eprintln!("{wire:?} {rate:?} json={json}: first word {first:?} late, worst {worst:?}");
            assert!(first < LATE, "{wire:?} {rate:?} json={json}: the first word came {first:?} after it was sent");
            for (i, lag) in run.lags.iter().enumerate() {
                assert!(*lag < LATE, "{wire:?} {rate:?} json={json}: word {i} came {lag:?} after it was sent");
            }
            if json {
                let last = run.stdout.lines().last().unwrap_or_default();
                let reply: serde_json::Value = serde_json::from_str(last).unwrap();
                assert_eq!(reply["type"], "reply");
                let expected: String = (0..words).map(word).collect();
                assert_eq!(reply["text"], expected.as_str());
            } else {
                let expected: String = (0..words).map(word).collect::<String>() + "\n";
                assert_eq!(run.stdout, expected, "{wire:?} {rate:?}: stdout is the reply, once");
            }
        }
    }
}

#[test]
fn a_reply_trickling_every_100_ms_comes_out_word_by_word() {
    check(Rate::Every(100), 12);
}

#[test]
fn a_reply_trickling_every_10_ms_comes_out_as_it_arrives() {
    check(Rate::Every(10), 60);
}

#[test]
fn a_reply_trickling_every_millisecond_comes_out_as_it_arrives() {
    check(Rate::Every(1), 400);
}

#[test]
fn a_reply_in_bursts_with_pauses_comes_out_burst_by_burst() {
    check(Rate::Bursts { burst: 40, pause_ms: 400 }, 160);
}
