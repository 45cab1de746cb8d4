//! The status line and the turn state it shows: the provider and model, what the agent is
//! doing (`Activity`), whether a turn runs, the tokens of
//! the turn and the session (while a turn runs, live: its time and its output so far, the
//! text streamed since the last reported usage estimated at 4 bytes a token), how long the
//! last turn took, a short notice, YOLO and the `/clear` question. `App` tells it what
//! happened; it draws the bottom row.

use crate::protocol::Usage;
use crate::tui::panes::context_panel::short_count;
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

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

/// What the status line needs from the rest of the screen at a frame.
pub struct Around {
    /// When the app started: the clock the spinner turns by.
    pub started: Instant,
    /// The context panel's token estimate (shown before any call reported usage).
    pub context_tokens: usize,
    /// An approval question is open.
    pub approving: bool,
    /// Tool calls still running.
    pub tools_running: usize,
    /// Esc would interrupt the turn (the prompt has the keys while a turn runs).
    pub esc_interrupts: bool,
}

/// The turn state and the status line.
pub struct Status {
    provider: String,
    model: String,
    activity: Activity,
    /// A turn is running (between TurnStarted and TurnFinished).
    busy: bool,
    /// Tokens of the whole session, and of the running (or last) turn.
    usage: Usage,
    turn_usage: Usage,
    /// The latest model call's tokens (the status line shows its share read from cache).
    last_call: Usage,
    /// How long the last turn took.
    last_turn: Option<Duration>,
    /// When the running turn started.
    turn_started: Option<Instant>,
    /// Bytes of text and thinking streamed since the last model call reported its usage.
    streamed: usize,
    /// A short message, and when it expires.
    notice: Option<(String, Instant)>,
    /// The notice is about the running turn (an approval's answer): it goes when the turn
    /// ends or the next question opens, whatever its time left.
    notice_of_turn: bool,
    yolo: bool,
    /// The session's mode, shown when it is not ask.
    mode: crate::agent::mode::Mode,
    /// `/clear` was typed once: Enter again (the composer holds it) clears, anything else
    /// cancels. The status line asks meanwhile.
    confirm_clear: bool,
}

impl Status {
    pub fn new(provider: &str, model: &str) -> Self {
        Status {
            provider: provider.to_string(),
            model: model.to_string(),
            activity: Activity::Idle,
            busy: false,
            usage: Usage::default(),
            turn_usage: Usage::default(),
            last_call: Usage::default(),
            last_turn: None,
            turn_started: None,
            streamed: 0,
            notice: None,
            notice_of_turn: false,
            yolo: false,
            mode: Default::default(),
            confirm_clear: false,
        }
    }

    pub fn set_model(&mut self, provider: String, model: String) {
        self.provider = provider;
        self.model = model;
    }

