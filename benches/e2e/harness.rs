//! The pseudo-terminal harness of the e2e bench: starts the real binary (on the stub's
//! script or a local SSE server), reads what it draws into a vt100 screen while counting
//! bytes and frames, types into it, and reads its CPU time and peak memory; and the SSE
//! mock server as a child process. Knows nothing of the rows measured.

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Starts every synchronized update, so one per frame.
const FRAME_START: &[u8] = b"\x1b[?2026h";
/// Ends every synchronized update: the frame is complete.
const FRAME_END: &[u8] = b"\x1b[?2026l";

/// Where the TUI gets its reply: the stub's script, or a local SSE server.
pub enum Source<'a> {
    Stub(&'a std::path::Path),
    Http(&'a str),
}

/// The device attributes query (DA1).
const DA1_QUERY: &[u8] = b"\x1b[c";

/// The pty's input, shared by the bench and the reader thread that answers queries.
#[derive(Clone)]
struct Writer(Arc<Mutex<Box<dyn Write + Send>>>);

impl Writer {
    fn send(&self, bytes: &[u8]) {
        let mut w = self.0.lock().unwrap();
        let _ = w.write_all(bytes);
        let _ = w.flush();
    }
}

pub struct Run {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Writer,
    screen: Arc<Mutex<vt100::Parser>>,
    bytes: Arc<AtomicU64>,
    frames: Arc<AtomicU64>,
    frame_ends: Arc<AtomicU64>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    probe: Probe,
    seen: std::sync::mpsc::Receiver<Duration>,
}

/// The text typed so far, which the prompt box must show the end of (it scrolls sideways:
/// a non-empty end of it, and consecutive keys differ, so it is this key's frame), and
/// when the last key was written to the pty.
type Probe = Arc<Mutex<Option<(String, Instant)>>>;

fn binary() -> String {
    std::env::var("ELELEM_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_elelem").to_string())
}

pub fn start(source: Source, dir: &std::path::Path) -> Run {
    let pair = native_pty_system().openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut cmd = CommandBuilder::new(binary());
    cmd.cwd(dir);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", dir);
    cmd.env_remove("ANTHROPIC_API_KEY");
    cmd.env_remove("OPENAI_API_KEY");
    cmd.env("OLLAMA_HOST", "http://127.0.0.1:9");
    match source {
        Source::Stub(script) => {
            cmd.env("ELELEM_STUB_SCRIPT", script);
        }
        Source::Http(url) => {
            cmd.env("OPENAI_BASE_URL", url);
            cmd.env("OPENAI_API_KEY", "x");
            cmd.args(["-p", "openai"]);
        }
    }
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let writer = Writer(Arc::new(Mutex::new(pair.master.take_writer().unwrap())));
    let answer = writer.clone();
    let n = |v| NonZeroU16::new(v).unwrap();
    let screen = Arc::new(Mutex::new(vt100::Parser::new(n(40), n(120), 0)));
    let (bytes, frames, frame_ends) =
        (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (s, b, f, e) = (screen.clone(), bytes.clone(), frames.clone(), frame_ends.clone());
    let probe: Probe = Arc::new(Mutex::new(None));
    let (seen_tx, seen) = std::sync::mpsc::channel();
    let p = probe.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        // The end of the previous read, so a marker split between two reads is still counted.
        let mut carry: Vec<u8> = Vec::new();
        while let Ok(k) = reader.read(&mut buf) {
            if k == 0 {
                break;
            }
            // Taken before parsing: a keystroke's latency ends when its frame reached us,
            // whatever the harness then spends parsing it.
            let read_at = Instant::now();
            b.fetch_add(k as u64, Ordering::Relaxed);
            carry.extend_from_slice(&buf[..k]);
            // Answer the device attributes query (DA1) as every terminal does: the app asks
            // it after its background query, and a terminal's DA1 answer ends that wait.
            if buf[..k].windows(DA1_QUERY.len()).any(|w| w == DA1_QUERY) {
                answer.send(b"\x1b[?62;22c");
            }
            let found = carry.windows(FRAME_START.len()).filter(|w| *w == FRAME_START).count();
            f.fetch_add(found as u64, Ordering::Relaxed);
            // Parse before counting the end, so a waiter woken by the count sees the frame.
            s.lock().unwrap().process(&buf[..k]);
            let ended = carry.windows(FRAME_END.len()).filter(|w| *w == FRAME_END).count();
            e.fetch_add(ended as u64, Ordering::Relaxed);
            let mut waiting = p.lock().unwrap();
            if let Some((typed, written)) = waiting.as_ref() {
                let shown = prompt_text(s.lock().unwrap().screen());
                if !shown.is_empty() && typed.ends_with(&shown) {
                    let _ = seen_tx.send(read_at - *written);
                    *waiting = None;
                }
            }
            drop(waiting);
            let keep = carry.len().min(FRAME_START.len() - 1);
            carry.drain(..carry.len() - keep);
        }
    });
    Run { child, writer, screen, bytes, frames, frame_ends, master: pair.master, probe, seen }
}

