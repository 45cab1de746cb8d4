//! Property tests of the TUI's caches against the slow paths they replace: a pane's reused
//! cells (`pane_cache`) against drawing it again, the highlight cache against highlighting
//! again, and `HeldText` against applying each delta as it came.

use elelem::agent::output::{AgentEvent, Delta, TurnEnd};
use elelem::tui::app::App;
use elelem::tui::highlight::{CodeColors, Highlighter};
use elelem::tui::runtime::held_text::HeldText;
use elelem::tui::text::pane_cache::{DrawnCells, Part};
use elelem::tui::text::theme::Theme;
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use std::time::Instant;

/// A drawing that depends only on `key`: a pattern of symbols and colours over the area.
fn pattern(key: (u8, u8), buf: &mut Buffer) {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let n = u32::from(key.0) * 7 + u32::from(x) * 3 + u32::from(y) * 5;
            let symbol = ["#", "·", "a", "─", "│"][(n % 5) as usize];
            let colour = Color::Indexed(key.1.wrapping_add((n % 3) as u8));
            buf[(x, y)].set_symbol(symbol).set_style(Style::default().fg(colour));
        }
    }
}

/// What a frame shows without the cache: the pane drawn into a blank buffer of its area and
/// put onto the (freshly reset) screen, all of it or only its edges.
fn direct(screen: Rect, key: (u8, u8), area: Rect, part: Part) -> Buffer {
    let mut buf = Buffer::empty(screen);
    let area = area.intersection(screen);
    if area.is_empty() {
        return buf;
    }
    let mut drawn = Buffer::empty(area);
    pattern(key, &mut drawn);
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let edge = y == area.top() || y + 1 == area.bottom() || x == area.left() || x + 1 == area.right();
            if part == Part::All || edge {
                buf[(x, y)] = drawn[(x, y)].clone();
            }
        }
    }
    buf
}

fn frame_strategy() -> impl Strategy<Value = ((u8, u8), (u16, u16, u16, u16), bool)> {
    ((0u8..3, 0u8..2), (0u16..12, 0u16..8, 0u16..14, 0u16..10), any::<bool>())
}

/// Events of a conversation: prompts, streamed thinking and reply text, tool calls, turn ends.
fn conversation() -> impl Strategy<Value = Vec<(u8, String)>> {
    prop::collection::vec((0u8..7, "[a-z *`#\\n-]{0,40}"), 1..40)
}

fn event(kind: u8, text: &str, i: usize) -> AgentEvent {
    let call = || elelem::protocol::ToolCall {
        id: format!("t{i}"),
        name: "read".into(),
        arguments: serde_json::json!({"path": "src/main.rs"}),
    };
    match kind {
        0 => AgentEvent::TurnStarted { prompt: format!("prompt {text}") },
        1 => AgentEvent::thinking(text),
        2 | 3 => AgentEvent::saying(text),
        4 => AgentEvent::ToolStarted { call: call(), summary: "src/main.rs".into() },
        5 => AgentEvent::ToolFinished { call: call(), result: serde_json::json!({"content": text}).into() },
        _ => AgentEvent::TurnFinished { reply: text.into(), end: TurnEnd::Done },
    }
}

