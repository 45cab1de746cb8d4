//! End-to-end budgets of the real binary in a pseudo-terminal (run with `cargo bench
//! --bench e2e`): start to first drawn frame, idle CPU, and for each streamed reply the CPU
//! time of the process (user + system, from `/proc/<pid>/stat`, what `getrusage` reports),
//! its wall time, its peak memory, and what it wrote to the terminal: bytes, frames (one
//! synchronized update each) and bytes per frame. Prints the numbers; the budgets are
//! issue 13's: a 36 s paced 1 MB stream under 0.5 s CPU, a 1 MB burst on screen within
//! 0.15 s with under 0.1 s CPU and 30 MB, a long paragraph, list, table or unbroken line no
//! dearer than short paragraphs, a 200 KB code block in 500 deltas under 0.3 s CPU.
//!
//! `ELELEM_BENCH_BIN=/path/to/elelem` measures another build (e.g. the one before a change)
//! with the same scripts.

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use serde_json::json;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;
use common::{shape_chunk, SHAPES};

/// Starts every synchronized update, so one per frame.
const FRAME_START: &[u8] = b"\x1b[?2026h";

struct Run {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    bytes: Arc<AtomicU64>,
    frames: Arc<AtomicU64>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

fn binary() -> String {
    std::env::var("ELELEM_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_elelem").to_string())
}

fn start(script: &std::path::Path, dir: &std::path::Path) -> Run {
    let pair = native_pty_system().openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut cmd = CommandBuilder::new(binary());
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
    let (bytes, frames) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (s, b, f) = (screen.clone(), bytes.clone(), frames.clone());
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        // The end of the previous read, so a marker split between two reads is still counted.
        let mut carry: Vec<u8> = Vec::new();
        while let Ok(k) = reader.read(&mut buf) {
            if k == 0 {
                break;
            }
            b.fetch_add(k as u64, Ordering::Relaxed);
            carry.extend_from_slice(&buf[..k]);
            let found = carry.windows(FRAME_START.len()).filter(|w| *w == FRAME_START).count();
            f.fetch_add(found as u64, Ordering::Relaxed);
            let keep = carry.len().min(FRAME_START.len() - 1);
            carry.drain(..carry.len() - keep);
            s.lock().unwrap().process(&buf[..k]);
        }
    });
    Run { child, writer, screen, bytes, frames, _master: pair.master }
}

/// What one streamed reply cost.
struct Cost {
    cpu: f64,
    wall: f64,
    rss: f64,
    bytes: u64,
    frames: u64,
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

