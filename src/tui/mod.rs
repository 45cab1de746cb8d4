//! The full-screen terminal UI. One UI task runs a fair `tokio::select!` over terminal
//! events, agent events and the frame scheduler; the session (agent loop) runs in a
//! background task and talks to the UI over channels (see `channel.rs`).

pub mod app;
pub mod cells;
pub mod channel;
pub mod clock;
pub mod composer;
pub mod context_panel;
pub mod highlight;
pub mod highlight_stream;
pub mod history;
pub mod keys;
pub mod markdown;
pub mod prompt_history;
pub mod rows;
pub mod scheduler;
pub mod terminal;
pub mod theme;
pub mod tool_log;
pub mod view;
pub mod wrap;

use crate::agent::session::Interrupter;
use crate::startup::{banner, build_session, Options};
use app::{Action, App};
use channel::{ChannelApprover, ChannelInput, ChannelOutput, UiMessage};
use crossterm::event::{Event, EventStream};
use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use scheduler::FrameScheduler;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};

/// How the TUI starts.
#[derive(Clone, Copy, Debug)]
pub struct TuiOptions {
    pub mouse: bool,
    pub color: bool,
    pub yolo: bool,
}

/// Agent messages handled per batch before the UI looks at input again.
const BATCH: usize = 4096;
/// Redraw cadence while something animates (spinner, elapsed time).
const TICK: Duration = Duration::from_millis(100);

/// Frames are written through one buffer and flushed once, so a frame is one `write`.
type Term = Terminal<CrosstermBackend<std::io::BufWriter<std::io::Stdout>>>;

/// Runs the full-screen app until the user quits.
pub async fn run(options: &Options, tui: TuiOptions) -> anyhow::Result<()> {
    let (ui_tx, mut ui_rx) = mpsc::unbounded_channel();
    let (line_tx, line_rx) = mpsc::unbounded_channel();
    let output = Arc::new(ChannelOutput(ui_tx.clone()));
    let approver = Arc::new(ChannelApprover(ui_tx.clone()));
    let mut session = build_session(options, output, Box::new(ChannelInput(line_rx)), approver)?;
    let mut commands: Vec<(String, String)> =
        session.commands().list().map(|c| (format!("/{}", c.name), c.description.clone())).collect();
    commands.push(("/mouse".into(), "toggle mouse capture".into()));
    commands.sort();
    let (provider, model) = (session.provider().name().to_string(), session.provider().model().to_string());
    let mut app = App::new(theme::Theme::new(tui.color), &provider, &model, commands, prompt_history::load());
    app.yolo = tui.yolo;
    app.mouse = tui.mouse;
    app.history.push(cells::CellKind::Notice(format!("{} · {provider} · {model} · ? for help", banner())));
    session.publish_context();
    let interrupter = session.interrupter().clone();
    let trust = crate::startup::trust_question(options);
    let agent = tokio::spawn(async move {
        if let Some(question) = trust {
            question.ask(&mut session).await;
        }
        session.run().await
    });

    let guard = terminal::TerminalGuard::enter(tui.mouse)?;
    terminal::install_panic_hook();
    let mut term = Terminal::new(CrosstermBackend::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout())))?;
    let result = event_loop(&mut term, &mut app, &mut ui_rx, &line_tx, &interrupter).await;
    interrupter.interrupt();
    drop(line_tx);
    agent.abort();
    drop(term);
    drop(guard);
    result
}

async fn event_loop(
    term: &mut Term,
    app: &mut App,
    ui_rx: &mut mpsc::UnboundedReceiver<UiMessage>,
    line_tx: &mpsc::UnboundedSender<String>,
    interrupter: &Interrupter,
) -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut events = EventStream::new();
    let mut scheduler = FrameScheduler::default();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = signal(SignalKind::hangup())?;
    scheduler.request_now(Instant::now());
    loop {
        let animating = app.animating();
        tokio::select! {
            _ = scheduler.wait() => {
                draw(term, app)?;
                scheduler.drawn(Instant::now());
            }
            event = events.next() => match event {
                Some(Ok(event)) => {
                    for action in handle_terminal_event(app, event) {
                        match action {
                            Action::Submit(line) => {
                                if !line.starts_with('/') {
                                    prompt_history::append(&line);
                                }
                                let _ = line_tx.send(line);
                            }
                            Action::Interrupt => {
                                interrupter.interrupt();
                            }
                            Action::Quit => app.quit = true,
                            Action::SetMouse(on) => terminal::set_mouse(on),
                        }
                    }
                    scheduler.request_now(Instant::now());
                }
                Some(Err(error)) => return Err(error.into()),
                None => break,
            },
            message = ui_rx.recv() => {
                let Some(message) = message else { break };
                handle_message(app, message);
                for _ in 0..BATCH {
                    match ui_rx.try_recv() {
                        Ok(message) => handle_message(app, message),
                        Err(_) => break,
                    }
                }
                scheduler.request(Instant::now());
            }
            _ = tokio::time::sleep(TICK), if animating => scheduler.request(Instant::now()),
            _ = sigterm.recv() => break,
            _ = sighup.recv() => break,
        }
        if app.quit {
            break;
        }
    }
    Ok(())
}

fn handle_terminal_event(app: &mut App, event: Event) -> Vec<Action> {
    match event {
        Event::Key(key) => app.handle_key(key),
        Event::Paste(text) => {
            app.handle_paste(&text);
            vec![]
        }
        Event::Mouse(mouse) => {
            app.handle_mouse(mouse);
            vec![]
        }
        _ => vec![],
    }
}

fn handle_message(app: &mut App, message: UiMessage) {
    match message {
        UiMessage::Agent(event) => app.handle_agent(event),
        UiMessage::Approval(request, reply) => app.ask(request, reply),
    }
}

/// Draws one frame inside a synchronized update, so the terminal never shows half of it.
fn draw(term: &mut Term, app: &mut App) -> std::io::Result<()> {
    use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
    crossterm::queue!(term.backend_mut(), BeginSynchronizedUpdate)?;
    term.draw(|frame| app.draw(frame))?;
    crossterm::execute!(term.backend_mut(), EndSynchronizedUpdate)?;
    Ok(())
}
