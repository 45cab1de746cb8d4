//! `App`: the TUI's one owner. It holds the panes (conversation, tool log, context panel,
//! prompt, status line), the `@` file picker, the stack of popups open over them
//! (`popups/stack.rs`: help, pickers, history search, the approval and accept-plan dialogs)
//! and the regions they are drawn in, decides which has the keys (`Focus`), applies what
//! they ask for (`Intent`, in `keys.rs`), feeds them the agent's events (`app/agent_events.rs`)
//! and draws them (`app/render.rs`). Each pane and popup keeps its own state and draws
//! itself; none reaches into another. `App` never talks to the terminal or the agent
//! directly: it returns `Action`s for the event loop to carry out, which keeps it testable
//! with `TestBackend`. Its fields are private: the event loop goes through its methods,
//! tests and benches drive it with keys and events and read the screen or `view()`
//! (`app/view.rs`).

mod agent_events;
mod render;
pub mod view;

use super::panes::plan::PlanStrip;
use super::panes::queue::QueueStrip;
use crate::tui::panes::context_panel::ContextPanel;
use crate::tui::panes::conversation::cells::CellKind;
use crate::tui::panes::conversation::history::History;
use crate::tui::panes::prompt::composer::Composer;
use crate::tui::panes::status::Status;
use crate::tui::panes::tool_log::ToolLog;
use crate::tui::popups::file_picker::{FilePicker, Mention};
use crate::tui::popups::stack::{Kind, PopupStack};
use crate::tui::regions::Regions;
use crate::tui::runtime::clock::{SharedClock, SystemClock};
use crate::tui::runtime::notify::NotifyMode;
use crate::tui::text::background::ThemeChoice;
use crate::tui::text::theme::Theme;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

pub use crate::tui::intent::Focus;
pub use crate::tui::popups::approval::{PendingApproval, APPROVAL_GUARD, APPROVAL_PAUSE};
pub use crate::tui::popups::confirm::Confirm;

/// What the event loop must do after the app handled something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A line typed (prompt or slash command): into the input history, and to the agent
    /// task now.
    Submit(String),
    /// A prompt typed while a turn runs: into the input history; it waits in the queue.
    Queued(String),
    /// A queued prompt goes to the agent task now (the session asked for its next line).
    Send(String),
    /// Cancel the running turn.
    Interrupt,
    Quit,
    /// Turn mouse capture on or off.
    SetMouse(bool),
    /// Ask the terminal for its background colour again (`/theme auto`).
    AskBackground,
    /// Text copied in the app (already sent as OSC 52): into tmux's paste buffer too, when
    /// elelem runs in tmux.
    TmuxBuffer(String),
}

pub struct App {
    pub(super) theme: Theme,
    /// What chose the palette (`--theme`, `ELELEM_THEME`, `/theme`): `auto` follows the
    /// terminal's answers.
    pub(super) theme_choice: ThemeChoice,
    pub(super) history: History,
    pub(super) tools: ToolLog,
    pub(super) context: ContextPanel,
    pub(super) composer: Composer,
    pub(super) status: Status,
    /// The model's newest plan, pinned above the prompt.
    pub(super) plan: PlanStrip,
    /// Prompts typed while a turn runs, held until the session asks for its next line.
    pub(super) queue: QueueStrip,
    /// When Esc was last pressed on an empty, idle prompt (a second one soon after opens
    /// the rewind picker).
    pub(super) last_esc: Option<Instant>,
    /// The session asked for its next line and got none yet (the queue was empty or held):
    /// a prompt released from the queue goes at once.
    pub(super) waiting: bool,
    /// A question asked above the prompt (`/clear`, Ctrl+C's "again to quit").
    pub(super) confirm: Option<Confirm>,
    /// The `@` file picker over the working directory's files.
    pub(super) files: FilePicker,
    /// The popups open over the panes; the top one takes keys first.
    pub(super) popups: PopupStack,
    /// The plan the running turn made, for the accept-plan dialog when it ends.
    pub(super) planned: Option<crate::protocol::plan::Plan>,
    /// The prompts of the conversation, oldest first, for the rewind picker; and the lines
    /// sent that have not started yet (a turn's prompt carries notes before them).
    pub(super) prompts: Vec<String>,
    pub(super) sent: VecDeque<String>,
    /// The session chosen in the resume picker, for the event loop to start once this one
    /// is stopped.
    pub(super) resume_to: Option<String>,
    /// The layout the user chose and where the panes were drawn last.
    pub(super) regions: Regions,
    pub(super) focus: Focus,
    /// Prompts sent with long pastes, (sent text, text with placeholders), until their turn
    /// starts and shows them collapsed.
    pub(super) pasted_prompts: VecDeque<(String, String)>,
    /// When the user last typed a key into the prompt: an approval dialog takes no keys
    /// while they are typing (`popups/approval.rs`).
    pub(super) last_typed: Option<Instant>,
    pub(super) last_ctrl_c: Option<Instant>,
    /// The terminal has focus (focus events; assumed until told otherwise).
    pub(super) terminal_focused: bool,
    /// How to tell the user a long turn finished while they looked away.
    pub(super) notify_mode: NotifyMode,
    /// A notification for the event loop to write to the terminal.
    pub(super) alert: Option<String>,
    pub(super) mouse: bool,
    pub(super) quit: bool,
    /// When the app started: the clock the status spinner turns by.
    started: Instant,
    /// Where "now" comes from for elapsed times and animation.
    pub(super) clock: SharedClock,
    /// Cancels the running turn; set once the session is ready.
    interrupter: Option<crate::agent::Interrupter>,
    /// The session's background jobs, read at each frame while the jobs popup is open.
    jobs: crate::startup::JobsView,
    /// The session's mode, once it is ready (Shift+Tab sets it at once).
    pub(super) mode: Option<crate::protocol::mode::SharedMode>,
    /// Sequences for the terminal itself (OSC 52 clipboard), written before the next frame.
    pub(super) terminal_writes: Vec<String>,
}

