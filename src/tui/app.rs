//! `App`: the TUI's state — panes, focus, the running turn's state, token usage, a pending
//! approval (`approval.rs`) — and how agent events change it. Keys are handled in
//! `keys.rs`, drawing in `view.rs`. `App` never talks to the terminal or the agent directly: it returns
//! `Action`s for the event loop to carry out, which keeps it testable with `TestBackend`.

use super::clock::{SharedClock, SystemClock};
use super::composer::Composer;
use super::context_panel::ContextPanel;
use super::history::History;
use super::theme::Theme;
use super::tool_log::ToolLog;
use crate::agent::output::{AgentEvent, Delta, TurnEnd};
use crate::protocol::Usage;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};

/// What the event loop must do after the app handled something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send a line (prompt or slash command) to the agent task.
    Submit(String),
    /// Cancel the running turn.
    Interrupt,
    Quit,
    /// Turn mouse capture on or off.
    SetMouse(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Composer,
    Conversation,
    Tools,
    Context,
}

/// What the agent is doing, for the status line.
#[derive(Clone, Debug, PartialEq)]
pub enum Activity {
    Idle,
    Thinking,
    Responding,
    RunningTool(String),
    Retrying { attempt: u32, max: u32, until: Instant },
    Approving,
}

pub use super::approval::{PendingApproval, APPROVAL_GUARD, APPROVAL_PAUSE};

/// Where each pane was drawn last, for mouse hit-testing.
#[derive(Clone, Copy, Debug, Default)]
pub struct PaneRects {
    pub conversation: Rect,
    pub tools: Rect,
    pub context: Option<Rect>,
    pub composer: Rect,
}

pub struct App {
    pub theme: Theme,
    pub history: History,
    pub tools: ToolLog,
    pub context: ContextPanel,
    pub composer: Composer,
    /// The `@` file picker over the working directory's files.
    pub files: super::file_picker::FilePicker,
    pub focus: Focus,
    pub show_context: bool,
    pub provider: String,
    pub model: String,
    pub activity: Activity,
    /// A turn is running (between TurnStarted and TurnFinished).
    pub busy: bool,
    /// Lines submitted while busy, not yet started.
    pub queued: usize,
    /// Prompts sent with long pastes, (sent text, text with placeholders), until their turn
    /// starts and shows them collapsed.
    pub pasted_prompts: std::collections::VecDeque<(String, String)>,
    /// Tokens of the whole session, and of the running (or last) turn.
    pub usage: Usage,
    pub turn_usage: Usage,
    /// The latest model call's tokens (the status line shows its share read from cache).
    pub last_call: Usage,
    /// How long the last turn took.
    pub last_turn: Option<Duration>,
    pub approval: Option<PendingApproval>,
    /// When the user last typed a key into the prompt: an approval dialog takes no keys
    /// while they are typing (`approval.rs`).
    pub last_typed: Option<Instant>,
    /// The layout the user chose (split, zoom) and where it is remembered.
    pub prefs: super::prefs::LayoutPrefs,
    pub prefs_path: Option<std::path::PathBuf>,
    /// The terminal has focus (focus events; assumed until told otherwise).
    pub terminal_focused: bool,
    /// How to tell the user a long turn finished while they looked away.
    pub notify_mode: super::notify::NotifyMode,
    /// A notification for the event loop to write to the terminal.
    pub alert: Option<String>,
    /// When the running turn started.
    pub turn_started: Option<Instant>,
    /// Ctrl+R's history search, while open.
    pub search: Option<super::reverse_search::ReverseSearch>,
    /// The help overlay, while open.
    pub help: Option<super::help::HelpOverlay>,
    pub yolo: bool,
    pub mouse: bool,
    pub quit: bool,
    pub last_ctrl_c: Option<Instant>,
    /// `/clear` was typed once: Enter again (the composer holds it) clears, anything else
    /// cancels. The status line asks meanwhile.
    pub confirm_clear: bool,
    /// A short message for the status line, and when it expires.
    pub notice: Option<(String, Instant)>,
    /// The notice is about the running turn (an approval's answer): it goes when the turn
    /// ends or the next question opens, whatever its time left.
    pub notice_of_turn: bool,
    pub rects: PaneRects,
    /// When the app started: the clock the status spinner turns by.
    pub started: Instant,
    /// Where "now" comes from for elapsed times and animation.
    pub clock: SharedClock,
    /// Cancels the running turn; set once the session is ready.
    pub interrupter: Option<crate::agent::Interrupter>,
    /// Sequences for the terminal itself (OSC 52 clipboard), written before the next frame.
    pub terminal_writes: Vec<String>,
}

