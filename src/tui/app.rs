//! `App`: the TUI's one owner. It holds the panes (conversation, tool log, context panel,
//! prompt, status line), the popups (file picker, model picker, history search, help,
//! approval) and the
//! regions they are drawn in, decides which has the keys (`Focus`), applies what they ask
//! for (`Intent`, in `keys.rs`), feeds them the agent's events and draws them. Each pane and
//! popup keeps its own state and draws itself; none reaches into another. `App` never talks
//! to the terminal or the agent directly: it returns `Action`s for the event loop to carry
//! out, which keeps it testable with `TestBackend`. Its fields are private: the event loop
//! and the tests go through its methods.

use super::panes::plan::PlanStrip;
use super::panes::queue::QueueStrip;
use crate::agent::input::{Approval, ApprovalRequest};
use crate::agent::output::{AgentEvent, Delta, TurnEnd};
use crate::tui::panes::context_panel::ContextPanel;
use crate::tui::panes::conversation::cells::CellKind;
use crate::tui::panes::conversation::history::History;
use crate::tui::panes::prompt::composer::Composer;
use crate::tui::panes::status::{Activity, Around, Lasts, Status};
use crate::tui::panes::tool_log::ToolLog;
use crate::tui::popups::file_picker::{FilePicker, Mention};
use crate::tui::popups::help::HelpOverlay;
use crate::tui::popups::model_picker::ModelPicker;
use crate::tui::popups::plan_accept::PlanAccept;
use crate::tui::popups::resume_picker::ResumePicker;
use crate::tui::popups::reverse_search::ReverseSearch;
use crate::tui::popups::rewind::RewindPicker;
use crate::tui::regions::{PaneRects, Regions};
use crate::tui::runtime::clock::{SharedClock, SystemClock};
use crate::tui::runtime::notify::NotifyMode;
use crate::tui::runtime::notify::NOTIFY_AFTER;
use crate::tui::runtime::prefs::Zoom;
use crate::tui::text::background::ThemeChoice;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Clear, Widget};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

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
    /// Ctrl+R's history search, while open.
    pub(super) search: Option<ReverseSearch>,
    /// The help overlay, while open.
    pub(super) help: Option<HelpOverlay>,
    /// The model picker, while open.
    pub(super) models: Option<ModelPicker>,
    pub(super) approval: Option<PendingApproval>,
    /// The accept-plan dialog, after a plan-mode turn ended with a plan.
    pub(super) plan_accept: Option<PlanAccept>,
    /// The plan the running turn made, for the accept-plan dialog when it ends.
    pub(super) planned: Option<crate::protocol::plan::Plan>,
    /// The prompts of the conversation, oldest first, for the rewind picker; and the lines
    /// sent that have not started yet (a turn's prompt carries notes before them).
    pub(super) prompts: Vec<String>,
    pub(super) sent: VecDeque<String>,
    /// The rewind picker, while open; when Esc was last pressed on an empty prompt.
    pub(super) rewind: Option<RewindPicker>,
    /// The resume picker, while open; the session chosen in it, for the event loop to
    /// start once this one is stopped.
    pub(super) resume: Option<ResumePicker>,
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
    /// The session's mode, once it is ready (Shift+Tab sets it at once).
    pub(super) mode: Option<crate::agent::SharedMode>,
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
        // The app renders on this thread: its code blocks take the theme's syntax colours.
        crate::tui::highlight::use_light(theme.light);
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
            search: None,
            help: None,
            models: None,
            approval: None,
            plan_accept: None,
            planned: None,
            prompts: Vec::new(),
            sent: VecDeque::new(),
            rewind: None,
            resume: None,
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

    /// Something on screen changes with time (spinner, elapsed time, retry countdown, an
    /// approval dialog about to take keys, a notice or a question that goes by itself).
    pub fn animating(&self) -> bool {
        self.status.busy()
            || self.status.notice().is_some()
            || self.confirm.as_ref().is_some_and(|c| c.until().is_some())
            || self.tools.running() > 0
            || self.files.waiting(self.mention())
            || self.approval.as_ref().is_some_and(|p| !p.armed(self.clock.now(), self.last_typed))
            || self.plan_accept.as_ref().is_some_and(|p| !p.armed(self.clock.now(), self.last_typed))
    }

    /// The `@` mention the file picker serves: the prompt's, while it has the keys and no
    /// recall or search is under way.
    pub(super) fn mention(&self) -> Option<Mention> {
        if self.focus != Focus::Composer || self.composer.recalling() || self.search.is_some() {
            return None;
        }
        self.composer.mention()
    }

    pub fn notify(&mut self, text: impl Into<String>) {
        self.status.notify(text);
    }

    /// What the status line says the agent is doing.
    pub fn current_activity(&self) -> Activity {
        self.status.current_activity(self.approval.is_some(), self.tools.running())
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

    /// Prompts waiting for the running turn to end.
    pub fn queued(&self) -> usize {
        self.queue.len()
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

    /// The queue waits for the user's next Enter (the turn it waited for was interrupted).
    pub fn queue_held(&self) -> bool {
        self.queue.held()
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
        crate::tui::highlight::use_light(light);
        self.history.set_light(light);
        true
    }

    /// The notification waiting to be written, taken.
    pub fn take_alert(&mut self) -> Option<String> {
        self.alert.take()
    }

    /// What to write to the terminal itself before the next frame (a notification last).
    pub fn take_terminal_writes(&mut self) -> Vec<String> {
        if let Some(alert) = self.alert.take() {
            self.terminal_writes.push(alert);
        }
        std::mem::take(&mut self.terminal_writes)
    }

    // The panes and popups, for tests and benches.

    pub fn composer(&self) -> &Composer {
        &self.composer
    }

    pub fn composer_mut(&mut self) -> &mut Composer {
        &mut self.composer
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    pub fn tools(&self) -> &ToolLog {
        &self.tools
    }

    pub fn tools_mut(&mut self) -> &mut ToolLog {
        &mut self.tools
    }

    pub fn set_file_picker(&mut self, files: FilePicker) {
        self.files = files;
    }

    pub fn approval(&self) -> Option<&PendingApproval> {
        self.approval.as_ref()
    }

    pub fn help(&self) -> Option<&HelpOverlay> {
        self.help.as_ref()
    }

    pub fn model_picker(&self) -> Option<&ModelPicker> {
        self.models.as_ref()
    }

    pub fn search(&self) -> Option<&ReverseSearch> {
        self.search.as_ref()
    }

    pub fn focus(&self) -> Focus {
        self.focus
    }

    pub fn set_focus(&mut self, focus: Focus) {
        self.focus = focus;
    }

    /// `/clear` waits for its confirmation.
    pub fn confirm_clear(&self) -> bool {
        self.confirm == Some(Confirm::Clear)
    }

    /// The question asked above the prompt, if one is.
    pub fn confirm(&self) -> Option<&Confirm> {
        self.confirm.as_ref()
    }

    pub fn show_context(&self) -> bool {
        self.regions.show_context()
    }

    pub fn set_show_context(&mut self, show: bool) {
        self.regions.set_show_context(show);
    }

    /// The pane zoomed to the whole screen, if it can be shown.
    pub fn zoomed(&self) -> Option<Zoom> {
        self.regions.zoomed()
    }

    /// Where each pane was drawn last.
    pub fn rects(&self) -> PaneRects {
        self.regions.last()
    }

    /// When the app started (by its clock).
    pub fn started(&self) -> Instant {
        self.started
    }

    // Drawing.

    pub fn draw(&mut self, frame: &mut ratatui::Frame) {
        let area = frame.area();
        let now = self.clock.now();
        self.render(area, frame.buffer_mut(), now);
    }

    /// Lays out and draws everything into `buf`: the panes where `regions.rs` puts them,
    /// the prompt and the status line; the popups on top.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        if area.width < 20 || area.height < 8 {
            buf.set_string(area.x, area.y, truncate("window too small", usize::from(area.width)), self.theme.dim());
            return;
        }
        let theme = self.theme;
        // The status line first: a notice it has no room for goes whole above the prompt,
        // with the question asked there.
        let around = Around {
            started: self.started,
            context_tokens: self.context.total_tokens(),
            approving: self.approval.is_some(),
            tools_running: self.tools.running(),
            esc_interrupts: self.esc_interrupts(),
            queued: self.queue.len(),
            queue_held: self.queue.held() && self.focus == Focus::Composer,
        };
        let status_line = self.status.compose(area.width, now, &around);
        self.drop_stale_confirm();
        let asked = crate::tui::popups::confirm::lines(
            self.confirm.as_ref(),
            status_line.overflow.as_deref(),
            area.width,
            &theme,
        );
        let composer_h = self.composer.height().min(area.height.saturating_sub(6));
        let asked_h = (asked.len() as u16).min(area.height.saturating_sub(composer_h + 5));
        let plan_h = self.plan.height(area.height.saturating_sub(composer_h + asked_h + 1));
        let queue_h = self.queue.height(area.height).min(area.height.saturating_sub(composer_h + plan_h + asked_h + 4));
        let [main, plan, queue, asked_area, composer, status] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(plan_h),
            Constraint::Length(queue_h),
            Constraint::Length(asked_h),
            Constraint::Length(composer_h),
            Constraint::Length(1),
        ])
        .areas(area);
        let rects = self.regions.lay_out(main, composer, area.height);
        let title = if self.esc_interrupts() { "conversation · Esc interrupts" } else { "conversation" };
        let highlight = matches!(self.focus, Focus::Conversation | Focus::Tools);
        if !rects.conversation.is_empty() {
            self.history.render(rects.conversation, buf, &theme, self.focus == Focus::Conversation, highlight, title);
        }
        if !rects.tools.is_empty() {
            self.tools.render(rects.tools, buf, &theme, self.focus == Focus::Tools, now);
        }
        if let Some(context) = rects.context {
            // Over the other panes when the screen is small.
            Clear.render(context, buf);
            self.context.render(context, buf, &theme, self.focus == Focus::Context);
        }
        self.plan.render(plan, buf, &theme);
        let pasted = &self.pasted_prompts;
        let shown = |line: &str| pasted.iter().find(|(sent, _)| sent == line).map(|(_, shown)| shown.clone());
        self.queue.render(queue, buf, &theme, shown);
        let queued = self.queue.len();
        let mut prompt_title = if queued > 0 { format!("prompt · {queued} queued") } else { "prompt".into() };
        if self.status.mode() != crate::agent::mode::Mode::Ask {
            prompt_title.push_str(&format!(" · {}", self.status.mode().label()));
        }
        crate::tui::popups::confirm::render(&asked, asked_area, buf);
        self.composer.render(composer, buf, &theme, self.focus == Focus::Composer, &prompt_title);
        Status::draw(&status_line, status, buf, &theme);
        if let Some(picker) = &self.models {
            picker.render(composer, buf, &theme);
        } else if let Some(search) = &self.search {
            search.render(composer, buf, &theme, self.composer.history_entries());
        } else if self.focus == Focus::Composer {
            self.composer.render_popup(composer, buf, &theme);
            let mention = self.mention();
            self.files.render(composer, buf, &theme, mention);
        }
        if let Some(help) = self.help.as_mut() {
            help.render(area, buf, &theme, self.composer.commands());
        }
        if let Some(picker) = &self.rewind {
            picker.render(composer, buf, &theme);
        }
        if let Some(picker) = &self.resume {
            picker.render(area, composer, buf, &theme);
        }
        let armed_now = self.clock.now();
        if let Some(dialog) = &self.plan_accept {
            // Above the plan strip, which shows the plan it is about.
            let below = Rect { y: plan.y, ..composer };
            dialog.render(below, buf, &theme, dialog.armed(armed_now, self.last_typed));
        }
        if let Some(pending) = self.approval.as_mut() {
            let armed = pending.armed(armed_now, self.last_typed);
            pending.render(area, buf, &theme, armed);
        }
    }

    /// Esc interrupts only from the prompt while a turn runs (from a pane it goes back to
    /// the prompt), so only then do the title and the status line offer it.
    fn esc_interrupts(&self) -> bool {
        self.status.busy() && self.focus == Focus::Composer
    }

    /// A question that no longer holds goes: Ctrl+C's second press came too late, the
    /// prompt no longer says `/clear`, or the user typed on instead of quitting.
    fn drop_stale_confirm(&mut self) {
        let stale = match &self.confirm {
            Some(Confirm::Clear) => self.composer.text().trim() != "/clear",
            // Typing something else leaves the question.
            Some(Confirm::QuitRunning) => !self.composer.is_empty(),
            Some(confirm) => confirm.expired(Instant::now()),
            None => false,
        };
        if stale {
            self.confirm = None;
        }
    }
}

