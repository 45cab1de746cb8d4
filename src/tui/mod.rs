//! The full-screen terminal UI. One UI task runs a `tokio::select!` over terminal events
//! (first), signals, the frame scheduler and agent events; the session (agent loop) runs in a
//! background task and talks to the UI over channels (see `runtime/channel.rs`).
//!
//! Where things are: `app.rs` (`App`, the one owner of the panes and popups), `keys.rs`
//! (who gets a key); `intent.rs` (what a pane or popup asks `App` to do); `regions.rs`
//! (where the panes go); `panes/`, `popups/`; `text/` and `wrap.rs`, `markdown/`,
//! `highlight/` (how text is drawn); `runtime/` (the loop's plumbing).

mod actions;
pub mod app;
pub mod highlight;
pub mod intent;
pub mod keys;
pub mod markdown;
pub mod panes;
pub mod popups;
pub mod regions;
pub mod runtime;
pub mod text;
mod typing;
pub mod wrap;

use crate::signals::{Stop, Stops};
use crate::startup::{banner, build_recorded_session, Options};
use crate::tui::runtime::welcome::Welcome;
use actions::carry_out;
use app::{Action, App};
use futures::StreamExt;
use panes::prompt::prompt_history;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use runtime::channel::{self, ChannelApprover, ChannelInput, ChannelOutput, Ready, UiMessage};
use runtime::held_text::HeldText;
use runtime::scheduler::FrameScheduler;
use runtime::terminal::Term;
use runtime::terminal_input::TerminalInput;
use runtime::{background_query, notify, prefs, terminal};
use std::sync::Arc;
use text::{background, theme};
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};

/// How the TUI starts.
#[derive(Clone, Debug)]
pub struct TuiOptions {
    pub mouse: bool,
    pub color: bool,
    pub yolo: bool,
    /// `--theme`; `None` leaves it to `ELELEM_THEME` and the terminal (`text/background.rs`).
    pub theme: Option<background::ThemeChoice>,
    /// Sent as the first prompt once the session is ready (`elelem "prompt"`).
    pub first_prompt: Option<String>,
    /// Open the resume picker at start (`elelem --resume` without an id).
    pub pick_session: bool,
}

/// Agent messages handled per batch before the UI looks at input again.
const BATCH: usize = 4096;
/// Redraw cadence while something animates (spinner, elapsed time).
const TICK: Duration = Duration::from_millis(100);

/// The terminal's input (`runtime/terminal_input/`).
type Input = TerminalInput;

/// A new reader of the terminal's input.
fn terminal_input() -> std::io::Result<Input> {
    TerminalInput::start(Vec::new())
}