/// Said at start while the app captures the mouse (clicks and the wheel only).
pub const SELECT_TEXT: &str =
    "to select text: Shift-drag (the terminal's own selection), or /mouse to release the mouse";

/// How long a second Ctrl+C counts as "twice".
pub const DOUBLE_CTRL_C: Duration = Duration::from_millis(1500);

impl App {
    pub fn new(
        theme: Theme,
        provider: &str,
        model: &str,
        commands: Vec<(String, String)>,
        history: Vec<String>,
    ) -> Self {
        // The app renders on this thread: its code blocks take the theme's syntax colours.
        super::highlight::use_light(theme.light);
        App {
            theme,
            history: History::themed(theme),
            tools: ToolLog::default(),
            context: ContextPanel::default(),
            composer: Composer::new(commands, history),
            files: super::file_picker::FilePicker::new(std::env::current_dir().ok()),
            focus: Focus::Composer,
            show_context: false,
            provider: provider.to_string(),
            model: model.to_string(),
            activity: Activity::Idle,
            busy: false,
            queued: 0,
            pasted_prompts: std::collections::VecDeque::new(),
            usage: Usage::default(),
            turn_usage: Usage::default(),
            last_call: Usage::default(),
            last_turn: None,
            approval: None,
            last_typed: None,
            help: None,
            search: None,
            terminal_focused: true,
            notify_mode: super::notify::NotifyMode::Bell,
            alert: None,
            turn_started: None,
            prefs: super::prefs::LayoutPrefs::default(),
            prefs_path: None,
            yolo: false,
            mouse: true,
            quit: false,
            last_ctrl_c: None,
            confirm_clear: false,
            notice: None,
            notice_of_turn: false,
            rects: PaneRects::default(),
            started: Instant::now(),
            clock: std::sync::Arc::new(SystemClock),
            interrupter: None,
            terminal_writes: Vec::new(),
        }
    }

    /// The session is built: show what it runs on and offer its commands and history.
    pub fn ready(&mut self, ready: super::channel::Ready, banner: &str) {
        self.provider = ready.provider;
        self.model = ready.model;
        self.composer.set_commands_and_history(ready.commands, ready.history);
        self.interrupter = Some(ready.interrupter);
        self.files.start();
        let notice = format!("{banner} · {} · {} · ? for help", self.provider, self.model);
        self.history.push(super::cells::CellKind::Notice(notice));
        if self.mouse {
            self.history.push(super::cells::CellKind::Notice(SELECT_TEXT.into()));
        }
    }

    /// Runs the app on `clock` (tests use a `ManualClock`); set before any tool runs.
    pub fn set_clock(&mut self, clock: SharedClock) {
        self.started = clock.now();
        self.tools = ToolLog::new(clock.clone());
        self.clock = clock;
    }

    /// A turn ended: a long one, finished while the user looked elsewhere, rings or
    /// notifies (`notify.rs`).
    fn turn_finished(&mut self) {
        let Some(started) = self.turn_started.take() else { return };
        let took = self.clock.now().saturating_duration_since(started);
        self.last_turn = Some(took);
        if !self.terminal_focused && took >= super::notify::NOTIFY_AFTER {
            self.alert = self.notify_mode.sequence(&format!("elelem: done after {}s", took.as_secs()));
        }
    }

    /// Something on screen changes with time (spinner, elapsed time, retry countdown, an
    /// approval dialog about to take keys).
    pub fn animating(&self) -> bool {
        self.busy
            || self.tools.running() > 0
            || self.file_popup_waiting()
            || (self.approval.is_some() && !self.approval_armed(self.clock.now()))
    }

    pub fn notify(&mut self, text: impl Into<String>) {
        self.notice = Some((text.into(), Instant::now() + Duration::from_secs(4)));
        self.notice_of_turn = false;
    }

