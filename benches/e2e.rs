//! End-to-end budgets of the real binary in a pseudo-terminal (run with `cargo bench
//! --bench e2e`): start to first drawn frame, idle CPU, and the CPU time and peak memory
//! of streaming a 1 MB Markdown reply from the stub to the screen. Prints the numbers;
//! the TUI issue's budgets are < 50 ms to the first frame, ~0 idle CPU, < 2 s CPU.

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use serde_json::json;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Run {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

fn start(script: &std::path::Path, dir: &std::path::Path) -> Run {
    let pair = native_pty_system().openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_elelem"));
    cmd.cwd(dir);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", dir);
    cmd.env("ELELEM_STUB_SCRIPT", script);
    cmd.env_remove("ANTHROPIC_API_KEY");
    cmd.env_remove("OPENAI_API_KEY");
    cmd.env("OLLAMA_HOST", "http://127.0.0.1:9");
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let writer = pair.master.take_writer().unwrap();
    let n = |v| NonZeroU16::new(v).unwrap();
    let screen = Arc::new(Mutex::new(vt100::Parser::new(n(40), n(120), 0)));
    let s = screen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(k) = reader.read(&mut buf) {
            if k == 0 {
                break;
            }
            s.lock().unwrap().process(&buf[..k]);
        }
    });
    Run { child, writer, screen, _master: pair.master }
}

impl Run {
    fn wait_for(&self, text: &str, limit: Duration) -> Duration {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.screen.lock().unwrap().screen().contents().contains(text) {
                return started.elapsed();
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        panic!("timed out waiting for {text:?}");
    }

    /// Sends a prompt, waits for `marker`, and prints the CPU time, wall time and peak memory.
    fn measure(&mut self, prompt: &str, marker: &str, label: &str) {
        let pid = self.pid();
        let before = cpu_seconds(pid);
        let started = Instant::now();
        self.writer.write_all(format!("{prompt}\r").as_bytes()).unwrap();
        self.writer.flush().unwrap();
        self.wait_for(marker, Duration::from_secs(300));
        let wall = started.elapsed();
        std::thread::sleep(Duration::from_millis(200));
        let cpu = cpu_seconds(pid) - before;
        println!("{label}: {cpu:.2} s CPU over {:.2} s wall, peak RSS {:.1} MB", wall.as_secs_f64(), peak_rss_mb(pid));
    }

    fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    fn quit(mut self) {
        let _ = self.writer.write_all(b"\x04");
        let _ = self.writer.flush();
        std::thread::sleep(Duration::from_millis(100));
        let _ = self.child.kill();
    }
}

/// CPU seconds (user + system) the process has used so far.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// Peak resident memory in MB.
fn peak_rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() / 1024.0
}

fn one_megabyte_reply() -> Vec<serde_json::Value> {
    let chunk = "Some **streamed** text with `inline code` and a [link](https://example.com). ";
    let mut events = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < 1_000_000 {
        let text = match i % 50 {
            10 => "\n\n```rust\nfn example(x: u32) -> u32 {\n    x * 2\n}\n```\n\n".to_string(),
            20 => "\n\n| name | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n".to_string(),
            30 => "\n\n- a list item\n- another item\n\n".to_string(),
            40 => format!("\n\n## Section {i}\n\n"),
            _ => chunk.repeat(3),
        };
        size += text.len();
        events.push(json!({"type": "saying", "text": text}));
        i += 1;
    }
    events.push(json!({"type": "saying", "text": "\n\nEND-OF-REPLY\n"}));
    events
}

/// A reply that is one 200 KB Rust code block (a model writing a whole file).
fn code_reply() -> Vec<serde_json::Value> {
    let mut text = String::from("Here is the file:\n\n```rust\n");
    let mut i = 0;
    while text.len() < 200_000 {
        text.push_str(&format!("fn function_{i}(x: u64) -> u64 {{\n    let y = x * {i} + 1; // step {i}\n    y\n}}\n"));
        i += 1;
    }
    text.push_str("```\n\nEND-OF-CODE\n");
    vec![json!({"type": "saying", "text": text})]
}

/// The same reply in ~400-byte deltas, 1 ms apart, so the UI draws many frames while it
/// streams (the realistic case: a model sends text over seconds, not all at once).
fn paced(events: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut text = String::new();
    for event in events {
        text.push_str(event["text"].as_str().unwrap_or(""));
        if text.len() >= 400 {
            out.push(json!({"type": "saying", "text": std::mem::take(&mut text), "delay_ms": 1}));
        }
    }
    out.push(json!({"type": "saying", "text": text}));
    out
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let reply = one_megabyte_reply();
    std::fs::write(
        &script,
        json!([{"events": reply}, {"events": paced(&reply)}, {"events": paced(&code_reply())}]).to_string(),
    )
    .unwrap();

    let mut starts = Vec::new();
    for _ in 0..10 {
        let run = start(&script, dir.path());
        starts.push(run.wait_for("Ask elelem", Duration::from_secs(10)));
        run.quit();
    }
    starts.sort();
    println!(
        "start to first frame: median {:.1} ms, max {:.1} ms (budget 50 ms)",
        starts[starts.len() / 2].as_secs_f64() * 1000.0,
        starts[starts.len() - 1].as_secs_f64() * 1000.0
    );

    let mut run = start(&script, dir.path());
    run.wait_for("Ask elelem", Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(300));
    let pid = run.pid();
    let idle_before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(3));
    let idle = cpu_seconds(pid) - idle_before;
    println!("idle CPU over 3 s: {:.3} s ({:.2}%)", idle, idle / 3.0 * 100.0);

    run.measure("stream it", "END-OF-REPLY", "1 MB reply, all at once (budget < 2 s CPU; goal 0.2 s, 40 MB)");
    run.writer.write_all(b"/clear\r").unwrap();
    run.writer.flush().unwrap();
    run.wait_for("Conversation cleared", Duration::from_secs(10));
    run.measure("stream it slowly", "END-OF-REPLY", "1 MB reply in ~2,500 deltas 1 ms apart");
    run.measure("write the file", "END-OF-CODE", "200 KB code block in ~500 deltas 1 ms apart");
    run.quit();
}