/// The text in the prompt box: its rows inside the border, joined (typed text without
/// spaces reads back whole however it wraps).
fn prompt_text(screen: &vt100::Screen) -> String {
    let rows: Vec<String> = screen.rows(0, screen.size().1.into()).collect();
    let Some(top) = rows.iter().position(|r| r.starts_with("┌ prompt")) else { return String::new() };
    let mut text = String::new();
    for row in rows[top + 1..].iter().take_while(|r| !r.starts_with('└')) {
        text.push_str(row.trim_start_matches('│').trim_end().trim_end_matches('│').trim());
    }
    text
}

/// What one streamed reply cost.
pub struct Cost {
    pub cpu: f64,
    pub wall: f64,
    pub rss: f64,
    pub bytes: u64,
    pub frames: u64,
}

impl Run {
    /// Starts the binary on `source` and waits for its prompt.
    pub fn ready(source: Source, dir: &std::path::Path) -> Run {
        let run = start(source, dir);
        run.wait_for("Ask elelem", Duration::from_secs(10));
        run
    }

    pub fn wait_for(&self, text: &str, limit: Duration) -> Duration {
        self.try_wait_for(text, limit).unwrap_or_else(|| {
            panic!("timed out waiting for {text:?}; the screen:\n{}", self.screen.lock().unwrap().screen().contents())
        })
    }

    pub fn try_wait_for(&self, text: &str, limit: Duration) -> Option<Duration> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if self.screen.lock().unwrap().screen().contents().contains(text) {
                return Some(started.elapsed());
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        None
    }

    pub fn wait_gone(&self, text: &str, limit: Duration) {
        let started = Instant::now();
        while self.screen.lock().unwrap().screen().contents().contains(text) {
            assert!(
                started.elapsed() < limit,
                "{text:?} is still on screen; the screen:\n{}",
                self.screen.lock().unwrap().screen().contents()
            );
            std::thread::sleep(Duration::from_micros(500));
        }
    }

    pub fn send(&mut self, line: &str) {
        self.writer.send(format!("{line}\r").as_bytes());
    }