    fn send(&mut self, line: &str) {
        self.writer.write_all(format!("{line}\r").as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Sends a prompt and waits for `marker`: the CPU time, wall time, peak memory and what
    /// was written to the terminal meanwhile.
    fn measure(&mut self, prompt: &str, marker: &str) -> Cost {
        let pid = self.pid();
        let before = cpu_seconds(pid);
        let (bytes, frames) = (self.bytes.load(Ordering::Relaxed), self.frames.load(Ordering::Relaxed));
        let started = Instant::now();
        self.send(prompt);
        self.wait_for(marker, Duration::from_secs(300));
        let wall = started.elapsed().as_secs_f64();
        std::thread::sleep(Duration::from_millis(200));
        Cost {
            cpu: cpu_seconds(pid) - before,
            wall,
            rss: peak_rss_mb(pid),
            bytes: self.bytes.load(Ordering::Relaxed) - bytes,
            frames: self.frames.load(Ordering::Relaxed) - frames,
        }
    }

    fn clear(&mut self) {
        self.send("/clear");
        self.wait_for("Conversation cleared", Duration::from_secs(10));
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

fn report(label: &str, cost: &Cost) {
    println!(
        "{label}: {:.3} s CPU over {:.2} s wall, peak RSS {:.1} MB, {} frames, {:.1} KB written, {:.0} B/frame",
        cost.cpu,
        cost.wall,
        cost.rss,
        cost.frames,
        cost.bytes as f64 / 1024.0,
        cost.bytes as f64 / cost.frames.max(1) as f64
    );
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

/// About 1 MB of mixed Markdown (paragraphs, code, tables, lists, headings).
fn one_megabyte_text() -> String {
    let chunk = "Some **streamed** text with `inline code` and a [link](https://example.com). ";
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 1_000_000 {
        match i % 50 {
            10 => text.push_str("\n\n```rust\nfn example(x: u32) -> u32 {\n    x * 2\n}\n```\n\n"),
            20 => text.push_str("\n\n| name | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n"),
            30 => text.push_str("\n\n- a list item\n- another item\n\n"),
            40 => text.push_str(&format!("\n\n## Section {i}\n\n")),
            _ => text.push_str(&chunk.repeat(3)),
        }
        i += 1;
    }
    text.push_str("\n\nEND-OF-REPLY\n");
    text
}

/// A reply that is one 200 KB Rust code block (a model writing a whole file).
fn code_text() -> String {
    let mut text = String::from("Here is the file:\n\n```rust\n");
    let mut i = 0;
    while text.len() < 200_000 {
        text.push_str(&format!("fn function_{i}(x: u64) -> u64 {{\n    let y = x * {i} + 1; // step {i}\n    y\n}}\n"));
        i += 1;
    }
    text.push_str("```\n\nEND-OF-CODE\n");
    text
}

/// `text` in deltas of about `size` bytes (cut at char boundaries), `delay_ms` apart.
fn deltas(text: &str, size: usize, delay_ms: u64) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(json!({"type": "saying", "text": &text[start..end], "delay_ms": delay_ms}));
        start = end;
    }
    out
}

/// 3,000 one-line chunks 1 ms apart forming one block of `shape` (or short paragraphs).
fn shape_events(shape: &str) -> Vec<serde_json::Value> {
    let mut out: Vec<serde_json::Value> =
        (0..3000).map(|i| json!({"type": "saying", "text": shape_chunk(shape, i), "delay_ms": 1})).collect();
    out.push(json!({"type": "saying", "text": "\n\nEND-OF-SHAPE\n"}));
    out
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let text = one_megabyte_text();
    let mut steps = vec![
        json!({"events": [{"type": "saying", "text": text}]}),
        json!({"events": deltas(&text, 32, 1)}),
        json!({"events": deltas(&text, 400, 1)}),
        json!({"events": deltas(&code_text(), 400, 1)}),
    ];
    steps.extend(SHAPES.iter().map(|shape| json!({"events": shape_events(shape)})));
    std::fs::write(&script, serde_json::Value::Array(steps).to_string()).unwrap();

    let mut starts = Vec::new();
    for _ in 0..10 {
        let run = start(&script, dir.path());
        starts.push(run.wait_for("Ask elelem", Duration::from_secs(10)));
        run.quit();
    }
    starts.sort();
    println!(
        "start to first frame: median {:.1} ms, max {:.1} ms (budget 20 ms)",
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

    let cost = run.measure("stream it", "END-OF-REPLY");
    report("1 MB burst (goal: on screen in 0.15 s, 0.1 s CPU, 30 MB)", &cost);
    run.clear();
    let cost = run.measure("stream it in 32-byte deltas", "END-OF-REPLY");
    report("1 MB in 32-byte deltas 1 ms apart (goal: 0.5 s CPU)", &cost);
    run.clear();
    let cost = run.measure("stream it in 400-byte deltas", "END-OF-REPLY");
    report("1 MB in 400-byte deltas 1 ms apart", &cost);
    run.clear();
    let cost = run.measure("write the file", "END-OF-CODE");
    report("200 KB code block in 500 deltas 1 ms apart (goal: 0.3 s CPU)", &cost);
    for shape in SHAPES {
        run.clear();
        let cost = run.measure(&format!("one {shape}"), "END-OF-SHAPE");
        report(&format!("3,000 one-line chunks 1 ms apart as {shape}"), &cost);
    }
    run.quit();
}