/// Runs the full-screen app until the user quits (`None`) or a signal stops it (its
/// conventional exit status). Either way the terminal is restored and every process a tool
/// started is killed.
///
/// The first frame is drawn before anything that can wait: the session (whose default
/// provider may probe a local Ollama), the plugins and the input history are built on a
/// blocking thread afterwards, and lines typed meanwhile queue until it is ready.
pub async fn run(options: &Options, tui: TuiOptions) -> anyhow::Result<Option<u8>> {
    // Listening before the terminal changes modes: a stop signal that came between the
    // first frame and the loop would otherwise end the process with the screen as drawn.
    let mut stops = Stops::new(true)?;
    let guard = terminal::TerminalGuard::enter(tui.mouse)?;
    guard.install_panic_hook();
    // In raw mode and before the key reader exists, so the answer is neither echoed nor
    // read as keys. What was read meanwhile goes to the key reader (keys typed ahead); an
    // answer later than the first frame's short wait comes through it (`background_query.rs`).
    // Read once: the theme it saved counts before the first frame, the app keeps the rest.
    let mut layout = prefs::LayoutPrefs::path().map(|path| {
        let prefs = prefs::LayoutPrefs::load(&path);
        (path, prefs)
    });
    let mut choice = background::choice(tui.theme, layout.as_ref().and_then(|(_, prefs)| prefs.theme));
    let (mut read_before, mut osc11) = (Vec::new(), None);
    if let Some(mut query) = (choice == background::ThemeChoice::Auto).then(background_query::Query::send).flatten() {
        query.wait();
        osc11 = query.osc11().map(<[u8]>::to_vec);
        read_before = query.into_read();
    }
    let mut theme = theme::Theme { color: tui.color, light: background::choose_light(choice, osc11.as_deref()) };
    let mut term = new_terminal(&guard)?;
    let mut options = options.clone();
    let mut first_prompt = tui.first_prompt.clone();
    let mut mouse = tui.mouse;
    let mut pick = tui.pick_session;
    // One session at a time; the resume picker's choice stops it and starts the chosen one
    // on the same screen.
    let (result, resumable) = loop {
        let mut app = new_app(&options, &tui, theme, mouse, layout.take());
        app.set_theme_choice(choice);
        let (ui_tx, mut ui_rx) = mpsc::unbounded_channel();
        let (line_tx, line_rx) = mpsc::unbounded_channel();
        if std::mem::take(&mut pick) {
            let cwd = std::env::current_dir().unwrap_or_default();
            app.open_resume(crate::startup::sessions_in(&cwd));
        }
        draw(&mut term, &mut app)?;
        let new_session = runtime::new_session::NewSession::default();
        // Streamed text comes when the frame scheduler grants it: its clock is the only one
        // on the screen (`runtime/scheduler.rs`).
        let demand = crate::startup::Demand::default();
        let session_options = Options { pace: Some(crate::startup::Pace::Asked(demand.clone())), ..options.clone() };
        let agent = tokio::spawn(start_session(session_options, ui_tx, line_rx, new_session.clone()));
        if let Some(prompt) = first_prompt.take().filter(|p| !p.trim().is_empty()) {
            // Queued like a line typed before the session is ready: it runs first.
            for action in app.run_line(&prompt) {
                if let Action::Submit(line) = action {
                    if !line.starts_with('/') {
                        prompt_history::append(&line);
                    }
                    let _ = line_tx.send(line);
                }
            }
        }
        let input = std::mem::take(&mut read_before);
        let scheduler = FrameScheduler::granting(demand);
        let result = event_loop(&mut term, &mut app, &mut ui_rx, &line_tx, &mut stops, input, scheduler).await;
        // A late answer or `/theme` may have changed the palette, keys the layout; the next
        // session keeps them.
        (theme, choice, layout) = (app.theme(), app.theme_choice(), app.layout_prefs());
        app.interrupt();
        let resumable = app.resumable();
        drop(line_tx);
        agent.abort();
        // The session (and its file's lock) is gone before another starts.
        let _ = agent.await;
        match (&result, app.take_resume()) {
            (Ok(None), Some(id)) => {
                if options.session == crate::startup::SessionChoice::New {
                    new_session.abandon();
                }
                options.session = crate::startup::SessionChoice::Resume(id);
                mouse = app.mouse();
            }
            _ => break (result, resumable),
        }
    };
    drop(term);
    drop(guard);
    crate::startup::shutdown();
    if resumable && result.is_ok() {
        print_resume_hint();
    }
    result.map(|stop| stop.map(Stop::exit_status))
}

/// The app for one session, before it is ready.
fn new_app(options: &Options, tui: &TuiOptions, theme: theme::Theme, mouse: bool, layout: Option<Layout>) -> App {
    let placeholder = options.provider.clone().unwrap_or_else(|| "…".into());
    let mut app = App::new(theme, &placeholder, "", local_commands(), Vec::new());
    app.set_yolo(tui.yolo);
    app.set_mouse(mouse);
    app.set_notify_mode(notify::NotifyMode::from_env());
    if let Some((path, prefs)) = layout {
        app.use_layout_prefs(path, prefs);
    }
    app
}

/// The saved layout (`tui.json`) and where it is saved.
type Layout = (std::path::PathBuf, prefs::LayoutPrefs);

/// On the normal screen, once the app is gone: how to come back to this session.
fn print_resume_hint() {
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(id) = crate::startup::latest_session_id(&cwd) {
        println!("Resume this session with `elelem --continue` (or `elelem --resume {id}`).");
    }
}

