//! Key, paste and mouse handling for `App`: who gets a key, and applying the `Intent` the
//! pane or popup returns. Returns `Action`s; never blocks.
//!
//! A key goes first to an open approval dialog (which passes typing on to the prompt),
//! then to the help overlay, the model picker, the history search and the `@` file picker; then the global
//! bindings (Ctrl+C, Ctrl+O, Tab, scrolling, …); then the focused pane.
//!
//! Bindings: Enter sends, Shift+Enter / Alt+Enter / Ctrl+J insert a newline, Up/Down
//! recall prompts, Tab moves focus (or completes a command), Shift+Tab switches mode
//! (ask → accept edits → plan), PgUp/PgDn/Home/End
//! scroll the focused pane (Home/End on an empty prompt: the conversation), Esc from a
//! pane goes back to the prompt and from the prompt always interrupts the running turn
//! (twice on an empty prompt while idle: the rewind picker), Ctrl+C clears (twice quits,
//! asked above the prompt), Ctrl+D on an
//! empty composer quits (while a turn runs it asks first, as `/quit` does: Enter quits), Ctrl+O toggles the context panel, Ctrl+T expands thinking, `?`
//! opens the help overlay. `popups/help.rs`'s `KEYS` lists them all for the user.
//!
//! The queue (prompts typed while a turn runs, `panes/queue.rs`): on an empty prompt with
//! prompts queued, Up takes the newest back into the prompt; Ctrl+X drops it. An interrupt
//! (Esc, Ctrl+C) keeps the queue but holds it: nothing in it runs until the next Enter,
//! which sends the prompt typed before the queued ones, or on an empty prompt the queue.
//!
//! A digit pressed while a dialog (approval, accept plan) is not armed yet and the user was
//! not typing is not an answer and not text either: it is dropped, and the dialog says to
//! press it again (`PendingApproval::early`).

use crate::tui::app::{Action, App, Confirm, APPROVAL_PAUSE, DOUBLE_CTRL_C};
use std::time::Duration;

/// How soon a second Esc on an empty prompt opens the rewind picker.
pub const DOUBLE_ESC: Duration = Duration::from_millis(600);
use crate::tui::intent::{Focus, Intent, Scrolled};
use crate::tui::panes::conversation::cells::CellKind;
use crate::tui::panes::conversation::history::Copied;
use crate::tui::popups::help::HelpOverlay;
use crate::tui::popups::resume_picker::ResumePicker;
use crate::tui::popups::reverse_search::ReverseSearch;
use crate::tui::popups::rewind::RewindPicker;
use crate::tui::text::background::ThemeChoice;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;
use std::time::Instant;

/// Whether `key` is part of typing text: what a dialog must never take as an answer.
fn is_typing(key: &KeyEvent) -> bool {
    let plain = !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    match key.code {
        KeyCode::Char(_) => plain,
        KeyCode::Backspace | KeyCode::Delete | KeyCode::Enter | KeyCode::Left | KeyCode::Right => true,
        _ => false,
    }
}

