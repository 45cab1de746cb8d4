//! What one long streamed block of each shape costs the whole TUI state (issue 13): `App`
//! takes 3,000 one-line chunks of a shape (`common::SHAPES`) and draws a 120x40 frame every
//! 65 chunks, as the TUI does with chunks 1 ms apart (~45 frames), for four turns. The goal:
//! a long paragraph, list, table or unbroken line costs no more than short paragraphs.
//!
//! `cargo bench --bench shapes` prints each shape's time (median of `SHAPE_RUNS`, default 5)
//! and its ratio to short paragraphs. Times on a shared 2-core machine move by 20%, so
//! `scripts/bench_shapes.sh` runs each shape once under callgrind (`SHAPE=table` runs only
//! that shape, once) and prints instruction counts, which repeat exactly. `SHAPE=reply` streams
//! the ~1 MB mixed reply of the e2e bench instead, in 32-byte deltas.

use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::tui::app::App;
use elelem::tui::text::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::hint::black_box;
use std::time::Instant;

#[path = "common/mod.rs"]
mod common;
use common::{pieces, shape_chunk, SHAPES};

const CHUNKS: usize = 3000;
const EVERY: usize = 65;
const TURNS: usize = 4;

/// The app on a 120x40 screen, drawn as the TUI draws it.
struct Screen {
    app: App,
    buf: Buffer,
    now: Instant,
}

impl Screen {
    fn new() -> Self {
        let app = App::new(Theme::new(true), "stub", "stub-demo", vec![], vec![]);
        Screen { app, buf: Buffer::empty(Rect::new(0, 0, 120, 40)), now: Instant::now() }
    }

    fn frame(&mut self) {
        self.buf.reset();
        self.app.render(self.buf.area, &mut self.buf, self.now);
        black_box(&self.buf);
    }
}

/// Streams `TURNS` turns of `shape` through a fresh `App`, a frame every `EVERY` chunks.
fn stream(shape: &str) {
    let mut screen = Screen::new();
    for turn in 0..TURNS {
        screen.app.handle_agent(AgentEvent::TurnStarted { prompt: format!("write {shape} {turn}") });
        let mut reply = String::new();
        for i in 0..CHUNKS {
            let chunk = shape_chunk(shape, i);
            reply.push_str(&chunk);
            screen.app.handle_agent(AgentEvent::saying(chunk));
            if (i + 1) % EVERY == 0 {
                screen.frame();
            }
        }
        reply.push_str("\n\nEND-OF-SHAPE\n");
        screen.app.handle_agent(AgentEvent::saying("\n\nEND-OF-SHAPE\n"));
        screen.app.handle_agent(AgentEvent::TurnFinished { reply, end: TurnEnd::Done });
        screen.frame();
    }
}

/// Streams the ~1 MB mixed reply (`common::one_megabyte_text`) in 32-byte deltas with a frame
/// every 88 of them, as the TUI draws it arriving 1 ms apart (the e2e bench's paced stub row:
/// ~360 frames).
fn stream_reply() {
    let mut screen = Screen::new();
    screen.app.handle_agent(AgentEvent::TurnStarted { prompt: "write a long reply".into() });
    let text = common::one_megabyte_text();
    for (i, delta) in pieces(&text, 32).enumerate() {
        screen.app.handle_agent(AgentEvent::saying(delta));
        if (i + 1) % 88 == 0 {
            screen.frame();
        }
    }
    screen.app.handle_agent(AgentEvent::TurnFinished { reply: text, end: TurnEnd::Done });
    screen.frame();
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is ignored too.
    match std::env::var("SHAPE").as_deref() {
        Ok("reply") => return stream_reply(),
        Ok(shape) => return stream(shape),
        Err(_) => {}
    }
    let runs: usize = std::env::var("SHAPE_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let mut baseline = None;
    for shape in SHAPES {
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                stream(shape);
                started.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = times[runs / 2];
        let base = *baseline.get_or_insert(median);
        println!(
            "shape {shape:>10}: {:7.2} ms for {TURNS} turns of {CHUNKS} chunks, a frame every {EVERY} (median of {runs}), {:.2}x paragraphs",
            median * 1000.0,
            median / base
        );
    }
}