/// Commands the UI itself answers.
fn local_commands() -> Vec<(String, String)> {
    vec![
        ("/mouse".into(), "toggle mouse capture".into()),
        ("/plan".into(), "show the model's newest plan, done or not".into()),
        ("/theme".into(), "light, dark or auto (the terminal's background); remembered".into()),
        ("/resume".into(), "pick a recorded session of this directory to resume".into()),
    ]
}

/// Builds the session off the UI thread, tells the UI it is ready, then runs it.
async fn start_session(
    options: Options,
    ui_tx: mpsc::UnboundedSender<UiMessage>,
    line_rx: mpsc::UnboundedReceiver<String>,
    new_session: runtime::new_session::NewSession,
) {
    let output = Arc::new(ChannelOutput(ui_tx.clone()));
    let editor = Arc::new(channel::ChannelEditor(ui_tx.clone()));
    let approver = Arc::new(ChannelApprover(ui_tx.clone()));
    // The trust question comes before the session is built, so what it sets up and says
    // (hooks, plugin files, MCP servers, the welcome's counts) follows the answer.
    let mut options = options;
    let trust = match crate::startup::trust_question(&options) {
        Some(question) => Some(question.answer(approver.as_ref()).await),
        None => None,
    };
    options.trust |= trust.as_ref().is_some_and(|answered| answered.trusted());
    let waiting_tx = ui_tx.clone();
    let jobs = options.jobs.clone();
    let built = tokio::task::spawn_blocking(move || {
        let input = Box::new(ChannelInput { lines: line_rx, ui: waiting_tx });
        let (session, id) = build_recorded_session(&options, output, input, approver)?;
        new_session.recorded(id);
        let welcome = welcome(&options, &session);
        Ok::<_, anyhow::Error>((session, prompt_history::load(), welcome))
    })
    .await;
    let (mut session, history, welcome) = match built {
        Ok(Ok(built)) => built,
        Ok(Err(error)) => {
            let _ = ui_tx.send(UiMessage::Failed(error));
            return;
        }
        Err(error) => {
            let _ = ui_tx.send(UiMessage::Failed(anyhow::anyhow!("starting the session failed: {error}")));
            return;
        }
    };
    let mut commands: Vec<(String, String)> =
        session.commands().list().map(|c| (format!("/{}", c.name), c.description.clone())).collect();
    commands.extend(local_commands());
    commands.sort();
    let ready = Ready {
        jobs,
        mode: session.mode(),
        interrupter: session.interrupter().clone(),
        provider: session.provider().name().to_string(),
        model: session.provider().model().to_string(),
        commands,
        history,
        welcome,
    };
    session.set_editor(editor);
    let _ = ui_tx.send(UiMessage::Ready(Box::new(ready)));
    session.publish_context();
    if let Some(answered) = trust {
        answered.tell(&session);
    }
    session.run().await;
}

/// What the first screen's welcome says about this start.
fn welcome(options: &Options, session: &crate::agent::session::Session) -> Welcome {
    let cwd = std::env::current_dir().unwrap_or_default();
    let configured = crate::startup::configured(options, &cwd);
    Welcome {
        provider: session.provider().name().to_string(),
        model: session.provider().model().to_string(),
        asked: options.provider.is_some(),
        instructions: {
            // Named from the working directory as the files are found (links resolved).
            let base = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
            let files: Vec<String> =
                crate::instructions::files_for(&cwd).iter().map(|path| Welcome::instructions_at(path, &base)).collect();
            (!files.is_empty()).then(|| files.join(", "))
        },
        plugin_files: configured.plugin_files,
        mcp_servers: configured.mcp_servers,
        readme: Welcome::readme_in(&cwd),
        git: Welcome::in_git(&cwd),
    }
}

/// The next answer to the background query, if they are still listened for.
async fn next_answer(answers: &mut Option<mpsc::UnboundedReceiver<Vec<u8>>>) -> Option<Vec<u8>> {
    match answers {
        Some(answers) => answers.recv().await,
        None => std::future::pending().await,
    }
}