    pub fn provider(&self) -> &str {
        &self.provider
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn set_yolo(&mut self, yolo: bool) {
        self.yolo = yolo;
    }

    pub fn set_mode(&mut self, mode: crate::agent::mode::Mode) {
        self.mode = mode;
    }

    pub fn mode(&self) -> crate::agent::mode::Mode {
        self.mode
    }

    pub fn busy(&self) -> bool {
        self.busy
    }

    pub fn set_activity(&mut self, activity: Activity) {
        self.activity = activity;
    }

    pub fn confirm_clear(&self) -> bool {
        self.confirm_clear
    }

    pub fn set_confirm_clear(&mut self, confirm: bool) {
        self.confirm_clear = confirm;
    }

    /// A turn started at `now`.
    pub fn turn_started(&mut self, now: Instant) {
        self.busy = true;
        self.turn_started = Some(now);
        self.turn_usage = Usage::default();
        self.streamed = 0;
        self.activity = Activity::Thinking;
    }

    /// The turn ended at `now`; how long it took, if one was running.
    pub fn turn_finished(&mut self, now: Instant) -> Option<Duration> {
        self.busy = false;
        self.streamed = 0;
        self.drop_turn_notice();
        let took = self.turn_started.take().map(|started| now.saturating_duration_since(started));
        if took.is_some() {
            self.last_turn = took;
        }
        self.activity = Activity::Idle;
        took
    }

    /// A model call's tokens.
    pub fn add_usage(&mut self, usage: Usage) {
        for total in [&mut self.usage, &mut self.turn_usage] {
            total.add(&usage);
        }
        self.streamed = 0;
        self.last_call = usage;
    }

    /// `bytes` of reply or thinking streamed in: the live output count until the call
    /// reports its usage.
    pub fn streamed(&mut self, bytes: usize) {
        self.streamed += bytes;
    }

    /// The running turn's time and output tokens so far, for the status line: ` 3s` once
    /// a second has passed, the output marked `~` while part of it is estimated.
    fn live(&self, now: Instant) -> (String, String) {
        let time = match self.turn_started.filter(|_| self.busy) {
            Some(started) => {
                let secs = now.saturating_duration_since(started).as_secs();
                match secs {
                    0 => String::new(),
                    1..60 => format!(" {secs}s"),
                    _ => format!(" {}m{:02}s", secs / 60, secs % 60),
                }
            }
            None => self.last_turn.map(|d| format!(" {}", duration(d))).unwrap_or_default(),
        };
        let out = self.turn_usage.output_tokens as usize + self.streamed / 4;
        let out = if self.streamed > 0 { format!("~{}", short_count(out)) } else { short_count(out) };
        (time, out)
    }

    /// A sub-agent's tokens: counted in the turn's and the session's totals, not as the
    /// last call (whose cache share the line shows).
    pub fn add_sub_usage(&mut self, usage: &Usage) {
        for total in [&mut self.usage, &mut self.turn_usage] {
            total.add(usage);
        }
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

    /// What the agent is doing, from the state: a pending question, a running tool or
    /// turn; idle when none is (a `!command` runs no turn: when it ends, nothing is left
    /// running).
    pub fn current_activity(&self, approving: bool, tools_running: usize) -> Activity {
        if approving {
            return Activity::Approving;
        }
        match &self.activity {
            Activity::RunningTool(_) if tools_running > 0 => self.activity.clone(),
            _ if !self.busy => Activity::Idle,
            activity => activity.clone(),
        }
    }

    fn activity_text(&self, now: Instant, around: &Around) -> String {
        const SPIN: [&str; 4] = ["◐", "◓", "◑", "◒"];
        let spin = SPIN[(now.saturating_duration_since(around.started).as_millis() / 150) as usize % SPIN.len()];
        match &self.current_activity(around.approving, around.tools_running) {
            Activity::Idle => "idle".into(),
            Activity::Thinking => format!("{spin} thinking"),
            Activity::Responding => format!("{spin} responding"),
            Activity::RunningTool(name) => format!("{spin} running {name}"),
            Activity::Retrying { attempt, max, until } => {
                let secs = until.saturating_duration_since(now).as_secs_f64().ceil();
                format!("retrying in {secs}s (attempt {attempt}/{max})")
            }
            Activity::Approving => "waiting for your approval".into(),
        }
    }

    /// Draws the status line into `area` (one row).
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme, now: Instant, around: &Around) {
        buf.set_style(area, theme.status());
        if self.notice.as_ref().is_some_and(|(_, until)| *until <= Instant::now()) {
            self.notice = None;
        }
        let (time, out) = self.live(now);
        let tokens = if self.usage.input_tokens + self.usage.output_tokens > 0 {
            format!(
                "turn ↑{} ↓{out}{time} · session {}{}",
                short_count(self.turn_usage.input_tokens as usize),
                in_out(&self.usage),
                cached(&self.last_call)
            )
        } else if self.busy && (self.streamed > 0 || !time.is_empty()) {
            let out = if self.streamed > 0 { format!(" ↓{out}") } else { String::new() };
            format!("ctx ~{} tok · turn{out}{time}", short_count(around.context_tokens))
        } else {
            format!("ctx ~{} tok", short_count(around.context_tokens))
        };
        let mut left = format!(" {} · {} │ {} │ {tokens}", self.provider, self.model, self.activity_text(now, around));
        if self.yolo {
            left.push_str(" │ YOLO: no approvals");
        }
        if self.mode != crate::agent::mode::Mode::Ask {
            left.push_str(&format!(" │ {} (Shift+Tab)", self.mode.label()));
        }
        if self.confirm_clear {
            left.push_str(" │ Clear conversation? Enter: yes · Esc: no");
        } else if let Some((notice, _)) = &self.notice {
            left.push_str(&format!(" │ {notice}"));
        }
        // While a turn runs, what Esc does is said whatever else the line holds: the rest
        // of the hints only when they fit, the left side cut before this one is.
        let (hints, must) = if around.esc_interrupts {
            ("Esc interrupt · Tab focus · ^O context · ? help ", "Esc interrupt ")
        } else if self.busy {
            ("Esc back to prompt · Tab focus · ^O context · ? help ", "Esc back to prompt ")
        } else {
            ("Tab focus · ^O context · ? help ", "")
        };
        let width = usize::from(area.width);
        let left = crate::sanitize::sanitize(&left);
        let hints = if left.width() + hints.width() + 2 <= width {
            hints
        } else if width >= 3 * must.width() {
            must
        } else {
            ""
        };
        // The hints and two columns before them; the left side is cut to what is left.
        let hints_width = if hints.is_empty() { 0 } else { hints.width() + 2 };
        buf.set_string(area.x, area.y, truncate(&left, width.saturating_sub(hints_width)), theme.status());
        if !hints.is_empty() {
            buf.set_string(area.x + (width + 2 - hints_width) as u16, area.y, hints, theme.status());
        }
    }
}

/// `↑1.2k ↓340`: tokens in and out.
fn in_out(usage: &Usage) -> String {
    format!("↑{} ↓{}", short_count(usage.input_tokens as usize), short_count(usage.output_tokens as usize))
}

/// ` · 93% cached`: the share of a call's input read from the prompt cache, when the
/// provider reports a cache at all.
fn cached(call: &Usage) -> String {
    if call.input_tokens == 0 || call.cache_read_tokens + call.cache_write_tokens == 0 {
        return String::new();
    }
    format!(" · {}% cached", call.cache_read_percent())
}

/// `4.2s`, `2m05s`.
fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}