// The agent's side: each `AgentEvent` fed to the panes it concerns, and the approval
// questions the session asks, opened as the dialog and answered back.
impl App {
    /// A question from the session: the approval dialog opens.
    pub fn ask(&mut self, request: ApprovalRequest, reply: oneshot::Sender<Approval>) {
        self.tools.waiting(&request.call_id, true);
        self.status.drop_turn_notice(); // the previous answer is not about this question
        self.approval = Some(PendingApproval::new(request, reply, self.clock.now()));
        self.status.set_activity(Activity::Approving);
    }

    /// Answers the pending approval.
    pub fn answer(&mut self, approval: Approval) {
        if let Some(pending) = self.approval.take() {
            self.status.notify_for_turn(pending.answered(&approval));
            self.tools.waiting(&pending.request.call_id, false);
            let tool = pending.request.tool.clone();
            let _ = pending.reply.send(approval);
            self.status.set_activity(if self.status.busy() { Activity::RunningTool(tool) } else { Activity::Idle });
        }
    }

    /// A turn ended: a long one, finished while the user looked elsewhere, rings or
    /// notifies (`runtime/notify.rs`).
    fn turn_finished(&mut self, ok: bool) {
        let Some(took) = self.status.turn_finished(self.clock.now(), ok) else { return };
        if !self.terminal_focused && took >= NOTIFY_AFTER {
            self.alert = self.notify_mode.sequence(&format!("elelem: done after {}s", took.as_secs()));
        }
    }