async fn event_loop(
    term: &mut Term,
    app: &mut App,
    ui_rx: &mut mpsc::UnboundedReceiver<UiMessage>,
    line_tx: &mpsc::UnboundedSender<String>,
    stops: &mut Stops,
    read_before: Vec<u8>,
    mut scheduler: FrameScheduler,
) -> anyhow::Result<Option<Stop>> {
    let mut events = TerminalInput::start(read_before)?;
    let mut answers = events.take_answers();
    // A size change between the first frame and the reader's SIGWINCH listener is not
    // signalled again.
    let area = screen_area()?;
    if area != term.get_frame().area() {
        term.resize(area)?;
    }
    let mut held = HeldText::default();
    scheduler.request_now(Instant::now());
    loop {
        let animating = app.animating();
        let notice_ends = app.notice_ends().filter(|_| !animating).map(Instant::from_std);
        // In this order: signals, then input, and the frame it asks for next, so a key is
        // handled and drawn before any agent message waiting (a batch of streamed text is
        // never in front of a keystroke); agent messages still go before the next streamed
        // frame. Input is taken a slice at a time (`typing.rs`), so a flood of it never
        // keeps a signal waiting.
        tokio::select! {
            biased;
            stop = stops.next() => return Ok(Some(stop)),
            input = events.next() => match input {
                Some(Ok(input)) => {
                    typing::handle_input(term, app, &mut events, input, line_tx)?;
                    // The keys' frame at once, without the streamed text held since the
                    // last frame: that is laid out at its own slot, not in front of a key.
                    if !app.quitting() {
                        draw(term, app)?;
                        scheduler.drawn(Instant::now(), 0);
                    }
                    if !held.is_empty() {
                        scheduler.request(Instant::now());
                    }
                }
                Some(Err(error)) => return Err(error.into()),
                // The terminal is gone (its input hung up): as on SIGHUP, which may follow.
                None => return Ok(Some(Stop::HangUp)),
            },
            answer = next_answer(&mut answers) => match answer {
                // The terminal's background, later than the first frame (or asked again by
                // `/theme auto`): its palette now, unless a palette was chosen.
                Some(answer) => {
                    let light = background::light_from_osc11(&answer).filter(|_| app.follows_terminal());
                    if light.is_some_and(|light| app.set_light(light)) {
                        draw(term, app)?;
                        scheduler.drawn(Instant::now(), 0);
                    }
                }
                None => answers = None,
            },
            _ = scheduler.wait() => {
                for event in held.release() {
                    app.handle_agent(event);
                }
                draw(term, app)?;
                scheduler.drawn(Instant::now(), held.take_text_bytes());
            }
            _ = scheduler.grant_due() => scheduler.grant(Instant::now()),
            message = ui_rx.recv() => {
                let Some(message) = message else { break };
                let mut edits = Vec::new();
                edits.extend(handle_message(app, &mut held, message, line_tx)?);
                for _ in 0..BATCH {
                    match ui_rx.try_recv() {
                        Ok(message) => edits.extend(handle_message(app, &mut held, message, line_tx)?),
                        Err(_) => break,
                    }
                }
                for (text, reply) in edits {
                    let (edited, fresh) = edit_outside(term, app, events, text).await?;
                    events = fresh;
                    let _ = reply.send(edited);
                }
                scheduler.request(Instant::now());
            }
            _ = tokio::time::sleep(TICK), if animating => scheduler.request(Instant::now()),
            _ = sleep_until_some(notice_ends), if notice_ends.is_some() => scheduler.request(Instant::now()),
        }
        if app.quitting() {
            break;
        }
    }
    Ok(None)
}

/// Sleeps until `at`; never completes without one.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The full-screen terminal, its size fixed until a resize event says otherwise: ratatui
/// would otherwise ask the terminal's size before every frame (crossterm opens `/dev/tty`
/// to do so, a few syscalls per frame while a reply streams).
fn new_terminal(guard: &terminal::TerminalGuard) -> std::io::Result<Term> {
    let backend = CrosstermBackend::new(terminal::FrameWriter::new(std::io::stdout(), guard.write_lock()));
    let viewport = Viewport::Fixed(screen_area()?);
    Terminal::with_options(backend, TerminalOptions { viewport })
}