    /// Sends a prompt and waits for `marker`: the CPU time, wall time, peak memory and what
    /// was written to the terminal meanwhile.
    pub fn measure(&mut self, prompt: &str, marker: &str) -> Cost {
        let pid = self.pid();
        // A marker still on screen from the reply before (a frame after `/clear` not yet
        // drawn) would end this measure at once.
        self.wait_gone(marker, Duration::from_secs(10));
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

    /// Changes the terminal's width and waits for the first complete frame after it: the
    /// wall time from the resize to that frame's end, and the CPU used meanwhile.
    pub fn resize(&mut self, cols: u16) -> (f64, f64) {
        let pid = self.pid();
        std::thread::sleep(Duration::from_millis(300));
        let before = cpu_seconds(pid);
        let ends = self.frame_ends.load(Ordering::Relaxed);
        let started = Instant::now();
        self.screen.lock().unwrap().set_size(NonZeroU16::new(40).unwrap(), NonZeroU16::new(cols).unwrap());
        self.master.resize(PtySize { rows: 40, cols, pixel_width: 0, pixel_height: 0 }).unwrap();
        while self.frame_ends.load(Ordering::Relaxed) == ends {
            assert!(started.elapsed() < Duration::from_secs(30), "no frame after the resize");
            std::thread::sleep(Duration::from_micros(200));
        }
        let wall = started.elapsed().as_secs_f64();
        std::thread::sleep(Duration::from_millis(200));
        (wall, cpu_seconds(pid) - before)
    }

    pub fn clear(&mut self) {
        // The TUI asks first: Enter on the question clears. Tried again (saying so) when the
        // clear does not show, so one lost confirmation does not end the whole table.
        for attempt in 1..=3 {
            self.send("/clear");
            self.wait_for("Clear the conversation?", Duration::from_secs(10));
            self.writer.send(b"\r");
            if self.try_wait_for("Conversation cleared", Duration::from_secs(5)).is_some() {
                return;
            }
            eprintln!(
                "/clear attempt {attempt} did not show \"Conversation cleared\"; the screen:\n{}",
                self.screen.lock().unwrap().screen().contents()
            );
        }
        panic!("/clear never showed \"Conversation cleared\"");
    }

    /// Types `count` letters into the prompt one at a time, each once the previous one is
    /// on screen and after a pause of 5–25 ms (so keys land at every phase of the stream's
    /// frames, as typing does): for each, the time from writing it to the pty to reading
    /// the frame that shows it at the end of the prompt box.
    pub fn keystrokes(&mut self, count: usize) -> Vec<Duration> {
        let mut typed = String::new();
        let mut latencies = Vec::new();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..count {
            let key = (b'a' + (i % 26) as u8) as char;
            typed.push(key);
            *self.probe.lock().unwrap() = Some((typed.clone(), Instant::now()));
            self.writer.send(&[key as u8]);
            let Ok(latency) = self.seen.recv_timeout(Duration::from_secs(10)) else {
                let shown = prompt_text(self.screen.lock().unwrap().screen());
                panic!("typed {typed:?}, but the prompt shows {shown:?}");
            };
            latencies.push(latency);
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            std::thread::sleep(Duration::from_micros(5_000 + (seed >> 33) % 20_000));
        }
        latencies
    }

    pub fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    pub fn quit(mut self) {
        self.writer.send(b"\x04");
        std::thread::sleep(Duration::from_millis(100));
        let _ = self.child.kill();
    }
}

/// The SSE server example, started with `args`; its base URL. Killed on drop.
pub struct Mock(std::process::Child, pub String);

impl Mock {
    pub fn start(path: &str, args: &[&str]) -> Mock {
        use std::io::BufRead;
        let mut child = std::process::Command::new(path)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {path}: {e}"));
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        Mock(child, line.trim().to_string())
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// CPU seconds (user + system, all its threads, those that ended included) the process has
/// used so far: its CPU-time clock, to the nanosecond (`/proc/<pid>/stat` counts 10 ms
/// ticks, as large as the smaller rows).
pub fn cpu_seconds(pid: u32) -> f64 {
    let mut clock: libc::clockid_t = 0;
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: both pointers are to live locals of the types the calls write.
    let ok = unsafe {
        libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) == 0 && libc::clock_gettime(clock, &mut now) == 0
    };
    assert!(ok, "cannot read the CPU clock of process {pid}");
    now.tv_sec as f64 + now.tv_nsec as f64 / 1e9
}

/// Peak resident memory in MB.
fn peak_rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() / 1024.0
}