impl App {
    pub fn handle_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return vec![];
        }
        let now = self.clock.now();
        if self.early_digit(&key, now) {
            return vec![];
        }
        if let Some(pending) = self.approval.as_mut() {
            let armed = pending.armed(now, self.last_typed);
            match pending.handle_key(key, armed) {
                Intent::Ignored => {}
                intent => return self.apply(intent),
            }
        }
        if let Some(dialog) = &self.plan_accept {
            match dialog.handle_key(key, dialog.armed(now, self.last_typed)) {
                Intent::Ignored => {}
                intent => return self.apply(intent),
            }
        }
        if is_typing(&key) {
            self.last_typed = Some(self.clock.now());
        }
        if key.code != KeyCode::Esc {
            self.last_esc = None;
        }
        if let Some(help) = self.help.as_mut() {
            let intent = help.handle_key(key);
            return self.apply(intent);
        }
        if let Some(picker) = self.models.as_mut() {
            let intent = picker.handle_key(key);
            if matches!(intent, Intent::Send { .. } | Intent::Close(_)) {
                self.models = None;
            }
            return match intent {
                Intent::Close(_) => vec![],
                intent => self.apply(intent),
            };
        }
        if let Some(picker) = self.rewind.as_mut() {
            let intent = picker.handle_key(key);
            return self.apply(intent);
        }
        if let Some(picker) = self.resume.as_mut() {
            let intent = picker.handle_key(key);
            return self.apply(intent);
        }
        if let Some(search) = self.search.as_mut() {
            let intent = search.handle_key(key, self.composer.history_entries());
            return self.apply(intent);
        }
        let mention = self.mention();
        match self.files.handle_key(key, mention) {
            Intent::Ignored => {}
            intent => return self.apply(intent),
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => return self.quit(),
            KeyCode::Char('o') if ctrl => self.toggle_context(),
            KeyCode::Char('r') if ctrl => {
                self.focus = Focus::Composer;
                self.search = Some(ReverseSearch::open(self.composer.text()));
            }
            KeyCode::Char('t') if ctrl => self.history.toggle_thinking(),
            KeyCode::Char('z') if ctrl => {
                let saved = self.regions.toggle_zoom(self.focus);
                self.saved(saved);
            }
            KeyCode::Left if ctrl && self.focus != Focus::Composer => return self.apply(Intent::ResizeSplit(1)),
            KeyCode::Right if ctrl && self.focus != Focus::Composer => return self.apply(Intent::ResizeSplit(-1)),
            KeyCode::Char('j') if ctrl => self.composer.insert_newline(),
            KeyCode::Enter if shift || alt => self.composer.insert_newline(),
            KeyCode::Esc => {
                let asked = self.confirm.take();
                if asked == Some(Confirm::Clear) {
                    self.composer.clear();
                    self.notify("not cleared");
                } else if asked == Some(Confirm::QuitRunning) {
                    self.notify("not quitting: the turn goes on");
                } else if !self.composer.popup().is_empty() {
                    self.composer.dismiss_popup();
                } else if self.focus != Focus::Composer {
                    // From a pane, Esc only goes back to the prompt: it never interrupts.
                    self.focus = Focus::Composer;
                } else if self.status.busy() {
                    // Always the interrupt; queued prompts stay, held until the next Enter.
                    return self.interrupt_turn();
                } else if self.composer.is_empty() {
                    // Esc Esc on an empty prompt while idle: the rewind picker.
                    if self.last_esc.is_some_and(|t| now.duration_since(t) <= DOUBLE_ESC) {
                        self.last_esc = None;
                        self.open_rewind();
                    } else {
                        self.last_esc = Some(now);
                    }
                }
            }
            KeyCode::Char('x') if ctrl && self.focus == Focus::Composer && !self.queue.is_empty() => {
                // The newest queued prompt leaves the queue.
                if let Some(dropped) = self.queue.pop_back() {
                    let left = if self.queue.is_empty() { String::new() } else { " (Ctrl+X again: the next)".into() };
                    self.notify(format!("dropped from the queue: {}{left}", crate::sanitize::sanitize(&dropped)));
                }
            }
            KeyCode::Enter
                if self.focus == Focus::Composer
                    && self.composer.is_empty()
                    && !shift
                    && !alt
                    && self.confirm == Some(Confirm::QuitRunning) =>
            {
                return vec![Action::Quit];
            }
            KeyCode::Enter
                if self.focus == Focus::Composer && self.composer.is_empty() && !shift && !alt && self.queue.held() =>
            {
                // The queue an interrupt held goes on.
                self.queue.release();
                return self.send_queued();
            }
            KeyCode::Up
                if self.focus == Focus::Composer
                    && self.composer.is_empty()
                    && self.composer.popup().is_empty()
                    && !self.queue.is_empty() =>
            {
                // The newest queued prompt comes back to be edited (sent again with Enter).
                if let Some(line) = self.queue.pop_back() {
                    self.composer.set_text(&line);
                }
            }
            KeyCode::Tab if self.focus == Focus::Composer && !self.composer.popup().is_empty() => {
                self.composer.complete();
            }
            KeyCode::Tab => self.cycle_focus(1),
            KeyCode::BackTab => return self.next_mode(),
            KeyCode::PageUp => return self.scroll(Scrolled::Up(self.page())),
            KeyCode::PageDown => return self.scroll(Scrolled::Down(self.page())),
            KeyCode::Home if ctrl || self.focus != Focus::Composer || self.composer.is_empty() => {
                return self.scroll(Scrolled::Home)
            }
            KeyCode::End if ctrl || self.focus != Focus::Composer || self.composer.cursor_at_end() => {
                return self.scroll(Scrolled::End)
            }
            _ => return self.focused_key(key),
        }
        vec![]
    }

    /// The focused pane's key; typing in another pane goes to the prompt.
    fn focused_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let intent = match self.focus {
            Focus::Composer => self.composer.handle_key(key),
            Focus::Conversation => self.history.handle_key(key),
            Focus::Tools => self.tools.handle_key(key),
            Focus::Context => self.context.handle_key(key),
        };
        if intent == Intent::Ignored && matches!(key.code, KeyCode::Char(_)) {
            self.focus = Focus::Composer;
            self.composer.input(key);
            return vec![];
        }
        self.apply(intent)
    }

    /// Does what a pane or popup asked for.
    fn apply(&mut self, intent: Intent) -> Vec<Action> {
        match intent {
            Intent::Handled | Intent::Ignored => {}
            Intent::Close(text) => {
                // Only one popup takes keys at a time: the help, else the search.
                if self.help.take().is_none() {
                    self.search = None;
                }
                if let Some(text) = text {
                    self.composer.set_text(&text);
                }
            }
            Intent::SetPrompt(text) => self.composer.set_text(&text),
            Intent::InsertMention(path) => self.composer.replace_mention(&path),
            Intent::Answer(approval) => self.answer(approval),
            Intent::Notify(text) => self.notify(text),
            Intent::Send { line, shown } => {
                if let Some(shown) = shown.filter(|_| !line.starts_with('/')) {
                    self.pasted_prompts.push_back((line.clone(), shown));
                }
                if !line.trim().is_empty() {
                    return self.run_line(&line);
                }
            }
            Intent::OpenHelp => self.help = Some(HelpOverlay::new()),
            Intent::ShowCall(id) => self.history.select_tool(&id),
            Intent::OpenCall(id) => {
                self.tools.open(&id);
                self.focus = Focus::Tools;
            }
            Intent::Resume(id) => {
                self.resume = None;
                if let Some(id) = id {
                    // The event loop stops this session and starts the chosen one.
                    self.resume_to = Some(id);
                    return vec![Action::Quit];
                }
            }
            Intent::Rewind(turns) => {
                self.rewind = None;
                if let Some(turns) = turns {
                    return self.run_line(&format!("/rewind {turns}"));
                }
            }
            Intent::AcceptPlan(mode) => {
                let Some(dialog) = self.plan_accept.take() else { return vec![] };
                let Some(mode) = mode else {
                    self.notify("still planning: say what to change");
                    return vec![];
                };
                let mut actions = vec![Action::Submit(format!("/mode {}", mode.word()))];
                actions.extend(self.run_line(&dialog.go_ahead()));
                return actions;
            }
            Intent::ResizeSplit(steps) => {
                let saved = self.regions.resize_split(steps);
                self.saved(saved);
            }
        }
        vec![]
    }

    /// Says a failed save of the layout on the status line.
    fn saved(&mut self, saved: Result<(), String>) {
        if let Err(error) = saved {
            self.notify(error);
        }
    }

    fn ctrl_c(&mut self) -> Vec<Action> {
        let now = Instant::now();
        if self.last_ctrl_c.is_some_and(|t| now.duration_since(t) < DOUBLE_CTRL_C) {
            return vec![Action::Quit];
        }
        self.last_ctrl_c = Some(now);
        if !self.composer.is_empty() {
            self.composer.clear();
            return vec![];
        }
        let interrupted = self.status.busy();
        self.confirm = Some(Confirm::Quit { until: now + DOUBLE_CTRL_C, interrupted });
        if interrupted {
            return self.interrupt_turn();
        }
        vec![]
    }

    /// Ctrl+D on an empty prompt or `/quit`: quits at once while idle; while a turn runs
    /// it asks first above the prompt (the same key or command again, or Enter, quits).
    fn quit(&mut self) -> Vec<Action> {
        if !self.status.busy() || self.confirm.take() == Some(Confirm::QuitRunning) {
            return vec![Action::Quit];
        }
        self.focus = Focus::Composer;
        self.confirm = Some(Confirm::QuitRunning);
        vec![]
    }

    /// Interrupts the running turn; the queued prompts stay, held until the next Enter.
    fn interrupt_turn(&mut self) -> Vec<Action> {
        self.queue.hold();
        vec![Action::Interrupt]
    }

    /// A digit pressed while a dialog is not armed yet and the user was not typing (the
    /// prompt is empty — the Enter that sent the last one does not count — or they paused):
    /// neither an answer nor text. It is dropped, and the dialog says so.
    fn early_digit(&mut self, key: &KeyEvent, now: Instant) -> bool {
        let KeyCode::Char(digit @ '0'..='9') = key.code else { return false };
        if key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
            return false;
        }
        let paused = self.last_typed.is_none_or(|typed| now.saturating_duration_since(typed) >= APPROVAL_PAUSE);
        let typing = !paused && self.focus == Focus::Composer && !self.composer.is_empty();
        if typing {
            return false;
        }
        let last_typed = self.last_typed;
        if let Some(pending) = self.approval.as_mut().filter(|p| p.reason.is_none() && !p.armed(now, last_typed)) {
            pending.early = Some(digit);
            return true;
        }
        if let Some(dialog) = self.plan_accept.as_mut().filter(|d| !d.armed(now, last_typed)) {
            dialog.early = Some(digit);
            return true;
        }
        false
    }

    /// Handles UI-only commands here and sends everything else to the agent.
    pub fn run_line(&mut self, line: &str) -> Vec<Action> {
        self.history.scroll_end();
        let asked = self.confirm.take();
        let confirmed = asked == Some(Confirm::Clear);
        match line.trim() {
            "/clear" if !confirmed => {
                // Asks first, above the prompt: the composer keeps the line, so Enter again
                // confirms.
                self.confirm = Some(Confirm::Clear);
                self.composer.set_text("/clear");
                self.composer.dismiss_popup();
                vec![]
            }
            "/context" => {
                self.toggle_context();
                vec![]
            }
            "/plan" => {
                self.history.push(CellKind::Info(self.plan.listing()));
                vec![]
            }
            "/mouse" => {
                self.mouse = !self.mouse;
                self.notify(if self.mouse { "mouse capture on" } else { "mouse capture off: select text freely" });
                vec![Action::SetMouse(self.mouse)]
            }
            theme if theme == "/theme" || theme.starts_with("/theme ") => self.theme_command(&theme[6..]),
            "/exit" | "/quit" => {
                // `quit` asks while a turn runs; the same command again answers yes.
                self.confirm = asked;
                self.quit()
            }
            "/model" | "/models" => {
                // Said until the picker opens with them (or the provider answers otherwise).
                let asking = format!("asking {} for its models…", self.status.provider());
                self.status.notify_while(asking, crate::tui::panes::status::Lasts::Asking);
                self.waiting = false;
                vec![Action::Submit(line.trim().to_string())]
            }
            "/rewind" => {
                self.open_rewind();
                vec![]
            }
            "/resume" => {
                let cwd = std::env::current_dir().unwrap_or_default();
                self.open_resume(crate::startup::sessions_in(&cwd));
                vec![]
            }
            "/help" | "?" => {
                self.help = Some(HelpOverlay::new());
                vec![]
            }
            _ => {
                if line.starts_with('/') {
                    self.history.push(CellKind::Notice(format!("› {line}")));
                } else if self.status.busy() || !self.queue.is_empty() {
                    // Held here, shown above the prompt, until the session asks for a line
                    // (`session_waiting`). After an interrupt, this Enter sends the prompt
                    // before the queued ones, which go on after it.
                    if self.queue.release() {
                        self.queue.push_front(line.to_string());
                        self.notify("sent before the queued prompts");
                    } else {
                        self.queue.push_back(line.to_string());
                        self.status.notify_for_turn("queued: it runs when this turn ends");
                    }
                    let mut actions = vec![Action::Queued(line.to_string())];
                    actions.extend(self.send_queued());
                    return actions;
                } else {
                    // What the rewind picker lists once its turn starts (`started_prompt`).
                    self.sent.push_back(line.to_string());
                }
                self.waiting = false;
                vec![Action::Submit(line.to_string())]
            }
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        if let Some(pending) = self.approval.as_mut() {
            pending.paste(text);
        } else {
            self.focus = Focus::Composer;
            self.composer.paste(text);
        }
    }

    /// A mouse event: the wheel scrolls the pane under it, a click focuses a pane and selects
    /// the row there, a drag in the conversation selects text (`history/selection.rs`), which
    /// the release copies, as does a click on a code block's label.
    pub fn handle_mouse(&mut self, mouse: MouseEvent) -> Vec<Action> {
        let at = Position { x: mouse.column, y: mouse.row };
        // A drag that began in the conversation stays its own wherever the mouse goes.
        match mouse.kind {
            MouseEventKind::Drag(MouseButton::Left) if self.history.selecting() => {
                self.history.drag(at);
                return vec![];
            }
            MouseEventKind::Up(MouseButton::Left) if self.history.selecting() => {
                return self.history.release(at).map(|copied| self.copied(copied)).unwrap_or_default();
            }
            MouseEventKind::Down(MouseButton::Left) => self.history.press(at),
            _ => {}
        }
        let Some(pane) = self.regions.pane_at(at) else { return vec![] };
        match mouse.kind {
            MouseEventKind::ScrollUp => {
                self.scroll_pane(pane, Scrolled::Up(3));
            }
            MouseEventKind::ScrollDown => {
                self.scroll_pane(pane, Scrolled::Down(3));
            }
            MouseEventKind::Down(_) => {
                self.focus = pane;
                // A click on a row selects it.
                match pane {
                    Focus::Tools => {
                        let intent = self.tools.click(at);
                        return self.apply(intent);
                    }
                    Focus::Conversation => self.history.click(at),
                    _ => {}
                }
            }
            _ => {}
        }
        vec![]
    }

    /// Text selected in the conversation (or a code block's) goes to the clipboard: OSC 52
    /// through the terminal, and tmux's paste buffer under tmux (`Action::TmuxBuffer`).
    fn copied(&mut self, copied: Copied) -> Vec<Action> {
        let text = copied.text().to_string();
        let lines = text.lines().count();
        let plural = if lines == 1 { "" } else { "s" };
        self.notify(match copied {
            Copied::Text(_) => format!("copied {lines} line{plural} to the clipboard"),
            Copied::Code(_) => format!("copied the code block ({lines} line{plural}) to the clipboard"),
        });
        self.terminal_writes.push(crate::clipboard::osc52(&text));
        vec![Action::TmuxBuffer(text)]
    }

    /// Shift+Tab: the next mode (ask → accept edits → plan). Set at once in the session's
    /// shared mode, so the gate applies it to a running turn's next call; `/mode WORD`
    /// (run when the session next reads a line) tells the model and the front end.
    fn next_mode(&mut self) -> Vec<Action> {
        let next = self.status.mode().next();
        if let Some(shared) = &self.mode {
            shared.set(next);
        }
        self.status.set_mode(next);
        self.waiting = false;
        vec![Action::Submit(format!("/mode {}", next.word()))]
    }

    /// The resume picker over `sessions` (a notice when there is none).
    pub fn open_resume(&mut self, sessions: Vec<crate::startup::SessionRow>) {
        let picker = ResumePicker::new(sessions);
        if picker.is_empty() {
            self.notify("no recorded session of this directory to resume");
        } else {
            self.focus = Focus::Composer;
            self.resume = Some(picker);
        }
    }

    /// The session the user chose to resume, once: the event loop starts it.
    pub fn take_resume(&mut self) -> Option<String> {
        self.resume_to.take()
    }

    /// The rewind picker over the conversation's prompts (a notice when there is none).
    fn open_rewind(&mut self) {
        if self.prompts.is_empty() {
            self.notify("nothing to rewind: no prompt yet");
        } else {
            self.rewind = Some(RewindPicker::new(&self.prompts));
        }
    }

    /// A turn started with `prompt` (notes before the typed text): the typed line it
    /// carries, when one was sent, is what the rewind picker lists.
    pub(super) fn started_prompt(&mut self, prompt: &str) {
        // Lines sent before it that never started (a hook refused them) are dropped.
        let typed = match self.sent.iter().position(|line| prompt.contains(line.as_str())) {
            Some(at) => {
                self.sent.drain(..at);
                self.sent.pop_front()
            }
            None => None,
        };
        self.prompts.push(typed.unwrap_or_else(|| prompt.to_string()));
    }

    /// The session rewound `turns` turns: their prompts leave the picker's list, their cells
    /// and tool rows leave the panes, and the earliest prompt comes back into the composer.
    pub(super) fn rewound(&mut self, turns: usize) {
        let at = self.prompts.len().saturating_sub(turns);
        let taken = self.prompts.split_off(at);
        if let Some(prompt) = taken.into_iter().next() {
            self.focus = Focus::Composer;
            self.composer.set_text(&prompt);
        }
        self.history.rewind(turns);
        self.tools.rewound(turns);
        self.history.push(CellKind::Notice(format!("⏪ rewound {turns} turn{}", if turns == 1 { "" } else { "s" })));
    }

    fn toggle_context(&mut self) {
        let show = !self.regions.show_context();
        self.regions.set_show_context(show);
        if !show && self.focus == Focus::Context {
            self.focus = Focus::Composer;
        }
    }

    fn cycle_focus(&mut self, step: isize) {
        let order = self.regions.focus_order();
        let i = order.iter().position(|f| *f == self.focus).unwrap_or(0) as isize;
        self.focus = order[(i + step).rem_euclid(order.len() as isize) as usize];
    }

    fn page(&self) -> usize {
        let rows = match self.focus {
            Focus::Tools => self.tools.view_rows(),
            Focus::Context => self.context.view_rows(),
            _ => self.history.view_rows,
        };
        rows.saturating_sub(2).max(1)
    }

    /// Scrolls the focused pane (from the prompt: the conversation).
    fn scroll(&mut self, how: Scrolled) -> Vec<Action> {
        let pane = if self.focus == Focus::Composer { Focus::Conversation } else { self.focus };
        self.scroll_pane(pane, how)
    }

    fn scroll_pane(&mut self, pane: Focus, how: Scrolled) -> Vec<Action> {
        let intent = match pane {
            Focus::Tools => self.tools.scroll_by(how),
            Focus::Context => self.context.scroll_by(how),
            Focus::Conversation | Focus::Composer => {
                self.history.scroll_by(how);
                Intent::Handled
            }
        };
        self.apply(intent)
    }
}

