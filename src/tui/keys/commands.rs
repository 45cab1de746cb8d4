//! The lines the UI answers itself (`run_line`): `/clear` (asked first), `/context`,
//! `/plan`, `/mouse`, `/theme`, `/quit`, `/model`, `/rewind`, `/resume`, `/help`; the rest
//! go to the session, or wait in the queue while a turn runs. Also the rewind and resume
//! pickers they open, and what the rewind picker lists.

use crate::tui::app::{Action, App, Confirm};
use crate::tui::intent::Focus;
use crate::tui::panes::conversation::cells::CellKind;
use crate::tui::popups::help::HelpOverlay;
use crate::tui::popups::resume_picker::ResumePicker;
use crate::tui::popups::rewind::RewindPicker;
use crate::tui::popups::stack::Popup;
use crate::tui::text::background::ThemeChoice;

impl App {
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
                self.popups.push(Popup::Help(HelpOverlay::new()));
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

    /// The resume picker over `sessions` (a notice when there is none).
    pub fn open_resume(&mut self, sessions: Vec<crate::startup::SessionRow>) {
        let picker = ResumePicker::new(sessions);
        if picker.is_empty() {
            self.notify("no recorded session of this directory to resume");
        } else {
            self.focus = Focus::Composer;
            self.popups.push(Popup::Resume(picker));
        }
    }

    /// The session the user chose to resume, once: the event loop starts it.
    pub fn take_resume(&mut self) -> Option<String> {
        self.resume_to.take()
    }

    /// The rewind picker over the conversation's prompts (a notice when there is none).
    pub(super) fn open_rewind(&mut self) {
        if self.prompts.is_empty() {
            self.notify("nothing to rewind: no prompt yet");
        } else {
            self.popups.push(Popup::Rewind(RewindPicker::new(&self.prompts)));
        }
    }

    /// A turn started with `prompt` (notes before the typed text): the typed line it
    /// carries, when one was sent, is what the rewind picker lists.
    pub(in crate::tui) fn started_prompt(&mut self, prompt: &str) {
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
    pub(in crate::tui) fn rewound(&mut self, turns: usize) {
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
