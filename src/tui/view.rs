//! Drawing `App`: the panes where `layout.rs` puts them, the composer, the status line and
//! the command popup; the help overlay and the approval dialog draw themselves on top.

use super::app::{Activity, App, Focus};
use super::context_panel::short_count;
use super::wrap::truncate;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Clear, Widget};
use ratatui::Frame;
use std::time::Instant;
use unicode_width::UnicodeWidthStr;

impl App {
    pub fn draw(&mut self, frame: &mut Frame) {
        let area = frame.area();
        let now = self.clock.now();
        self.render(area, frame.buffer_mut(), now);
    }

    /// Lays out and draws everything into `buf`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        if area.width < 20 || area.height < 8 {
            buf.set_string(area.x, area.y, truncate("window too small", usize::from(area.width)), self.theme.dim());
            return;
        }
        let composer_h = self.composer.height().min(area.height.saturating_sub(6));
        let [main, composer, status] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(composer_h), Constraint::Length(1)]).areas(area);
        let rects = self.pane_rects(main, composer, area.height);
        self.rects = rects;
        let theme = self.theme;
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
        let prompt_title = if self.queued > 0 { format!("prompt · {} queued", self.queued) } else { "prompt".into() };
        self.composer.render(composer, buf, &theme, self.focus == Focus::Composer, &prompt_title);
        self.render_status(status, buf, now);
        if self.search.is_some() {
            self.render_search(composer, buf);
        } else if self.focus == Focus::Composer {
            self.composer.render_popup(composer, buf, &theme);
            self.render_file_popup(composer, buf);
        }
        if let Some(help) = self.help.as_mut() {
            help.render(area, buf, &theme, self.composer.commands());
        }
        self.render_approval(area, buf);
    }

    /// Esc interrupts only from the prompt while a turn runs (from a pane it goes back to
    /// the prompt), so only then do the title and the status line offer it.
    fn esc_interrupts(&self) -> bool {
        self.busy && self.focus == Focus::Composer
    }

    fn activity_text(&self, now: Instant) -> String {
        const SPIN: [&str; 4] = ["◐", "◓", "◑", "◒"];
        let spin = SPIN[(now.saturating_duration_since(self.started).as_millis() / 150) as usize % SPIN.len()];
        match &self.current_activity() {
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

    fn render_status(&mut self, area: Rect, buf: &mut Buffer, now: Instant) {
        let theme = self.theme;
        buf.set_style(area, theme.status());
        if self.notice.as_ref().is_some_and(|(_, until)| *until <= Instant::now()) {
            self.notice = None;
        }
        let tokens = if self.usage.input_tokens + self.usage.output_tokens > 0 {
            let took = self.last_turn.filter(|_| !self.busy).map(|d| format!(" {}", duration(d))).unwrap_or_default();
            format!(
                "turn {}{took} · session {}{}",
                in_out(&self.turn_usage),
                in_out(&self.usage),
                cached(&self.last_call)
            )
        } else {
            format!("ctx ~{} tok", short_count(self.context.total_tokens()))
        };
        let mut left = format!(" {} · {} │ {} │ {tokens}", self.provider, self.model, self.activity_text(now));
        if self.yolo {
            left.push_str(" │ YOLO: no approvals");
        }
        if self.confirm_clear {
            left.push_str(" │ Clear conversation? Enter: yes · Esc: no");
        } else if let Some((notice, _)) = &self.notice {
            left.push_str(&format!(" │ {notice}"));
        }
        let hints = if self.esc_interrupts() {
            "Esc interrupt · Tab focus · ^O context · ? help "
        } else if self.busy {
            "Esc back to prompt · Tab focus · ^O context · ? help "
        } else {
            "Tab focus · ^O context · ? help "
        };
        let width = usize::from(area.width);
        let left = truncate(&crate::sanitize::sanitize(&left), width);
        buf.set_string(area.x, area.y, &left, theme.status());
        if left.width() + hints.width() + 2 <= width {
            buf.set_string(area.x + (width - hints.width()) as u16, area.y, hints, theme.status());
        }
    }
}

/// `↑1.2k ↓340`: tokens in and out.
fn in_out(usage: &crate::protocol::Usage) -> String {
    format!("↑{} ↓{}", short_count(usage.input_tokens as usize), short_count(usage.output_tokens as usize))
}

/// ` · 93% cached`: the share of a call's input read from the prompt cache, when the
/// provider reports a cache at all.
fn cached(call: &crate::protocol::Usage) -> String {
    if call.input_tokens == 0 || call.cache_read_tokens + call.cache_write_tokens == 0 {
        return String::new();
    }
    format!(" · {}% cached", call.cache_read_percent())
}

/// `4.2s`, `2m05s`.
fn duration(d: std::time::Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}