impl App {
    /// `/theme`: says which palette is in use and why; `/theme light|dark|auto` switches now
    /// and remembers it in `tui.json` (`--theme` and `ELELEM_THEME` still win at start);
    /// `auto` asks the terminal again.
    fn theme_command(&mut self, arg: &str) -> Vec<Action> {
        let palette = |light: bool| if light { "light" } else { "dark" };
        let Some(choice) = ThemeChoice::parse(arg) else {
            if !arg.trim().is_empty() {
                self.notify(format!("unknown theme {:?}: /theme light, dark or auto", arg.trim()));
            } else {
                let why = if self.follows_terminal() { "auto: the terminal's background" } else { "chosen" };
                self.notify(format!("theme: {} ({why}) · /theme light, dark or auto", palette(self.theme.light)));
            }
            return vec![];
        };
        self.theme_choice = choice;
        let saved = match self.regions.save_theme(choice) {
            Ok(()) => "saved".to_string(),
            Err(error) => error,
        };
        match choice {
            ThemeChoice::Light | ThemeChoice::Dark => {
                self.set_light(choice == ThemeChoice::Light);
                self.notify(format!("theme: {} ({saved})", choice.name()));
                vec![]
            }
            ThemeChoice::Auto => {
                self.notify(format!("theme: auto, asking the terminal for its background ({saved})"));
                vec![Action::AskBackground]
            }
        }
    }
}

/// Typing in runs (`typing.rs` hands them over).
impl App {
    /// Puts `text`, characters typed in a row, into the prompt at once, when that is all
    /// `handle_key` would do with each of them: the prompt has the keys (no dialog or popup
    /// open) and the first is not a `?` on an empty prompt (the help). `false`:
    /// nothing done, the keys go one by one.
    pub fn type_text(&mut self, text: &str) -> bool {
        let prompt_has_keys = self.focus == Focus::Composer
            && self.approval.is_none()
            && self.plan_accept.is_none()
            && self.help.is_none()
            && self.models.is_none()
            && self.rewind.is_none()
            && self.resume.is_none()
            && self.search.is_none();
        if !prompt_has_keys || text.is_empty() || (text.starts_with('?') && self.composer.is_empty()) {
            return false;
        }
        // What `handle_key` does for every typing key before it reaches the prompt.
        self.last_typed = Some(self.clock.now());
        self.last_esc = None;
        self.composer.type_text(text);
        true
    }
}
