//! Frame cost of the TUI (criterion). Budgets from the TUI issue:
//! - a frame with 2,000 turns and 2,000 tool rows costs within 2x of one with 10 turns;
//! - a keystroke while a reply streams is handled and drawn with a p99 under 5 ms (issue 13),
//!   whether the reply is short paragraphs or one paragraph that keeps growing;
//! - a ~1 MB reply pushed at once, then the bottom screen drawn, and a width change of it then
//!   the bottom screen drawn, each within a frame (16 ms; issue 13).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use elelem::agent::output::{AgentEvent, TurnEnd};
use elelem::protocol::ToolCall;
use elelem::tui::app::App;
use elelem::tui::text::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;
use common::one_megabyte_text;

const REPLY: &str = "## Result\n\nThe change is **done**: `cargo test` passes.\n\n- first point\n- second point\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nA closing paragraph that is long enough to wrap at least once on an ordinary terminal width.\n";

fn app_with_turns(turns: usize) -> App {
    let mut app = App::new(Theme::new(true), "stub", "stub-demo", vec![], vec![]);
    for i in 0..turns {
        let call = ToolCall { id: format!("t{i}"), name: "read".into(), arguments: json!({"path": "src/main.rs"}) };
        for event in [
            AgentEvent::TurnStarted { prompt: format!("question number {i}") },
            AgentEvent::thinking("Let me look at the file first.\nThen answer."),
            AgentEvent::ToolStarted { call: call.clone(), summary: "src/main.rs".into() },
            AgentEvent::ToolFinished { call, result: json!({"content": "fn main() {}"}).into() },
            AgentEvent::saying(REPLY),
            AgentEvent::TurnFinished { reply: REPLY.into(), end: TurnEnd::Done },
        ] {
            app.handle_agent(event);
        }
    }
    app
}

fn render(app: &mut App, buf: &mut Buffer, area: Rect, now: Instant) {
    buf.reset();
    app.render(area, buf, now);
}

fn frames(c: &mut Criterion) {
    let area = Rect::new(0, 0, 120, 40);
    let now = Instant::now();
    for turns in [10, 2000] {
        let mut app = app_with_turns(turns);
        let mut buf = Buffer::empty(area);
        render(&mut app, &mut buf, area, now); // first frame measures everything once
        c.bench_function(&format!("frame_following_{turns}_turns"), |b| {
            b.iter(|| render(black_box(&mut app), &mut buf, area, now))
        });
        // Scrolled up at least 5,000 rows, a page (PgUp) at a time.
        let page = app.view().conversation_rows.saturating_sub(2).max(1);
        for _ in 0..5000usize.div_ceil(page) {
            app.handle_key(KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE));
        }
        render(&mut app, &mut buf, area, now);
        c.bench_function(&format!("frame_scrolled_up_{turns}_turns"), |b| {
            b.iter(|| render(black_box(&mut app), &mut buf, area, now))
        });
    }
}

fn keystroke_while_streaming(c: &mut Criterion) {
    let area = Rect::new(0, 0, 120, 40);
    let now = Instant::now();
    let mut app = app_with_turns(2000);
    app.handle_agent(AgentEvent::TurnStarted { prompt: "stream".into() });
    let mut buf = Buffer::empty(area);
    let mut n = 0u64;
    c.bench_function("keystroke_and_delta_to_frame_2000_turns", |b| {
        b.iter(|| {
            n += 1;
            app.handle_agent(AgentEvent::saying(format!("word{n} ")));
            app.handle_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
            render(&mut app, &mut buf, area, now);
        })
    });
    // The budget is on the tail, so report p99 of single keystrokes while deltas stream in:
    // a new paragraph every 50 deltas, as a model writes, and one paragraph that never ends
    // (the open block grows all the time).
    for (label, every) in [("short paragraphs", 50), ("one long paragraph", u32::MAX)] {
        app.handle_agent(AgentEvent::saying("\n\n"));
        let mut times = Vec::with_capacity(4000);
        for i in 0..4000u32 {
            let delta = if i % every == every - 1 { "\n\n".to_string() } else { format!("word{i} ") };
            app.handle_agent(AgentEvent::saying(delta));
            let started = Instant::now();
            app.handle_key(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE));
            render(&mut app, &mut buf, area, now);
            times.push(started.elapsed());
        }
        times.sort();
        println!(
            "keystroke to frame while streaming {label} (4,000 samples): p50 {:?}, p99 {:?}, max {:?} (budget p99 < 5 ms)",
            times[2000], times[3960], times[3999]
        );
    }
}

fn one_megabyte_reply(c: &mut Criterion) {
    let text = one_megabyte_text();
    let now = Instant::now();
    let (wide, narrow) = (Rect::new(0, 0, 120, 40), Rect::new(0, 0, 100, 40));
    let fresh = || {
        let mut app = App::new(Theme::new(true), "stub", "stub-demo", vec![], vec![]);
        app.handle_agent(AgentEvent::TurnStarted { prompt: "write a long reply".into() });
        app
    };
    let mut buf = Buffer::empty(wide);
    c.bench_function("push_1mb_at_once_then_draw_bottom", |b| {
        b.iter_batched(
            || (fresh(), text.clone()),
            |(mut app, text)| {
                app.handle_agent(AgentEvent::saying(text));
                render(&mut app, &mut buf, wide, now);
                app
            },
            BatchSize::PerIteration,
        )
    });
    let mut app = fresh();
    app.handle_agent(AgentEvent::saying(text.clone()));
    app.handle_agent(AgentEvent::TurnFinished { reply: text, end: TurnEnd::Done });
    render(&mut app, &mut buf, wide, now);
    let mut area = wide;
    c.bench_function("width_change_of_1mb_reply_then_draw_bottom", |b| {
        b.iter(|| {
            area = if area == wide { narrow } else { wide };
            render(black_box(&mut app), &mut buf, area, now);
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = frames, keystroke_while_streaming, one_megabyte_reply
}
criterion_main!(benches);
