//! The status line and the turn state it shows: the provider and model, what the agent is
//! doing (`Activity`), whether a turn runs, the tokens of
//! the turn and the session (while a turn runs, live: its time and its output so far, the
//! text streamed since the last reported usage estimated at 4 bytes a token), how long the
//! last turn took, a short notice, YOLO and the mode. `App` tells it what happened; it
//! composes the bottom row (`status_line.rs` drops the least important parts first) and
//! draws it.
//!
//! A notice lasts as long as what it says holds (`Lasts`): an approval's answer its turn, a
//! provider's failure until a later turn succeeds, "asking for the models" until they come,
//! a retry's reason until the stream flows again; and never longer than its time.

use crate::protocol::Usage;
use crate::tui::panes::context_panel::short_count;
use crate::tui::panes::status_line::{Composed, Parts};
use crate::tui::text::theme::Theme;
use crate::tui::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::time::{Duration, Instant};
use unicode_width::UnicodeWidthStr;

/// How long a notice shows at most.
const NOTICE_TIME: Duration = Duration::from_secs(4);
/// A warning (a provider's failure) shows longer, unless a later turn succeeds first.
const WARNING_TIME: Duration = Duration::from_secs(15);
/// "Asking for the models…" and a retry's reason, unless their answer comes first.
const WAIT_TIME: Duration = Duration::from_secs(60);

/// What a notice is about: it goes when that no longer holds, or when its time is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lasts {
    /// Only its time.
    Timed,
    /// The running turn or question (an approval's answer): until the turn ends or the next
    /// question opens.
    Turn,
    /// Something failed (a provider's error): until a turn started after it succeeds.
    Warning,
    /// A question to the provider (its models): until it answers.
    Asking,
    /// A retry's reason: until the stream flows again or the turn ends.
    Retry,
}

struct Notice {
    text: String,
    until: Instant,
    lasts: Lasts,
    /// Turns started before it (a warning goes once a later one succeeds).
    turns: u64,
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
    /// Prompts waiting in the queue.
    pub queued: usize,
    /// The queue waits for Enter (a turn was interrupted) and the prompt has the keys.
    pub queue_held: bool,
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
    /// How long the last turn took.
    last_turn: Option<Duration>,
    /// When the running turn started.
    turn_started: Option<Instant>,
    /// Bytes of text and thinking streamed since the last model call reported its usage.
    streamed: usize,
    /// A short message, until what it says no longer holds.
    notice: Option<Notice>,
    /// Turns started so far.
    turns: u64,
    yolo: bool,
    /// The session's mode, shown when it is not ask.
    mode: crate::protocol::mode::Mode,
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
            last_turn: None,
            turn_started: None,
            streamed: 0,
            notice: None,
            turns: 0,
            yolo: false,
            mode: Default::default(),
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

    pub fn set_mode(&mut self, mode: crate::protocol::mode::Mode) {
        self.mode = mode;
    }

    pub fn mode(&self) -> crate::protocol::mode::Mode {
        self.mode
    }

    pub fn busy(&self) -> bool {
        self.busy
    }

    pub fn set_activity(&mut self, activity: Activity) {
        self.activity = activity;
    }

    /// A turn started at `now`.
    pub fn turn_started(&mut self, now: Instant) {
        self.busy = true;
        self.turns += 1;
        self.turn_started = Some(now);
        self.turn_usage = Usage::default();
        self.streamed = 0;
        self.activity = Activity::Thinking;
    }

    /// The turn ended at `now` (`ok`: it succeeded); how long it took, if one was running.
    pub fn turn_finished(&mut self, now: Instant, ok: bool) -> Option<Duration> {
        self.busy = false;
        self.streamed = 0;
        let turns = self.turns;
        self.drop_notice(|n| match n.lasts {
            Lasts::Turn | Lasts::Retry => true,
            Lasts::Warning => ok && n.turns < turns,
            Lasts::Timed | Lasts::Asking => false,
        });
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

    /// A notice for its time.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.notify_while(text, Lasts::Timed);
    }

    /// A notice that holds only while the turn (or the question) it is about does.
    pub fn notify_for_turn(&mut self, text: impl Into<String>) {
        self.notify_while(text, Lasts::Turn);
    }

    /// A notice that goes when what it is about (`lasts`) no longer holds.
    pub fn notify_while(&mut self, text: impl Into<String>, lasts: Lasts) {
        let time = match lasts {
            Lasts::Timed | Lasts::Turn => NOTICE_TIME,
            Lasts::Warning => WARNING_TIME,
            Lasts::Asking | Lasts::Retry => WAIT_TIME,
        };
        self.notice = Some(Notice { text: text.into(), until: Instant::now() + time, lasts, turns: self.turns });
    }