/// The whole screen as the terminal reports it now.
fn screen_area() -> std::io::Result<Rect> {
    let (width, height) = crossterm::terminal::size()?;
    Ok(Rect::new(0, 0, width, height))
}

/// An edit request the event loop carries out (it owns the terminal and its events).
type EditRequest = (String, std::sync::mpsc::Sender<anyhow::Result<String>>);

/// Applies one message from the session; streamed text is held for its frame (`HeldText`),
/// and whatever is held is applied before anything else, so the order is kept.
fn handle_message(
    app: &mut App,
    held: &mut HeldText,
    message: UiMessage,
    line_tx: &mpsc::UnboundedSender<String>,
) -> anyhow::Result<Option<EditRequest>> {
    let message = match message {
        UiMessage::Agent(event) => match held.hold(event) {
            None => return Ok(None),
            Some(event) => UiMessage::Agent(event),
        },
        message => message,
    };
    for event in held.release() {
        app.handle_agent(event);
    }
    match message {
        UiMessage::Agent(event) => app.handle_agent(event),
        UiMessage::Approval(request, reply) => app.ask(request, reply),
        UiMessage::Ready(ready) => app.ready(*ready, &banner(), crate::startup::sandbox_label()),
        UiMessage::Failed(error) => return Err(error),
        UiMessage::Edit(text, reply) => return Ok(Some((text, reply))),
        UiMessage::Waiting => {
            for action in app.session_waiting() {
                carry_out(app, action, line_tx);
            }
        }
    }
    Ok(None)
}

/// Runs the user's editor on `text` with the terminal given back: the event reader stops
/// (it would take the editor's keys), the screen modes are undone, and both come back
/// afterwards (a new reader) with a full redraw.
async fn edit_outside(
    term: &mut Term,
    app: &App,
    events: Input,
    text: String,
) -> anyhow::Result<(anyhow::Result<String>, Input)> {
    drop(events);
    terminal::suspend();
    let edited = tokio::task::spawn_blocking(move || crate::editor::edit(&text))
        .await
        .unwrap_or_else(|e| Err(anyhow::anyhow!("the editor task failed: {e}")));
    terminal::resume(app.mouse())?;
    // The window may have changed size while the editor had it.
    let area = screen_area()?;
    if area != term.get_frame().area() {
        term.resize(area)?;
    }
    // Not `term.clear()`: it asks the terminal where the cursor is, which may not answer.
    ratatui::backend::Backend::clear(term.backend_mut())?;
    term.swap_buffers(); // both buffers blank: the next frame is drawn whole
    Ok((edited, terminal_input()?))
}

/// Draws one frame inside a synchronized update, so the terminal never shows half of it.
fn draw(term: &mut Term, app: &mut App) -> std::io::Result<()> {
    // A panic on another thread restores the terminal only between frames.
    let lock = term.backend().writer().write_lock();
    let _writing = lock.hold();
    if !terminal::active() {
        return Ok(());
    }
    // What the app has for the terminal itself (OSC 52, a notification) goes first, from a
    // key's frame (a copy with the mouse) as from a streamed one (`/copy`).
    for sequence in app.take_terminal_writes() {
        use std::io::Write as _;
        term.backend_mut().write_all(sequence.as_bytes())?;
    }
    use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
    crossterm::queue!(term.backend_mut(), BeginSynchronizedUpdate)?;
    // One write for the whole frame: ratatui's flush at the end of its draw is held.
    term.backend_mut().writer_mut().hold_flushes(true);
    let drawn = term.draw(|frame| app.draw(frame)).map(|_| ());
    term.backend_mut().writer_mut().hold_flushes(false);
    drawn?;
    crossterm::execute!(term.backend_mut(), EndSynchronizedUpdate)?;
    Ok(())
}