    /// A notice that holds only while the turn (or the question) it is about does.
    pub fn notify_for_turn(&mut self, text: impl Into<String>) {
        self.notify(text);
        self.notice_of_turn = true;
    }

    /// Drops a notice about the turn (it ended, or a new question opened).
    pub fn drop_turn_notice(&mut self) {
        if std::mem::take(&mut self.notice_of_turn) {
            self.notice = None;
        }
    }

    /// What the status line says the agent is doing, from the state: a pending question, a
    /// running tool or turn; idle when none is (a `!command` runs no turn: when it ends,
    /// nothing is left running).
    pub fn current_activity(&self) -> Activity {
        if self.approval.is_some() {
            return Activity::Approving;
        }
        match &self.activity {
            Activity::RunningTool(_) if self.tools.running() > 0 => self.activity.clone(),
            _ if !self.busy => Activity::Idle,
            activity => activity.clone(),
        }
    }

    pub fn handle_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TurnStarted { prompt } => {
                self.busy = true;
                self.turn_started = Some(self.clock.now());
                self.turn_usage = Usage::default();
                self.queued = self.queued.saturating_sub(1);
                self.activity = Activity::Thinking;
                match self.pasted_prompts.iter().position(|(sent, _)| *sent == prompt) {
                    Some(i) => {
                        let (sent, shown) = self.pasted_prompts.remove(i).unwrap_or_default();
                        self.history.user_pasted(&shown, &sent);
                    }
                    None => self.history.user(&prompt),
                }
            }
            AgentEvent::Delta(Delta::Thinking(delta)) => {
                self.activity = Activity::Thinking;
                self.history.thinking(&delta);
            }
            AgentEvent::Delta(Delta::Saying(delta)) => {
                self.activity = Activity::Responding;
                self.history.saying(&delta);
            }
            AgentEvent::ToolStarted { call, summary } => {
                self.activity = Activity::RunningTool(call.name.clone());
                let summary_line = crate::sanitize::sanitize_visible(&summary).replace('\n', " ⏎ ");
                let name = crate::sanitize::sanitize_visible(&call.name);
                let label = format!("#{} {name} {summary_line}", self.tools.next_number());
                self.history.tool_started(&call.id, label.trim_end());
                self.tools.started(&call.id, &call.name, &summary, &call.arguments);
            }
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) => {
                self.history.tool_streamed(&id);
                self.tools.output(&id, &chunk);
            }
            AgentEvent::ToolFinished { call, result } => {
                self.history.tool_finished(&call.id, &result);
                self.tools.finished(&call.id, &result);
                self.activity = if self.busy { Activity::Thinking } else { Activity::Idle };
            }
            AgentEvent::Usage(usage) => {
                for total in [&mut self.usage, &mut self.turn_usage] {
                    total.add(&usage);
                }
                self.last_call = usage;
            }
            AgentEvent::Retrying { attempt, max, delay, reason } => {
                self.activity = Activity::Retrying { attempt, max, until: Instant::now() + delay };
                self.notify(reason);
            }
            AgentEvent::ProviderChanged { provider, model } => {
                self.provider = provider;
                self.model = model;
            }
            AgentEvent::Context(snapshot) => self.context.set(snapshot),
            AgentEvent::Info(text) => {
                self.history.close();
                self.history.push(super::cells::CellKind::Info(text));
            }
            AgentEvent::Warning(text) => self.notify(text),
            AgentEvent::Error(text) => {
                self.history.close();
                self.history.push(super::cells::CellKind::Error(format!("Error: {text}")));
            }
            AgentEvent::TurnFinished { end, .. } => {
                self.busy = false;
                self.drop_turn_notice();
                self.turn_finished();
                self.activity = Activity::Idle;
                self.history.close();
                if end == TurnEnd::Interrupted {
                    self.history.push(super::cells::CellKind::Notice("⏹ interrupted".into()));
                }
            }
            AgentEvent::Cleared => self.history.clear(),
            AgentEvent::Exit => self.quit = true,
            AgentEvent::Clipboard(text) => self.terminal_writes.push(crate::clipboard::osc52(&text)),
        }
    }
}