/// Applies `events` (keys typed into the prompt on the way), drawing a frame after every
/// `every` of them when `every > 0`; returns the last frame.
fn run_app(events: &[(u8, String)], keys: &str, every: usize, area: Rect, now: Instant) -> Buffer {
    let mut app = App::new(Theme::new(true), "stub", "stub-demo", vec![], vec![]);
    let mut buf = Buffer::empty(area);
    let mut keys = keys.chars();
    for (i, (kind, text)) in events.iter().enumerate() {
        app.handle_agent(event(*kind, text, i / 2));
        if i % 3 == 0 {
            if let Some(c) = keys.next() {
                app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
            }
        }
        if every > 0 && i % every == 0 {
            buf.reset();
            app.render(area, &mut buf, now);
        }
    }
    // Finish the turn, so nothing on screen depends on how long it ran.
    app.handle_agent(AgentEvent::TurnFinished { reply: String::new(), end: TurnEnd::Done });
    buf.reset();
    app.render(area, &mut buf, now);
    buf
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Frame after frame, with keys and areas changing at random, the cells a `DrawnCells`
    /// puts on screen are the ones drawing the pane again would.
    #[test]
    fn reused_cells_equal_drawing_again(frames in prop::collection::vec(frame_strategy(), 1..30)) {
        let screen = Rect::new(0, 0, 16, 12);
        let mut all = DrawnCells::default();
        let mut edges = DrawnCells::default();
        for (key, (x, y, w, h), edge) in frames {
            let area = Rect::new(x, y, w, h);
            let (cache, part) = if edge { (&mut edges, Part::Edges) } else { (&mut all, Part::All) };
            let mut buf = Buffer::empty(screen);
            cache.draw(key, area, part, &mut buf, |cells| pattern(key, cells));
            prop_assert_eq!(buf, direct(screen, key, area, part), "key {:?} at {:?}", key, area);
        }
    }

    /// The whole screen after a conversation is the same whether every frame along the way
    /// was drawn (panes reusing their cells) or only the last one (everything drawn anew).
    #[test]
    fn a_frame_with_reused_cells_equals_one_drawn_anew(
        events in conversation(),
        keys in "[a-z ]{0,12}",
        every in 1usize..4,
        width in 40u16..100,
        height in 12u16..30,
    ) {
        let area = Rect::new(0, 0, width, height);
        let now = Instant::now();
        let cached = run_app(&events, &keys, every, area, now);
        let fresh = run_app(&events, &keys, 0, area, now);
        prop_assert_eq!(cached, fresh);
    }

    /// The highlight cache never serves one input's lines for another: after highlighting a
    /// set of blocks that differ in code, language, colour or theme in any order (and again),
    /// each cached result equals highlighting that input from scratch.
    #[test]
    fn cached_highlights_equal_highlighting_again(
        inputs in prop::collection::vec(
            (
                prop::sample::select(vec!["fn a() {}\n", "fn a() {}", "x = 1\n", "let s = \"é\";\n\tb();\n", "", "\n", "SELECT 1;"]),
                prop::sample::select(vec!["rust", "python", "", "sql", "nosuchlang", "rs"]),
                any::<bool>(),
                any::<bool>(),
            ),
            1..24,
        ),
    ) {
        let highlighter = Highlighter::default();
        for round in 0..2 {
            for (code, lang, color, light) in &inputs {
                let colors = CodeColors { color: *color, light: *light };
                let cached = highlighter.code(code, lang, colors);
                let again = Highlighter::default().uncached(code, lang, colors);
                prop_assert_eq!(&*cached, &again, "round {}: {:?} in {:?}, colour {}, light {}", round, code, lang, color, light);
            }
        }
    }

    /// Whatever the chunking of the deltas and whenever frames (releases) and other events
    /// come, what is applied is what was sent, in order (nothing merged, nothing lost).
    #[test]
    fn held_text_releases_what_was_sent_in_order(
        sent in prop::collection::vec((0u8..5, "[a-zé漢 \\n]{0,12}", any::<bool>()), 0..60),
    ) {
        let mut held = HeldText::default();
        let mut applied = Vec::new();
        let mut expected = Vec::new();
        for (kind, text, frame) in &sent {
            let event = match kind {
                0 => AgentEvent::Delta(Delta::Thinking(text.clone())),
                1 | 2 => AgentEvent::Delta(Delta::Saying(text.clone())),
                3 => AgentEvent::Delta(Delta::ToolOutput { id: format!("t{}", text.len() % 2), chunk: text.clone() }),
                _ => AgentEvent::TurnStarted { prompt: text.clone() },
            };
            expected.push(event.clone());
            if let Some(other) = held.hold(event) {
                applied.extend(held.release());
                applied.push(other);
            }
            if *frame {
                applied.extend(held.release());
            }
        }
        applied.extend(held.release());
        prop_assert!(held.is_empty());
        prop_assert_eq!(applied, expected);
    }
}
