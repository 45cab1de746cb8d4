//! Resuming a long session (issue 11's budget: a 10,000-turn session with 50 MB of tool
//! output opens to its first frame showing the last turn in < 0.3 s with < 80 MB): writes
//! such a session file the way the recorder does, runs the real binary with `--continue`
//! in a pseudo-terminal, and prints the time until the last reply is on screen and the peak
//! memory (VmHWM). Run with `cargo bench --bench resume`.

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use serde_json::json;
use std::io::{BufWriter, Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TURNS: usize = 10_000;
const RESULT_BYTES: usize = 5 * 1024;

fn write_session(path: &std::path::Path, cwd: &std::path::Path) {
    let mut out = BufWriter::new(std::fs::File::create(path).unwrap());
    let line = |out: &mut BufWriter<std::fs::File>, v: serde_json::Value| writeln!(out, "{v}").unwrap();
    line(&mut out, json!({"type": "session", "version": 1, "id": "bench", "cwd": cwd.to_string_lossy(), "started": 0}));
    let body: String = "let x = compute(42); // a line of tool output\n".repeat(RESULT_BYTES / 46);
    let mut kept = 0;
    for i in 0..TURNS {
        let prompt = format!("question {i}: what does module {i} do?");
        line(&mut out, json!({"type": "prompt", "text": prompt}));
        line(&mut out, json!({"type": "messages", "keep": kept, "append": [{"role": "user", "content": prompt}]}));
        let call = json!({"id": format!("t{i}"), "name": "read", "arguments": {"path": format!("src/m{i}.rs")}});
        line(&mut out, json!({"type": "tool_started", "call": call, "summary": format!("src/m{i}.rs")}));
        line(&mut out, json!({"type": "tool_finished", "call": call, "result": {"content": body, "ok": true}}));
        let reply = format!("Module {i} computes **42** and caches it. Reply number {i}.");
        line(&mut out, json!({"type": "saying", "text": reply}));
        line(&mut out, json!({"type": "turn_finished", "reply": reply, "end": "done"}));
        line(
            &mut out,
            json!({"type": "messages", "keep": kept + 1, "append": [{"role": "assistant", "content": reply}]}),
        );
        kept += 2;
    }
}

fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn run_once(dir: &std::path::Path) -> (Duration, u64) {
    let pair = native_pty_system().openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_elelem"));
    cmd.arg("--continue");
    cmd.cwd(dir);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", dir);
    cmd.env("XDG_DATA_HOME", dir.join("data"));
    cmd.env_remove("ANTHROPIC_API_KEY");
    cmd.env_remove("OPENAI_API_KEY");
    cmd.env("OLLAMA_HOST", "http://127.0.0.1:9");
    let started = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let pid = child.process_id().unwrap();
    let mut reader = pair.master.try_clone_reader().unwrap();
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
    let want = format!("Reply number {}.", TURNS - 1);
    let shown = loop {
        if screen.lock().unwrap().screen().contents().contains(&want) {
            break started.elapsed();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the last reply never showed");
        std::thread::sleep(Duration::from_micros(500));
    };
    std::thread::sleep(Duration::from_millis(300));
    let rss = peak_rss_kb(pid);
    let mut writer = pair.master.take_writer().unwrap();
    let _ = writer.write_all(b"\x04");
    let _ = child.wait();
    (shown, rss)
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("data/elelem/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let file = sessions.join("bench.jsonl");
    write_session(&file, dir.path());
    let size = std::fs::metadata(&file).unwrap().len();
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    for _ in 0..5 {
        // The session grows by what each run appends; start from the same file each time.
        let copy = std::fs::read(&file).unwrap();
        let (time, rss) = run_once(dir.path());
        std::fs::write(&file, copy).unwrap();
        times.push(time);
        peaks.push(rss);
    }
    times.sort();
    peaks.sort();
    println!(
        "resume {TURNS} turns, {:.1} MB session: last reply on screen median {:.3} s (min {:.3}), peak RSS median {:.1} MB",
        size as f64 / 1e6,
        times[2].as_secs_f64(),
        times[0].as_secs_f64(),
        peaks[2] as f64 / 1024.0
    );
}