    pub fn handle_agent(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::TurnStarted { prompt } => {
                self.waiting = false;
                self.tools.turn_started();
                self.plan.turn_started();
                self.started_prompt(&prompt);
                self.status.turn_started(self.clock.now());
                match self.pasted_prompts.iter().position(|(sent, _)| *sent == prompt) {
                    Some(i) => {
                        let (sent, shown) = self.pasted_prompts.remove(i).unwrap_or_default();
                        self.history.user_pasted(&shown, &sent);
                    }
                    None => self.history.user(&prompt),
                }
            }
            AgentEvent::Delta(Delta::Thinking(delta)) => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::Thinking);
                self.status.streamed(delta.len());
                self.history.thinking(&delta);
            }
            AgentEvent::Delta(Delta::Saying(delta)) => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::Responding);
                self.status.streamed(delta.len());
                self.history.saying(&delta);
            }
            AgentEvent::ToolStarted { call, summary } => {
                self.status.drop_notice_of(&[Lasts::Retry]);
                self.status.set_activity(Activity::RunningTool(call.name.clone()));
                let summary_line = crate::sanitize::sanitize_visible(&summary).replace('\n', " ⏎ ");
                let name = crate::sanitize::sanitize_visible(&call.name);
                let label = format!("#{} {name} {summary_line}", self.tools.next_number());
                self.history.tool_started(&call.id, &name, label.trim_end());
                self.tools.started(&call.id, &call.name, &summary, &call.arguments);
            }
            AgentEvent::Delta(Delta::ToolOutput { id, chunk }) => {
                self.history.tool_output(&id, &chunk);
                self.tools.output(&id, &chunk);
            }
            AgentEvent::ToolFinished { call, result } => {
                self.history.tool_finished(&call.id, &result);
                self.tools.finished(&call.id, &result);
                self.status.set_activity(if self.status.busy() { Activity::Thinking } else { Activity::Idle });
            }
            AgentEvent::Usage(usage) => {
                self.history.step_ended();
                self.status.add_usage(usage);
            }
            AgentEvent::Retrying { attempt, max, delay, reason } => {
                self.status.set_activity(Activity::Retrying { attempt, max, until: Instant::now() + delay });
                self.status.notify_while(reason, Lasts::Retry);
            }
            AgentEvent::ProviderChanged { provider, model } => {
                self.status.set_model(provider, model);
            }
            AgentEvent::Context(snapshot) => self.context.set(snapshot),
            AgentEvent::Info(text) => {
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.history.close();
                self.history.push(CellKind::Info(text));
                // `/sandbox` switched the mode (it says so in an Info): the banner follows.
                self.history.set_banner_sandbox(crate::startup::sandbox_label());
            }
            // A failure: said until a later turn succeeds (or its time is up).
            AgentEvent::Warning(text) => self.status.notify_while(text, Lasts::Warning),
            AgentEvent::Error(text) => {
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.history.close();
                self.history.push(CellKind::Error(format!("Error: {text}")));
            }
            AgentEvent::TurnFinished { end, .. } => {
                if self.confirm == Some(Confirm::QuitRunning) {
                    // Asked only because a turn ran: with it over, the quit goes through.
                    self.quit = true;
                }
                self.turn_finished(end == TurnEnd::Done);
                let planned = self.planned.take();
                if let Some(plan) = planned.filter(|_| self.status.mode() == crate::agent::mode::Mode::Plan) {
                    self.plan_accept = Some(PlanAccept::new(self.clock.now(), &plan));
                }
                if end == TurnEnd::Interrupted {
                    self.history.interrupted();
                }
                self.history.close();
                if end == TurnEnd::Interrupted {
                    self.history.push(CellKind::Notice("⏹ interrupted".into()));
                }
            }
            AgentEvent::Cleared => {
                self.prompts.clear();
                self.history.clear()
            }
            AgentEvent::Rewound { turns } => self.rewound(turns),
            AgentEvent::Exit => self.quit = true,
            AgentEvent::Clipboard(text) => self.terminal_writes.push(crate::clipboard::osc52(&text)),
            // The terminal shows a change as its result's unified diff.
            AgentEvent::FileChange { call_id, old, new, .. } => {
                self.history.file_changed(&call_id, old.is_none().then_some(new))
            }
            AgentEvent::Plan(plan) => {
                if self.status.busy() {
                    self.planned = Some(plan.clone());
                }
                self.plan.set(plan)
            }
            AgentEvent::SubAgent { call_id, event } => {
                // Its tokens count in the totals; its calls nest under its row in the tool log.
                if let Some(usage) = event.billed_usage() {
                    self.status.add_sub_usage(usage);
                }
                if let AgentEvent::Warning(text) = event.as_ref() {
                    self.notify(format!("sub-agent: {text}"));
                }
                self.tools.sub_agent(&call_id, *event);
            }
            AgentEvent::Models { provider, current, listed } => {
                // "asking … for its models" is answered.
                self.status.drop_notice_of(&[Lasts::Asking]);
                self.focus = Focus::Composer;
                self.models = Some(ModelPicker::new(provider, current, listed));
            }
            AgentEvent::Mode(mode) => {
                self.status.set_mode(mode);
                self.notify(mode.describe());
                if mode != crate::agent::mode::Mode::Plan {
                    self.plan_accept = None;
                }
            }
        }
    }
}