    /// The notice shown, if any (its time not up).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_ref().filter(|n| n.until > Instant::now()).map(|n| n.text.as_str())
    }

    /// When the notice shown goes by itself (its time is up), if one is shown.
    pub fn notice_ends(&self) -> Option<Instant> {
        self.notice.as_ref().map(|n| n.until).filter(|until| *until > Instant::now())
    }

    /// Drops the notice if it is of one of these kinds.
    pub fn drop_notice_of(&mut self, kinds: &[Lasts]) {
        self.drop_notice(|n| kinds.contains(&n.lasts));
    }

    fn drop_notice(&mut self, drop: impl Fn(&Notice) -> bool) {
        if self.notice.as_ref().is_some_and(drop) {
            self.notice = None;
        }
    }

    /// Drops a notice about the turn (a new question opened).
    pub fn drop_turn_notice(&mut self) {
        self.drop_notice_of(&[Lasts::Turn]);
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

    /// The line for `width` columns at `now` (a notice whose time is up is dropped first):
    /// what it says, and a notice that did not fit beside the rest (`Composed::overflow`,
    /// shown whole above the prompt).
    pub fn compose(&mut self, width: u16, now: Instant, around: &Around) -> Composed {
        if self.notice.as_ref().is_some_and(|n| n.until <= Instant::now()) {
            self.notice = None;
        }
        let (time, out) = self.live(now);
        let (tokens, short_tokens) = if self.usage.input_tokens + self.usage.output_tokens > 0 {
            let turn = format!("turn ↑{} ↓{out}{time}", short_count(self.turn_usage.input_tokens as usize));
            (format!("{turn} · session {}{}", in_out(&self.usage), cached(&self.usage)), turn)
        } else if self.busy && (self.streamed > 0 || !time.is_empty()) {
            let out = if self.streamed > 0 { format!(" ↓{out}") } else { String::new() };
            let tokens = format!("ctx ~{} tok · turn{out}{time}", short_count(around.context_tokens));
            (tokens.clone(), tokens)
        } else {
            let tokens = format!("ctx ~{} tok", short_count(around.context_tokens));
            (tokens.clone(), tokens)
        };
        // While a turn runs, what Esc does is said whatever else the line holds; with
        // prompts queued, that they stay, and how to drop one.
        let (hints, must) = match (around.esc_interrupts, around.queued > 0) {
            (true, true) => ("Esc interrupt · ^X unqueue · Tab focus · ? help ", "Esc interrupt "),
            (true, false) => ("Esc interrupt · Tab focus · ^O context · ? help ", "Esc interrupt "),
            (false, _) if self.busy => ("Esc back to prompt · Tab focus · ^O context · ? help ", "Esc back to prompt "),
            _ if around.queue_held => ("Enter sends the queued · ^X unqueue · ? help ", "Enter sends the queued "),
            _ => ("Tab focus · ^O context · ? help ", ""),
        };
        let clean = |text: &str| crate::sanitize::sanitize(text).into_owned();
        let parts = Parts {
            provider: clean(&self.provider),
            model: clean(&self.model),
            activity: clean(&self.activity_text(now, around)),
            tokens,
            short_tokens,
            yolo: self.yolo,
            mode: (self.mode != crate::protocol::mode::Mode::Ask).then(|| self.mode.label()),
            notice: self.notice.as_ref().map(|n| clean(&n.text)),
            hints,
            must,
        };
        parts.compose(usize::from(width))
    }

    /// Draws a composed line into `area` (one row).
    pub fn draw(line: &Composed, area: Rect, buf: &mut Buffer, theme: &Theme) {
        buf.set_style(area, theme.status());
        let width = usize::from(area.width);
        let hints_width = if line.hints.is_empty() { 0 } else { line.hints.width() + 2 };
        buf.set_string(area.x, area.y, truncate(&line.left, width.saturating_sub(hints_width)), theme.status());
        if !line.hints.is_empty() && hints_width <= width {
            buf.set_string(area.x + (width + 2 - hints_width) as u16, area.y, line.hints, theme.status());
        }
    }
}

/// `↑1.2k ↓340`: tokens in and out.
fn in_out(usage: &Usage) -> String {
    format!("↑{} ↓{}", short_count(usage.input_tokens as usize), short_count(usage.output_tokens as usize))
}

/// ` · 93% cached`: the share of the session's input read from the prompt cache (what
/// `/cost` says), when the provider reports a cache at all.
fn cached(session: &Usage) -> String {
    if session.input_tokens == 0 || session.cache_read_tokens + session.cache_write_tokens == 0 {
        return String::new();
    }
    format!(" · {}% cached", session.cache_read_percent())
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