/// Said at start while the app captures the mouse.
pub const SELECT_TEXT: &str =
    "to copy: drag in the conversation or click a code block's [copy]; Shift-drag: the terminal's own selection";

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
        App {
            theme,
            theme_choice: ThemeChoice::Auto,
            history: History::themed(theme),
            plan: PlanStrip::default(),
            queue: QueueStrip::default(),
            last_esc: None,
            waiting: false,
            confirm: None,
            tools: ToolLog::default(),
            context: ContextPanel::default(),
            composer: Composer::new(commands, history),
            status: Status::new(provider, model),
            files: FilePicker::new(std::env::current_dir().ok()),
            popups: PopupStack::default(),
            planned: None,
            prompts: Vec::new(),
            sent: VecDeque::new(),
            resume_to: None,
            regions: Regions::default(),
            focus: Focus::Composer,
            pasted_prompts: VecDeque::new(),
            last_typed: None,
            last_ctrl_c: None,
            terminal_focused: true,
            notify_mode: NotifyMode::Bell,
            alert: None,
            mouse: true,
            quit: false,
            started: Instant::now(),
            clock: std::sync::Arc::new(SystemClock),
            interrupter: None,
            jobs: Default::default(),
            mode: None,
            terminal_writes: Vec::new(),
        }
    }

    /// The session is built: show what it runs on (`banner`, the `sandbox` mode, provider and
    /// model) and offer its commands and history.
    pub fn ready(&mut self, ready: crate::tui::runtime::channel::Ready, banner: &str, sandbox: String) {
        self.status.set_model(ready.provider, ready.model);
        self.composer.set_commands_and_history(ready.commands, ready.history);
        self.interrupter = Some(ready.interrupter);
        self.mode = Some(ready.mode);
        self.jobs = ready.jobs;
        self.files.start();
        let notice =
            format!("{banner} · {sandbox} · {} · {} · ? for help", self.status.provider(), self.status.model());
        self.history.banner(notice, sandbox);
        if self.mouse {
            self.history.push(CellKind::Notice(SELECT_TEXT.into()));
        }
        self.history.welcome(ready.welcome.lines());
    }

    /// Runs the app on `clock` (tests use a `ManualClock`); set before any tool runs.
    pub fn set_clock(&mut self, clock: SharedClock) {
        self.started = clock.now();
        self.tools = ToolLog::new(clock.clone());
        self.clock = clock;
    }

    /// Something on screen moves with time (spinner, elapsed time, retry countdown, an
    /// approval dialog about to take keys, a question that goes by itself, the jobs popup's
    /// jobs): drawn again every tick. A notice only needs the frame when it goes
    /// (`notice_ends`).
    pub fn animating(&self) -> bool {
        self.status.busy()
            || self.popups.contains(Kind::Jobs)
            || self.confirm.as_ref().is_some_and(|c| c.until().is_some())
            || self.tools.running() > 0
            || self.files.waiting(self.mention())
            || self.popups.arming(self.clock.now(), self.last_typed)
    }

    /// When the notice on the status line goes by itself, if one shows: the one frame it
    /// needs (the event loop wakes then, not every tick).
    pub fn notice_ends(&self) -> Option<std::time::Instant> {
        self.status.notice_ends()
    }

    /// The `@` mention the file picker serves: the prompt's, while it has the keys and no
    /// recall or search is under way.
    pub(super) fn mention(&self) -> Option<Mention> {
        if self.focus != Focus::Composer || self.composer.recalling() || self.popups.contains(Kind::Search) {
            return None;
        }
        self.composer.mention()
    }

    pub fn notify(&mut self, text: impl Into<String>) {
        self.status.notify(text);
    }

    // The event loop's view of the app.

    pub fn set_yolo(&mut self, yolo: bool) {
        self.status.set_yolo(yolo);
    }

    pub fn mouse(&self) -> bool {
        self.mouse
    }

    pub fn set_mouse(&mut self, mouse: bool) {
        self.mouse = mouse;
    }

    pub fn set_notify_mode(&mut self, mode: NotifyMode) {
        self.notify_mode = mode;
    }

    pub fn set_terminal_focused(&mut self, focused: bool) {
        self.terminal_focused = focused;
    }

    /// Uses the layout remembered at `path` and saves changes there.
    pub fn use_layout_prefs(&mut self, path: std::path::PathBuf, prefs: crate::tui::runtime::prefs::LayoutPrefs) {
        self.regions.use_prefs(path, prefs);
    }

    /// The layout as it stands and where it is saved (`tui.json`).
    pub fn layout_prefs(&self) -> Option<(std::path::PathBuf, crate::tui::runtime::prefs::LayoutPrefs)> {
        self.regions.prefs()
    }

    /// The app is done: the event loop ends.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    pub fn set_quit(&mut self) {
        self.quit = true;
    }

    /// The session asks for its next line (it is idle and has none waiting): the oldest
    /// queued prompt goes now, unless an interrupt holds the queue (then it waits for the
    /// user's Enter).
    pub fn session_waiting(&mut self) -> Vec<Action> {
        self.waiting = true;
        self.send_queued()
    }

    /// The oldest queued prompt, to the session if it waits for a line and the queue is
    /// not held.
    pub(super) fn send_queued(&mut self) -> Vec<Action> {
        if !self.waiting || self.queue.held() {
            return vec![];
        }
        let Some(line) = self.queue.pop_front() else { return vec![] };
        self.waiting = false;
        // What the rewind picker lists once its turn starts (`started_prompt`).
        self.sent.push_back(line.clone());
        vec![Action::Send(line)]
    }

    /// Cancels the running turn, if the session is ready.
    pub fn interrupt(&self) {
        if let Some(interrupter) = &self.interrupter {
            interrupter.interrupt();
        }
    }

    pub fn theme(&self) -> Theme {
        self.theme
    }

    /// What chose the palette at start (`auto`: the terminal's answers may change it).
    pub fn set_theme_choice(&mut self, choice: ThemeChoice) {
        self.theme_choice = choice;
    }

    pub fn theme_choice(&self) -> ThemeChoice {
        self.theme_choice
    }

    /// Whether a late answer from the terminal about its background decides the palette.
    pub fn follows_terminal(&self) -> bool {
        self.theme_choice == ThemeChoice::Auto
    }

    /// Switches to the light or the dark palette (the terminal said its background late):
    /// code is highlighted for it and what the conversation holds is drawn again in it.
    /// Whether it changed.
    pub fn set_light(&mut self, light: bool) -> bool {
        if self.theme.light == light {
            return false;
        }
        self.theme.light = light;
        self.history.set_light(light);
        true
    }

    /// What to write to the terminal itself before the next frame (a notification last).
    pub fn take_terminal_writes(&mut self) -> Vec<String> {
        if let Some(alert) = self.alert.take() {
            self.terminal_writes.push(alert);
        }
        std::mem::take(&mut self.terminal_writes)
    }

    /// The `@` picker over `files` (tests give it a fixed index).
    pub fn set_file_picker(&mut self, files: FilePicker) {
        self.files = files;
    }

    /// Tests' fixtures for what only a started session puts in the conversation (its
    /// banner, as a notice without the session's sandbox; the welcome), so a screen can be
    /// drawn without one.
    #[doc(hidden)]
    pub fn seed_notice(&mut self, text: &str) {
        self.history.push(CellKind::Notice(text.to_string()));
    }

    #[doc(hidden)]
    pub fn seed_welcome(&mut self, welcome: &crate::tui::runtime::welcome::Welcome) {
        self.history.welcome(welcome.lines());
    }

    /// The conversation holds a prompt: the session is worth resuming.
    pub fn resumable(&self) -> bool {
        self.history.has_prompt()
    }
}
